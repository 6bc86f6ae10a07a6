"""``kubectl describe`` for both front-ends: text laid out as kubectl prints it.

Contract
--------
:func:`describe` is a pure function. The front-ends (``minikube-py describe``
and the dashboard's describe screen) fetch the object, its events and the
related objects a describer needs, with
:func:`minikube_py.ops.describe.events_for` and
:func:`minikube_py.ops.describe.related_objects` through any
:class:`~minikube_py.client.base.Client`, and pass them in; nothing here
talks to the API, reads the clock or (unless ``tz`` is left ``None``) the
local timezone::

    describe(kind, obj, *, events=(), related=None, now, tz=None, show_events=True) -> str

* ``kind`` is resolved like a command-line resource name (``Pod``, ``pods``,
  ``po``, ``deployments.apps``). A kind whose resource declares a describer
  (``Pod``, ``Node``, ``Namespace``, ``Deployment``, ``ReplicaSet``,
  ``ConfigMap``, ``Service``, ``Endpoints``, ``EndpointSlice``, ...) gets
  kubectl's dedicated one; any other kind (``Event`` included, as in kubectl)
  gets the generic describer:
  Name, Namespace, Labels, Annotations, then every other field as nested
  ``Key:  value`` lines with kubectl's "smart" labels (``apiVersion`` ->
  ``API Version``), then Events.
* ``related`` carries what kubectl would list on its own (the resource's
  ``related`` declarations; :func:`minikube_py.ops.describe.related_objects`
  reads it):

  - Node: ``{"pods": [...]}``, the pods bound to the node. Pods that are not
    on the node (``spec.nodeName``) or are ``Succeeded``/``Failed`` are left
    out, as kubectl's field selector does; the rest give the
    "Non-terminated Pods" table and the "Allocated resources" percentages of
    allocatable (capacity when allocatable is empty).
  - Deployment: ``{"replicasets": [...]}``. Those the deployment's selector
    matches *and* that it controls (controller ownerReference UID) are used:
    the oldest whose pod template equals the deployment's, ignoring the
    ``pod-template-hash`` label, is the NewReplicaSet, all others are
    OldReplicaSets (oldest first).
  - ReplicaSet: ``{"pods": [...]}``. Pods the selector matches and the
    replica set controls are counted by phase for "Pods Status".
  - Service: ``{"endpointslices": [...]}``, the EndpointSlices labelled
    ``kubernetes.io/service-name=<service>``: each port's ``Endpoints`` line.
  - Namespace: nothing.

* ``events`` are the events about the object
  (:func:`minikube_py.ops.describe.events_for` reads them). They are sorted as kubectl sorts
  them (by ``series.lastObservedTime``, else ``lastTimestamp``, else
  ``eventTime``; ties keep their order) and printed as kubectl's table
  ``Type / Reason / Age / From / Message``, the age being ``2m`` or
  ``2m (x3 over 5m)`` for repeated events. No events print
  ``Events:  <none>``; ``show_events=False`` (``--show-events=false``) leaves
  the section out. Namespaces have no Events section, as in kubectl.
* ``now`` is the current time as Unix seconds; ages are computed from it with
  apimachinery's ``HumanDuration`` rules (``90s``, ``3m20s``, ``5h10m``,
  ``3d4h``, ``2y10d``; more than a second in the future is ``<invalid>``).
  Timestamps print as Go's RFC1123Z (``Mon, 02 Jan 2006 15:04:05 -0700``) in
  ``tz`` (default: the local timezone, as kubectl). A timestamp kubectl
  formats unconditionally but the object lacks prints as Go's zero time.
* Layout follows kubectl exactly: two spaces per level (``PrefixWriter``),
  ``<none>`` for empty labels/annotations/selectors/lists, columns aligned by a
  port of Go's ``text/tabwriter`` (padding 2, blocks of consecutive lines with
  a cell in the same column), including kubectl's trailing spaces (such as
  ``Status:       `` for an empty value and ``Ready   True `` in condition
  tables). Missing fields print as Go would print their zero value.

Also exported, for other commands that print like kubectl:
:func:`human_duration` (the age rule above), :func:`tabwrite` (the column
aligner), :class:`Out` (the prefix writer; ``Out().render()`` aligns what was
written), :class:`Ctx` (``now`` and ``tz``) and
:func:`describe_pod_template` (``DescribePodTemplate``, which
``rollout history --revision`` prints).

Known differences from kubectl (objects minikube-py has no kind for, or that
need the API server): nodes show no ``Lease`` section and no
``Node-Local ResourceSlices``; namespaces show no resource quota / limit range
sections (kubectl also omits them when the server does not serve those kinds);
pod resource totals ignore in-place-resize status resources; a per-pod
percentage against a zero allocatable prints ``0%`` (kubectl divides by zero);
a few rare volume sources (cloud disks, iSCSI, RBD, ...) print ``<unknown>``;
and templates are compared as JSON values (quantities by their stored
canonical text).

Layout
------
:mod:`.writer` (prefix writer, tabwriter, :class:`Ctx`), :mod:`.values` (Go
zero values, quantities, times, selectors), :mod:`.sections` (labels,
annotations, events), :mod:`.containers`, :mod:`.volumes`, :mod:`.pods` (pods
and pod templates), :mod:`.nodes`, :mod:`.workloads` (Deployments and
ReplicaSets), :mod:`.services` (Services with their EndpointSlices, Endpoints,
EndpointSlices) and :mod:`.generic` (Namespaces and every other kind). The
package is presentation inside :mod:`minikube_py.api`: the resource modules
reference its describers; it imports nothing above the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import tzinfo
from typing import Any

from .. import kinds
from ..errors import BadRequest, NotFound
from ..kinds import resolve
from ..printers import human_duration
from .generic import describe_generic
from .pods import describe_pod_template
from .writer import Ctx, Out, tabwrite

__all__ = ["Ctx", "Out", "describe", "describe_pod_template", "human_duration", "tabwrite"]


def describe(
    kind: str,
    obj: Mapping[str, Any],
    *,
    events: Sequence[Mapping[str, Any]] = (),
    related: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    now: float,
    tz: tzinfo | None = None,
    show_events: bool = True,
) -> str:
    """The ``kubectl describe`` text for ``obj`` (see the module docstring)."""
    try:
        kind_name = resolve(kind).kind
    except BadRequest:
        kind_name = kind
    ctx = Ctx(now=now, tz=tz)
    rel = related or {}
    shown = list(events) if show_events else None
    try:
        res = kinds.resource(kind_name)
    except NotFound:
        res = None
    if res is not None and res.describe is not None:
        return res.describe(obj, rel, shown, ctx)
    return describe_generic(obj, shown, ctx)
