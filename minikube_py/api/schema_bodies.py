"""Schemas of the request bodies that are not stored objects.

``DeleteOptions`` (meta.k8s.io/v1), ``Binding`` (core/v1) and ``Scale``
(autoscaling/v1), from the generated schemas: the API server type-checks these
bodies against them before it reads a single field, exactly as it does stored
kinds against their resource's schema.
"""

from __future__ import annotations

from .generated import autoscaling_v1, core_v1, meta_v1
from .schema_model import Schema

__all__ = ["BINDING", "BODIES", "DELETE_OPTIONS", "SCALE"]

DELETE_OPTIONS = meta_v1.DeleteOptions
BINDING = core_v1.Binding
SCALE = autoscaling_v1.Scale

#: Body kind -> (its API version, its schema).
BODIES: dict[str, tuple[str, Schema]] = {
    "DeleteOptions": ("v1", DELETE_OPTIONS),
    "Binding": ("v1", BINDING),
    "Scale": ("autoscaling/v1", SCALE),
}
