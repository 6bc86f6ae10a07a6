"""Lease (coordination.k8s.io/v1): a lock held by one identity for a while
(leader election, node heartbeats in ``kube-node-lease``).

Kubernetes' ``lease`` strategy and ``ValidateLease`` / ``ValidateLeaseUpdate``
(v1.32):

* the name is a DNS subdomain; create and update check the same spec rules
  (an update adds only the metadata update rules):
  ``spec.leaseDurationSeconds`` > 0 and ``spec.leaseTransitions`` >= 0 when
  set; ``spec.strategy``, when set, is a Kubernetes-defined name
  (``OldestEmulationVersion``) or, when it holds a ``/``, a qualified name
  (upstream reports both under ``spec.strategy.strategy``: it appends the
  child twice, and so does this); a non-empty ``spec.preferredHolder`` needs a
  non-empty ``strategy``;
* the ``CoordinatedLeaderElection`` feature gate is alpha and off by default
  in 1.32, so the strategy drops ``strategy`` and ``preferredHolder`` on
  create, and on update unless the stored lease has them (it never does):
  they are accepted and never stored, and the rules above about them only
  apply when the validation is called directly;
* no status, no generation; ``acquireTime``/``renewTime`` are MicroTimes
  (checked at decoding); the field selectors are the metadata ones;
* ``spec`` is a struct in Go and always served, ``{}`` when empty.

Not reproduced: ``AllowCreateOnUpdate`` (a PUT of a missing lease creates it
in Kubernetes; here it is NotFound, as for every kind) and
``AllowUnconditionalUpdate: false`` (a PUT without ``resourceVersion`` is
refused in Kubernetes; here it is applied to the stored version, as for every
kind).

Table: kubectl's ``NAME HOLDER AGE`` (``printLease``). Describe: kubectl has
no Lease describer and uses the generic one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..errors import FieldError, FieldPath, forbidden, invalid, not_supported
from ..generated import coordination_v1
from ..names import is_qualified_name
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch
from ..resource import Column, KindInfo, Resource
from ..validation_meta import Errs, as_int, validate_object_meta, validate_object_meta_update

INFO = KindInfo("Lease", "coordination.k8s.io", "v1", "leases", "lease", True)

#: ``validLeaseStrategies``: the Kubernetes-defined strategy names.
LEASE_STRATEGIES: Final = ("OldestEmulationVersion",)

# ------------------------------------------------------------------ validation


def validate_coordinated_lease_strategy(strategy: str, path: FieldPath) -> Errs:
    """``ValidateCoordinatedLeaseStrategy`` (errors under ``path.strategy``, as
    upstream words it)."""
    where = path.child("strategy")
    if "/" not in strategy:
        if strategy not in LEASE_STRATEGIES:
            return [not_supported(where, strategy, LEASE_STRATEGIES)]
        return []
    return [invalid(where, strategy, msg) for msg in is_qualified_name(strategy)]


def validate_lease_spec(spec_value: Any, path: FieldPath) -> Errs:
    """``ValidateLeaseSpec`` (module docstring)."""
    spec = _m(spec_value)
    errs: list[FieldError] = []
    duration = as_int(spec.get("leaseDurationSeconds"))
    if duration is not None and duration <= 0:
        errs.append(invalid(path.child("leaseDurationSeconds"), duration,
                            "must be greater than 0"))
    transitions = as_int(spec.get("leaseTransitions"))
    if transitions is not None and transitions < 0:
        errs.append(invalid(path.child("leaseTransitions"), transitions,
                            "must be greater than or equal to 0"))
    strategy = spec.get("strategy")
    if isinstance(strategy, str):
        errs.extend(validate_coordinated_lease_strategy(strategy, path.child("strategy")))
    preferred = spec.get("preferredHolder")
    if isinstance(preferred, str) and preferred and not (isinstance(strategy, str) and strategy):
        errs.append(forbidden(path.child("preferredHolder"),
                              "may only be specified if `strategy` is defined"))
    return errs


def validate_lease(lease: Mapping[str, Any]) -> Errs:
    """``ValidateLease``: metadata (DNS-subdomain name, namespaced), then the spec."""
    errs: list[FieldError] = validate_object_meta(lease.get("metadata"), namespaced=True,
                                                  name_rule="subdomain")
    errs.extend(validate_lease_spec(lease.get("spec"), FieldPath.root("spec")))
    return errs


def validate_lease_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateLeaseUpdate``: metadata update rules, then the spec rules."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(validate_lease_spec(new.get("spec"), FieldPath.root("spec")))
    return errs


# ------------------------------------------------------------------ strategy

#: Dropped while ``CoordinatedLeaderElection`` is off (1.32's default).
_GATED: Final = ("strategy", "preferredHolder")


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj["spec"]``, made a dict: a Go struct, served even when empty."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def prepare_for_create(obj: dict[str, Any]) -> None:
    """``PrepareForCreate``: the gated fields go."""
    spec = _spec(obj)
    for name in _GATED:
        spec.pop(name, None)


def prepare_for_update(new: dict[str, Any], old: dict[str, Any]) -> None:
    """``PrepareForUpdate``: a gated field stays only if the stored lease has it."""
    spec, old_spec = _spec(new), _m(old.get("spec"))
    for name in _GATED:
        if old_spec.get(name) is None:
            spec.pop(name, None)


# ------------------------------------------------------------------ table

LEASE_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Holder", "string",
           "holderIdentity contains the identity of the holder of a current lease. If "
           "Coordinated Leader Election is used, the holder identity must be equal to the "
           "elected LeaseCandidate.metadata.name field."),
    Column("Age", "string", D_CREATED),
)


def print_lease(lease: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printLease``: name, holder identity (empty when unset), age."""
    metadata = _m(lease.get("metadata"))
    return [cell_str(metadata.get("name")),
            cell_str(_m(lease.get("spec")).get("holderIdentity")),
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


RESOURCE = Resource(
    INFO, coordination_v1.Lease,
    validate=validate_lease,
    validate_update=validate_lease_update,
    prepare_for_create=prepare_for_create,
    prepare_for_update=prepare_for_update,
    columns=LEASE_COLUMNS,
    row=print_lease,
)
