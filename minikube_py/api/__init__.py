"""The Kubernetes object model: kinds, quantities, names and labels, validation,
defaulting, manifest loading and the errors that cross the API.

Objects are plain JSON-shaped dicts exactly as Kubernetes serialises them; this
package only reads, checks and fills them in. It imports nothing above itself.
"""

from . import kinds as _kinds
from .apps import RESOURCES as _APPS
from .batch import RESOURCES as _BATCH
from .coordination import RESOURCES as _COORDINATION
from .core import RESOURCES as _CORE
from .discovery import RESOURCES as _DISCOVERY
from .rbac import RESOURCES as _RBAC
from .scheduling import RESOURCES as _SCHEDULING

# The install step: every group's resources join the scheme, in discovery order:
# kube-apiserver's group priorities (apps 17800, batch 17400,
# rbac.authorization.k8s.io 17000, scheduling.k8s.io 16600, coordination.k8s.io 16500,
# discovery.k8s.io 16200).
for _resource in (*_CORE, *_APPS, *_BATCH, *_RBAC, *_SCHEDULING, *_COORDINATION, *_DISCOVERY):
    _kinds.register(_resource)
