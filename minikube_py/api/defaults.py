"""Defaulting as Kubernetes v1.32 does it, and quantity canonicalisation.

Contracts
---------
* :func:`apply_defaults` is pure: it returns a new dict and never mutates its
  input (unless asked to, ``in_place=True``, for a dict its caller owns). It
  applies the kind's resource ``defaults`` hook; the hooks here
  (``default_pod``, ...) apply, per kind, what ``SetDefaults_*`` in
  ``pkg/apis/core/v1/defaults.go`` / ``pkg/apis/apps/v1/defaults.go`` (plus the
  declarative ``+default`` markers) apply, and for Namespaces the create-time
  mutation the API server always makes: the ``kubernetes`` finalizer, as the
  namespace strategy's ``PrepareForCreate`` adds it. Pass ``create=False`` when
  defaulting an update so a finalizer the namespace controller removed is not
  put back.

  A Pod's ``spec.priority`` / ``spec.preemptionPolicy`` are *not* defaults:
  Kubernetes' ``SetDefaults`` leaves them alone and the ``Priority`` admission
  plugin resolves them from PriorityClass objects, which is the registry's job
  (:mod:`minikube_py.store.registry`). A PriorityClass gets
  ``preemptionPolicy: PreemptLowerPriority`` (``SetDefaults_PriorityClass``) and
  ``value: 0`` when absent (the field is not ``omitempty``: Kubernetes always
  serialises it).

  Fields Kubernetes defaults only when they are the zero value (``""``, ``0``)
  are treated the same here: an explicit ``timeoutSeconds: 0`` becomes ``1``.
* :func:`canonicalize` rewrites every quantity to the string Kubernetes would
  serve back (``"0.5"`` -> ``"500m"``, ``1`` -> ``"1"``). Resource lists
  (``requests``, ``limits``, ``overhead``, node ``capacity``/``allocatable``,
  ...) are first rounded up to milli-units, as ``SetDefaults_ResourceList``
  does. Call it only after validation passed: it raises
  :class:`~minikube_py.api.quantity.QuantityError` on an unparsable quantity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import kinds
from .errors import BadRequest, NotFound
from .jsoncopy import deep_copy
from .quantity import Quantity
from .schema import field_schema
from .schema_model import LIST, MAP, OBJECT, QUANTITY, Schema

__all__ = ["apply_defaults", "canonicalize", "image_pull_policy"]

Obj = dict[str, Any]

_DEFAULT_MODE = 0o644  # secret/configMap/downwardAPI/projected defaultMode (420)


# ------------------------------------------------------------------ helpers


def _dict(parent: Obj, key: str) -> Obj:
    """``parent[key]`` as a dict, created when absent (never replaces non-dicts)."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[Obj]:
    """The dict items of a list (anything else yields nothing)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _default(obj: Obj, key: str, value: Any) -> None:
    """Set ``obj[key]`` when it is missing or Go's zero value (``""``/``0``/``None``)."""
    current = obj.get(key)
    if current is None or current == "" or (current == 0 and not isinstance(current, bool)):
        obj[key] = value


def _default_missing(obj: Obj, key: str, value: Any) -> None:
    """Set ``obj[key]`` only when it is absent (pointer fields: ``nil`` -> value)."""
    if obj.get(key) is None:
        obj[key] = value


# ------------------------------------------------------------- image pull policy

# The distribution/reference grammar (what ParseNormalizedNamed accepts).
_ALNUM = "[a-z0-9]+"
_SEPARATOR = "(?:[._]|__|[-]+)"
_PATH_COMPONENT = f"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
_DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?"
_NAME = f"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(f"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?")


def _image_tag(image: str) -> str:
    """The tag ``parsers.ParseImageName`` finds: ``latest`` when neither tag
    nor digest is given, ``""`` for digest-only references and for anything
    that does not parse."""
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match.group(1)) > 255:
        return ""
    tag, digest = match.group(2), match.group(3)
    if tag:
        return tag
    return "" if digest else "latest"


def image_pull_policy(image: str) -> str:
    """``Always`` for ``:latest`` (or no tag at all), ``IfNotPresent`` otherwise
    (a digest counts as a tag), as ``SetDefaults_Container`` decides."""
    return "Always" if _image_tag(image) == "latest" else "IfNotPresent"


# --------------------------------------------------------------- containers


def _field_selector(ref: Any) -> None:
    if isinstance(ref, dict):
        _default(ref, "apiVersion", "v1")


def _http_get(handler: Any) -> None:
    if isinstance(handler, dict):
        http_get = handler.get("httpGet")
        if isinstance(http_get, dict):
            _default(http_get, "path", "/")
            _default(http_get, "scheme", "HTTP")


def _probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    _default(probe, "timeoutSeconds", 1)
    _default(probe, "periodSeconds", 10)
    _default(probe, "successThreshold", 1)
    _default(probe, "failureThreshold", 3)
    _http_get(probe)
    grpc = probe.get("grpc")
    if isinstance(grpc, dict):
        _default_missing(grpc, "service", "")


def _container(container: Obj) -> None:
    if not container.get("imagePullPolicy"):
        image = container.get("image")
        container["imagePullPolicy"] = image_pull_policy(image if isinstance(image, str) else "")
    _default(container, "terminationMessagePath", "/dev/termination-log")
    _default(container, "terminationMessagePolicy", "File")
    for port in _dicts(container.get("ports")):
        _default(port, "protocol", "TCP")
    for name in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(container.get(name))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        _http_get(lifecycle.get("postStart"))
        _http_get(lifecycle.get("preStop"))
    for env in _dicts(container.get("env")):
        value_from = env.get("valueFrom")
        if isinstance(value_from, dict):
            _field_selector(value_from.get("fieldRef"))


# ------------------------------------------------------------------ volumes

_NON_SOURCE_KEYS = frozenset({"name"})


def _volume(volume: Obj) -> None:
    if all(value is None for key, value in volume.items() if key not in _NON_SOURCE_KEYS):
        # SetDefaults_Volume: a volume with no source is an emptyDir.
        volume["emptyDir"] = {}
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict):
        _default_missing(host_path, "type", "")
    for source_name in ("secret", "configMap", "downwardAPI", "projected"):
        body = volume.get(source_name)
        if isinstance(body, dict):
            _default_missing(body, "defaultMode", _DEFAULT_MODE)
    downward = volume.get("downwardAPI")
    if isinstance(downward, dict):
        for item in _dicts(downward.get("items")):
            _field_selector(item.get("fieldRef"))
    projected = volume.get("projected")
    if isinstance(projected, dict):
        for source in _dicts(projected.get("sources")):
            token = source.get("serviceAccountToken")
            if isinstance(token, dict):
                _default_missing(token, "expirationSeconds", 3600)
            downward_source = source.get("downwardAPI")
            if isinstance(downward_source, dict):
                for item in _dicts(downward_source.get("items")):
                    _field_selector(item.get("fieldRef"))


# ------------------------------------------------------------------ pod spec


def _pod_spec(spec: Obj) -> None:
    """``SetDefaults_PodSpec`` plus everything nested in a PodSpec; applies to
    Pods and to pod templates alike."""
    _default(spec, "dnsPolicy", "ClusterFirst")
    _default(spec, "restartPolicy", "Always")
    _default_missing(spec, "securityContext", {})
    _default_missing(spec, "terminationGracePeriodSeconds", 30)
    _default(spec, "schedulerName", "default-scheduler")
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for container in _dicts(spec.get(key)):
            _container(container)
    for volume in _dicts(spec.get("volumes")):
        _volume(volume)


def _requests_from_limits(container: Obj) -> None:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return
    limits = resources.get("limits")
    if not isinstance(limits, dict):
        return
    requests = resources.get("requests")
    requests = dict(requests) if isinstance(requests, dict) else {}
    for name, value in limits.items():
        if name not in requests:
            requests[name] = deep_copy(value)
    if requests:
        resources["requests"] = requests


def default_pod(pod: Obj, create: bool) -> None:
    spec = _dict(pod, "spec")
    _pod_spec(spec)
    # SetDefaults_Pod: only for Pods, not for pod templates.
    for key in ("containers", "initContainers"):
        for container in _dicts(spec.get(key)):
            _requests_from_limits(container)
    _default_missing(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in _dicts(spec.get(key)):
                for port in _dicts(container.get("ports")):
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort", 0)


def _template(spec: Obj) -> None:
    template = _dict(spec, "template")
    _pod_spec(_dict(template, "spec"))


# ---------------------------------------------------------------- other kinds


def default_deployment(deployment: Obj, create: bool) -> None:
    spec = _dict(deployment, "spec")
    _default_missing(spec, "replicas", 1)
    strategy = _dict(spec, "strategy")
    _default(strategy, "type", "RollingUpdate")
    if strategy.get("type") == "RollingUpdate":
        rolling = _dict(strategy, "rollingUpdate")
        _default_missing(rolling, "maxUnavailable", "25%")
        _default_missing(rolling, "maxSurge", "25%")
    _default_missing(spec, "revisionHistoryLimit", 10)
    _default_missing(spec, "progressDeadlineSeconds", 600)
    _template(spec)


def default_replica_set(replica_set: Obj, create: bool) -> None:
    spec = _dict(replica_set, "spec")
    _default_missing(spec, "replicas", 1)
    _template(spec)


def default_namespace(namespace: Obj, create: bool) -> None:
    meta = _dict(namespace, "metadata")
    name = meta.get("name")
    if isinstance(name, str) and name:
        # SetDefaults_Namespace: the immutable name label.
        labels = _dict(meta, "labels")
        labels["kubernetes.io/metadata.name"] = name
    if create:
        spec = _dict(namespace, "spec")
        finalizers = spec.get("finalizers")
        finalizers = list(finalizers) if isinstance(finalizers, list) else []
        if "kubernetes" not in finalizers:
            finalizers.append("kubernetes")
        spec["finalizers"] = finalizers
    status = _dict(namespace, "status")
    _default(status, "phase", "Active")


def default_node(node: Obj, create: bool) -> None:
    status = node.get("status")
    if isinstance(status, dict):
        # SetDefaults_NodeStatus: allocatable defaults to capacity.
        capacity = status.get("capacity")
        if status.get("allocatable") is None and isinstance(capacity, dict):
            status["allocatable"] = deep_copy(capacity)


def default_event(event: Obj, create: bool) -> None:
    """Kubernetes defaults nothing on a core/v1 Event."""


_MAX_INT32 = 2**31 - 1


def default_job(job: Obj, create: bool) -> None:
    """``SetDefaults_Job`` (batch/v1, with 1.32's default feature gates).

    The generated selector and the ``controller-uid`` / ``job-name`` template
    labels need the uid, so the registry adds them (the job strategy's
    ``PrepareForCreate``), not this function.
    """
    spec = _dict(job, "spec")
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    _default_missing(spec, "parallelism", 1)
    if spec.get("backoffLimit") is None:
        # With a per-index limit the global one is effectively off.
        spec["backoffLimit"] = _MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    template = _dict(spec, "template")
    template_meta = template.get("metadata")
    labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
    meta = _dict(job, "metadata")
    if isinstance(labels, dict) and labels and not meta.get("labels"):
        meta["labels"] = dict(labels)
    _default_missing(spec, "completionMode", "NonIndexed")
    _default_missing(spec, "suspend", False)
    policy = spec.get("podFailurePolicy")
    if isinstance(policy, dict):
        for rule in _dicts(policy.get("rules")):
            for pattern in _dicts(rule.get("onPodConditions")):
                _default(pattern, "status", "True")
    if spec.get("podReplacementPolicy") is None:
        # JobPodReplacementPolicy is on by default since 1.29.
        spec["podReplacementPolicy"] = "Failed" if isinstance(policy, dict) \
            else "TerminatingOrFailed"
    _default_missing(spec, "manualSelector", False)
    _pod_spec(_dict(template, "spec"))


def default_priority_class(priority_class: Obj, create: bool) -> None:
    """``SetDefaults_PriorityClass``; ``value`` is always serialised (not omitempty)."""
    _default_missing(priority_class, "preemptionPolicy", "PreemptLowerPriority")
    _default_missing(priority_class, "value", 0)


def apply_defaults(obj: Mapping[str, Any], *, create: bool = True,
                   in_place: bool = False) -> Obj:
    """A defaulted deep copy of ``obj`` (see the module docstring).

    Objects of kinds without defaults (and ``List`` items of such kinds) come
    back as plain copies; a ``List`` has each item defaulted by its own kind.
    ``in_place=True`` defaults ``obj`` itself (a ``dict`` the caller owns
    entirely, such as a fresh :func:`~.schema.decode` result) and returns it:
    the registry's write path saves a deep copy per write that way.
    """
    if in_place:
        assert isinstance(obj, dict)
        out: Obj = obj
    else:
        out = deep_copy(dict(obj))
    kind = out.get("kind")
    if kind == "List":
        out["items"] = [
            apply_defaults(item, create=create) if isinstance(item, Mapping) else item
            for item in out.get("items") or []
        ]
        return out
    try:
        defaulter = kinds.resource(kind if isinstance(kind, str) else "").defaults
    except NotFound:
        return out
    defaulter(out, create)
    return out


# -------------------------------------------------------------- canonicalize


def _round_up_to_milli(q: Quantity) -> Quantity:
    """``Quantity.RoundUp(-3)``: away from zero, keeping the format."""
    rest = q.nanos % 10**6 if q.nanos >= 0 else -(-q.nanos % 10**6)
    if not rest:
        return q
    step = 10**6 if q.nanos > 0 else -(10**6)
    return Quantity(q.nanos - rest + step, q.format)


#: (text, in a resource list) -> its canonical form: the same few quantities
#: ("100m", "500Mi") come back in every write of every pod. Bounded: cleared
#: when full.
_CANONICAL: dict[tuple[str, bool], str] = {}
_CANONICAL_LIMIT = 4096


def _canonical(value: Any, *, resource_list: bool) -> Any:
    """The canonical form of quantity ``value``: ``value`` itself (the same
    object) when it is canonical already."""
    if isinstance(value, str):
        found = _CANONICAL.get((value, resource_list))
        if found is None:
            found = str(_quantity(value, resource_list))
            if len(_CANONICAL) >= _CANONICAL_LIMIT:
                _CANONICAL.clear()
            _CANONICAL[(value, resource_list)] = found
        return value if found == value else found
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return str(_quantity(value, resource_list))


def _quantity(value: str | int | float, resource_list: bool) -> Quantity:
    q = Quantity.parse(value)
    return _round_up_to_milli(q) if resource_list else q


#: Schema node -> whether a quantity can occur at or below it (nodes hash by identity).
_QUANTITY_BELOW: dict[Schema, bool] = {}


def _quantity_below(schema: Schema) -> bool:
    """Whether ``schema`` or anything under it is a quantity: the rest of an
    object is left alone (a Lease or a Node's conditions have none to rewrite)."""
    known = _QUANTITY_BELOW.get(schema)
    if known is not None:
        return known
    _QUANTITY_BELOW[schema] = True  # a recursive shape is walked, to be safe
    found = schema.type == QUANTITY or (
        schema.items is not None and _quantity_below(schema.items)) or (
        schema.fields is not None and any(_quantity_below(f) for f in schema.fields.values()))
    _QUANTITY_BELOW[schema] = found
    return found


def _walk(schema: Schema | None, value: Any, *, in_map: bool = False) -> Any:
    """``value`` with its quantities canonical, copied on write: a dict or list
    is rebuilt only when something under it changed, otherwise ``value``
    itself is returned (nothing given is ever changed in place). Quantities
    are mostly canonical already (every status write carries the stored
    spec), so most writes rebuild nothing."""
    if schema is None or not _quantity_below(schema):
        return value
    kind = schema.type
    if kind == QUANTITY:
        return _canonical(value, resource_list=in_map)
    if kind in (OBJECT, MAP) and isinstance(value, dict):
        fields = schema.fields if kind == OBJECT else None
        below = schema.items
        changed: dict[str, Any] | None = None
        for k, v in value.items():
            w = _walk(fields.get(k) if fields is not None else below, v, in_map=kind == MAP)
            if w is not v:
                if changed is None:
                    changed = dict(value)
                changed[k] = w
        return value if changed is None else changed
    if kind == LIST and isinstance(value, list):
        items: list[Any] | None = None
        for i, v in enumerate(value):
            w = _walk(schema.items, v)
            if w is not v:
                if items is None:
                    items = list(value)
                items[i] = w
        return value if items is None else items
    return value


def canonicalize(obj: Mapping[str, Any], *, owned: bool = False) -> Obj:
    """A copy of ``obj`` with every quantity in canonical form (see the module
    docstring). Kinds without a schema are returned as plain copies.

    ``owned=True``: the caller owns ``obj`` entirely and will not use it again,
    so it is not copied first; the result may share what the schema does not
    rewrite with it.
    """
    kind = obj.get("kind")
    if kind == "List":
        out = deep_copy(dict(obj))
        out["items"] = [
            canonicalize(item) if isinstance(item, Mapping) else item
            for item in out.get("items") or []
        ]
        return out
    try:
        schema = field_schema(kind) if isinstance(kind, str) else None
    except BadRequest:  # a kind without a schema: nothing to rewrite
        schema = None
    result = _walk(schema, dict(obj) if owned else deep_copy(dict(obj)))
    assert isinstance(result, dict)
    return result
