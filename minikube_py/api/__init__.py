"""The Kubernetes object model: kinds, quantities, names and labels, validation,
defaulting, manifest loading and the errors that cross the API.

Objects are plain JSON-shaped dicts exactly as Kubernetes serialises them; this
package only reads, checks and fills them in. It imports nothing above itself.
"""

from . import kinds as _kinds
from .apps import RESOURCES as _APPS
from .batch import RESOURCES as _BATCH
from .core import RESOURCES as _CORE
from .discovery import RESOURCES as _DISCOVERY
from .scheduling import RESOURCES as _SCHEDULING

# The install step: every group's resources join the scheme, in discovery order
# (discovery.k8s.io has the lowest priority of these groups in kube-apiserver).
for _resource in (*_CORE, *_APPS, *_SCHEDULING, *_BATCH, *_DISCOVERY):
    _kinds.register(_resource)
