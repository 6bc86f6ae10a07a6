"""``minikube-py describe KIND NAME``: text laid out as ``kubectl describe`` prints it.

Contract
--------
:func:`describe` is a pure function. The CLI fetches the object, its events and
the related objects a describer needs, and passes them in; nothing here talks
to the API, reads the clock or (unless ``tz`` is left ``None``) the local
timezone::

    describe(kind, obj, *, events=(), related=None, now, tz=None, show_events=True) -> str

* ``kind`` is resolved like a command-line resource name (``Pod``, ``pods``,
  ``po``, ``deployments.apps``). ``Pod``, ``Node``, ``Namespace``,
  ``Deployment`` and ``ReplicaSet`` get kubectl's dedicated describers; any
  other kind (``Event`` included, as in kubectl) gets the generic describer:
  Name, Namespace, Labels, Annotations, then every other field as nested
  ``Key:  value`` lines with kubectl's "smart" labels (``apiVersion`` ->
  ``API Version``), then Events.
* ``related`` carries what kubectl would list on its own:

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
  - Namespace: nothing.

* ``events`` are the events about the object. They are sorted as kubectl sorts
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

Also exported: :func:`human_duration` (the age rule above) and
:func:`tabwrite` (the column aligner), for other commands that print like
kubectl.

Known differences from kubectl (objects minikube-py has no kind for, or that
need the API server): nodes show no ``Lease`` section and no
``Node-Local ResourceSlices``; namespaces show no resource quota / limit range
sections (kubectl also omits them when the server does not serve those kinds);
pod resource totals ignore in-place-resize status resources; a per-pod
percentage against a zero allocatable prints ``0%`` (kubectl divides by zero);
a few rare volume sources (cloud disks, iSCSI, RBD, ...) print ``<unknown>``;
and templates are compared as JSON values (quantities by their stored
canonical text).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from minikube_py.api.access import mapping as _m
from minikube_py.api.access import mappings as _maps
from minikube_py.api.errors import BadRequest
from minikube_py.api.kinds import resolve
from minikube_py.api.labels import Selector, SelectorError, selector_from_label_selector
from minikube_py.api.podrequests import combine_containers
from minikube_py.api.printers import human_duration
from minikube_py.api.qos import qos_class
from minikube_py.api.quantity import Quantity, QuantityError
from minikube_py.api.timefmt import parse_datetime

__all__ = ["describe", "human_duration", "tabwrite"]

Obj = Mapping[str, Any]

_SKIP_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})
_MAX_ANNOTATION_LEN = 140
_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_ROLE_LABEL = "kubernetes.io/role"
_HASH_LABEL = "pod-template-hash"
_GO_ZERO_TIME = "Mon, 01 Jan 0001 00:00:00 +0000"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun",
           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


# ====================================================================== API


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
    ctx = _Ctx(now=now, tz=tz)
    rel = related or {}
    shown = list(events) if show_events else None
    if kind_name == "Pod":
        return _describe_pod(obj, shown, ctx)
    if kind_name == "Node":
        return _describe_node(obj, list(rel.get("pods", ())), shown, ctx)
    if kind_name == "Namespace":
        return _describe_namespace(obj, ctx)
    if kind_name == "Deployment":
        return _describe_deployment(obj, list(rel.get("replicasets", ())), shown, ctx)
    if kind_name == "ReplicaSet":
        return _describe_replica_set(obj, list(rel.get("pods", ())), shown, ctx)
    return _describe_generic(obj, shown, ctx)


def _escape(text: str) -> str:
    # printers.WriteEscaped: keep terminal control sequences inert.
    return text.replace("\x1b", "^[").replace("\r", "\\r")


class _Out:
    """kubectl's ``PrefixWriter``: two spaces per level, into a shared buffer.

    :meth:`nested` is ``NewNestedPrefixWriter``: every write, continuation
    writes included, gets the extra levels (kubectl's quirks come along).
    """

    def __init__(self, parts: list[str] | None = None, indent: int = 0) -> None:
        self.parts: list[str] = parts if parts is not None else []
        self.indent = indent

    def write(self, level: int, text: str) -> None:
        self.parts.append(_escape("  " * (level + self.indent) + text))

    def line(self, text: str = "") -> None:
        """``WriteLine``: the text and a newline, indented only when nested."""
        self.parts.append(_escape("  " * self.indent + text + "\n"))

    def nested(self, indent: int) -> _Out:
        return _Out(self.parts, self.indent + indent)

    def render(self) -> str:
        return tabwrite("".join(self.parts))


def tabwrite(text: str, padding: int = 2) -> str:
    """Go's ``text/tabwriter`` as kubectl configures it (minwidth 0, padding 2,
    pad with spaces, no flags).

    Cells are tab-terminated; the text after a line's last tab is not part of
    any column. A column is a run of consecutive lines that all have a cell at
    that index; its width is its widest cell plus ``padding``.
    """
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    _tab_format(lines, [], 0, len(lines), padding, out)
    return "\n".join(out)


def _tab_format(lines: list[list[str]], widths: list[int], line0: int, line1: int,
                padding: int, out: list[str]) -> None:
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        # A cell exists in this column: print what came before, then the block.
        _tab_write_lines(lines, widths, line0, this, out)
        line0 = this
        width = 0
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        widths.append(width)
        _tab_format(lines, widths, line0, this, padding, out)
        widths.pop()
        line0 = this
    _tab_write_lines(lines, widths, line0, line1, out)


def _tab_write_lines(lines: list[list[str]], widths: list[int], line0: int, line1: int,
                     out: list[str]) -> None:
    for i in range(line0, line1):
        pieces: list[str] = []
        for j, cell in enumerate(lines[i]):
            pieces.append(cell)
            if j < len(widths):
                pieces.append(" " * (widths[j] - len(cell)))
        out.append("".join(pieces))


# ============================================================ value helpers


@dataclass(frozen=True)
class _Ctx:
    now: float
    tz: tzinfo | None


def _l(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _s(value: Any) -> str:
    """A string field; Go's zero value ``""`` when missing."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _i(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def _gobool(value: Any) -> str:
    """Go's ``%v`` of a bool field (``false`` when missing)."""
    return "true" if value is True else "false"


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): _s(v) for k, v in _m(value).items()}


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _int_or_string(value: Any) -> str:
    """``intstr.IntOrString.String()`` of a pointer field (``<nil>`` when unset)."""
    if value is None:
        return "<nil>"
    return _s(value)


def _quantity(value: Any) -> Quantity | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return Quantity.parse(value)
    except QuantityError:
        return None


def _qstr(value: Any) -> str:
    q = _quantity(value)
    return str(q) if q is not None else _s(value)


def _resource_list(value: Any) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for name, raw in _m(value).items():
        q = _quantity(raw)
        if q is not None:
            out[str(name)] = q
    return out


def _parse_time(value: Any) -> datetime | None:
    return parse_datetime(value, naive_utc=True)


def _rfc1123z(value: Any, ctx: _Ctx) -> str:
    """Go's ``Time.Format(time.RFC1123Z)``; the zero time when unset."""
    dt = _parse_time(value)
    if dt is None:
        return _GO_ZERO_TIME
    local = dt.astimezone(ctx.tz) if ctx.tz is not None else dt.astimezone()
    offset = local.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hh, mm = divmod(abs(minutes), 60)
    return (f"{_DAYS[local.weekday()]}, {local.day:02d} {_MONTHS[local.month - 1]} "
            f"{local.year:04d} {local.hour:02d}:{local.minute:02d}:{local.second:02d} "
            f"{sign}{hh:02d}{mm:02d}")


def _since(value: Any, ctx: _Ctx) -> str:
    """``translateTimestampSince``: the age, or ``<unknown>`` when unset."""
    dt = _parse_time(value)
    if dt is None:
        return "<unknown>"
    return human_duration(ctx.now - dt.timestamp())


def _selector(ls: Any) -> Selector | None:
    try:
        return selector_from_label_selector(ls if isinstance(ls, Mapping) else None)
    except SelectorError:
        return None


def _format_label_selector(ls: Any) -> str:
    """``metav1.FormatLabelSelector``."""
    sel = _selector(ls)
    if sel is None:
        return "<error>"
    return str(sel) or "<none>"


def _controller_of(obj: Obj) -> Obj | None:
    for ref in _maps(_m(obj.get("metadata")).get("ownerReferences")):
        if ref.get("controller") is True:
            return ref
    return None


def _controlled_by(obj: Obj, owner: Obj) -> bool:
    """``metav1.IsControlledBy``: the controller reference names the owner's UID."""
    ref = _controller_of(obj)
    return ref is not None and _s(ref.get("uid")) == _s(_m(owner.get("metadata")).get("uid"))


def _byte_len(text: str) -> int:
    return len(text.encode())


def _shorten(text: str, max_len: int) -> str:
    raw = text.encode()
    if len(raw) > max_len:
        return raw[:max_len].decode(errors="ignore") + "..."
    return text


# ================================================= shared describer pieces


def _print_labels(w: _Out, title: str, labels: Mapping[str, str], *,
                  initial_indent: str = "", inner_indent: str = "\t") -> None:
    """``printLabelsMultilineWithIndent``."""
    w.write(0, f"{initial_indent}{title}:{inner_indent}")
    if not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            w.write(0, initial_indent)
            w.write(0, inner_indent)
        w.write(0, f"{key}={labels[key]}\n")


def _print_annotations(w: _Out, title: str, annotations: Mapping[str, str]) -> None:
    """``printAnnotationsMultiline``: long or multi-line values on their own lines."""
    w.write(0, f"{title}:\t")
    keys = sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
    if not keys:
        w.line("<none>")
        return
    indent = "\t"
    for i, key in enumerate(keys):
        if i:
            w.write(0, indent)
        value = annotations[key].removesuffix("\n")
        if _byte_len(value) + _byte_len(key) + 2 > _MAX_ANNOTATION_LEN or "\n" in value:
            w.write(0, f"{key}:\n")
            for part in value.split("\n"):
                w.write(0, f"{indent}  {_shorten(part, _MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(0, f"{key}: {value}\n")


def _print_tolerations(w: _Out, title: str, tolerations: list[Obj]) -> None:
    w.write(0, f"{title}:\t")
    if not tolerations:
        w.line("<none>")
        return
    for i, tol in enumerate(sorted(tolerations, key=lambda t: _s(t.get("key")))):
        if i:
            w.write(0, "")
            w.write(0, "\t")
        key, value, effect = _s(tol.get("key")), _s(tol.get("value")), _s(tol.get("effect"))
        text = key
        if value:
            text += f"={value}"
        if effect:
            text += f":{effect}"
        if tol.get("operator") == "Exists" and not value:
            text += " op=Exists" if key or effect else "op=Exists"
        seconds = tol.get("tolerationSeconds")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            text += f" for {seconds}s"
        w.write(0, text + "\n")


def _taint_string(taint: Obj) -> str:
    """``Taint.ToString``."""
    key, value, effect = _s(taint.get("key")), _s(taint.get("value")), _s(taint.get("effect"))
    if not effect:
        return f"{key}={value}:" if value else key
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _print_taints(w: _Out, title: str, taints: list[Obj]) -> None:
    w.write(0, f"{title}:\t")
    if not taints:
        w.line("<none>")
        return
    ordered = sorted(taints, key=lambda t: _s(t.get("effect")) + "," + _s(t.get("key")))
    for i, taint in enumerate(ordered):
        if i:
            w.write(0, "")
            w.write(0, "\t")
        w.write(0, _taint_string(taint) + "\n")


def _describe_events(events: Sequence[Obj] | None, w: _Out, ctx: _Ctx) -> None:
    """``DescribeEvents``."""
    if events is None:
        return
    if not events:
        w.write(0, "Events:\t<none>\n")
        return
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for event in sorted(events, key=_event_sort_key):
        event_time = event.get("eventTime")
        first = _since(event_time, ctx) if _parse_time(event_time) else _since(
            event.get("firstTimestamp"), ctx)
        series = event.get("series")
        count = _i(event.get("count"))
        if isinstance(series, Mapping):
            interval = (f"{_since(series.get('lastObservedTime'), ctx)} "
                        f"(x{_i(series.get('count'))} over {first})")
        elif count > 1:
            interval = f"{_since(event.get('lastTimestamp'), ctx)} (x{count} over {first})"
        else:
            interval = first
        source = _s(_m(event.get("source")).get("component")) or _s(
            event.get("reportingComponent"))
        message = _s(event.get("message")).strip()
        field_path = _s(_m(event.get("involvedObject")).get("fieldPath"))
        if field_path:
            message = f"{field_path}: {message}"
        w.write(1, f"{_s(event.get('type'))}\t{_s(event.get('reason'))}\t{interval}\t"
                   f"{source}\t{message}\n")


def _event_sort_key(event: Obj) -> float:
    """kubectl's ``SortableEvents``: series last-observed time, else
    ``lastTimestamp``, else ``eventTime``; unset sorts first."""
    series = event.get("series")
    if isinstance(series, Mapping):
        raw = series.get("lastObservedTime")
    elif _parse_time(event.get("lastTimestamp")) is not None:
        raw = event.get("lastTimestamp")
    else:
        raw = event.get("eventTime")
    dt = _parse_time(raw)
    return dt.timestamp() if dt is not None else -math.inf


# --------------------------------------------------------------- containers


def _describe_resources(resources: Any, w: _Out, level: int) -> None:
    res = _m(resources)
    limits, requests = _m(res.get("limits")), _m(res.get("requests"))
    if limits:
        w.write(level, "Limits:\n")
    for name in sorted(limits):
        w.write(level + 1, f"{name}:\t{_qstr(limits[name])}\n")
    if requests:
        w.write(level, "Requests:\n")
    for name in sorted(requests):
        w.write(level + 1, f"{name}:\t{_qstr(requests[name])}\n")


def _describe_containers(label: str, containers: list[Obj], statuses: list[Obj] | None,
                         pod: Obj | None, w: _Out, space: str, ctx: _Ctx) -> None:
    by_name = {_s(st.get("name")): st for st in statuses or []}
    w.write(0, f"{space}{label}:{'' if containers else ' <none>'}\n")
    for container in containers:
        status = by_name.get(_s(container.get("name")))
        _describe_container_basic(container, status, space, w)
        _describe_command(container, w)
        if status is not None:
            _describe_container_state(status, w, ctx)
        _describe_resources(container.get("resources"), w, 2)
        _describe_probes(container, w)
        if _l(container.get("envFrom")):
            _describe_env_from(container, w)
        _describe_env(container, pod, w)
        _describe_mounts(container, w)


def _ports(ports: list[Obj], field: str) -> str:
    rendered = []
    for port in ports:
        text = f"{_i(port.get(field))}/{_s(port.get('protocol'))}"
        if port.get("name"):
            text += f" ({_s(port.get('name'))})"
        rendered.append(text)
    return ", ".join(rendered)


def _describe_container_basic(container: Obj, status: Obj | None, space: str,
                              w: _Out) -> None:
    name_indent = " " if space else ""
    w.write(1, f"{name_indent}{_s(container.get('name'))}:\n")
    if status is not None:
        w.write(2, f"Container ID:\t{_s(status.get('containerID'))}\n")
    w.write(2, f"Image:\t{_s(container.get('image'))}\n")
    if status is not None:
        w.write(2, f"Image ID:\t{_s(status.get('imageID'))}\n")
    ports = _maps(container.get("ports"))
    port_string = _ports(ports, "containerPort")
    if "," in port_string:
        w.write(2, f"Ports:\t{port_string}\n")
    else:
        w.write(2, f"Port:\t{port_string or '<none>'}\n")
    host_string = _ports(ports, "hostPort")
    if "," in host_string:
        w.write(2, f"Host Ports:\t{host_string}\n")
    else:
        w.write(2, f"Host Port:\t{host_string or '<none>'}\n")
    seccomp = _m(container.get("securityContext")).get("seccompProfile")
    if isinstance(seccomp, Mapping):
        w.write(2, f"SeccompProfile:\t{_s(seccomp.get('type'))}\n")
        if seccomp.get("type") == "Localhost":
            w.write(3, f"LocalhostProfile:\t{_s(seccomp.get('localhostProfile'))}\n")


def _describe_command(container: Obj, w: _Out) -> None:
    for title, key in (("Command", "command"), ("Args", "args")):
        items = _l(container.get(key))
        if items:
            w.write(2, f"{title}:\n")
            for item in items:
                for part in _s(item).split("\n"):
                    w.write(3, f"{part}\n")


def _describe_state(title: str, state: Obj, w: _Out, ctx: _Ctx) -> None:
    running, waiting = state.get("running"), state.get("waiting")
    terminated = state.get("terminated")
    if isinstance(running, Mapping):
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{_rfc1123z(running.get('startedAt'), ctx)}\n")
    elif isinstance(waiting, Mapping):
        w.write(2, f"{title}:\tWaiting\n")
        if waiting.get("reason"):
            w.write(3, f"Reason:\t{_s(waiting.get('reason'))}\n")
    elif isinstance(terminated, Mapping):
        w.write(2, f"{title}:\tTerminated\n")
        if terminated.get("reason"):
            w.write(3, f"Reason:\t{_s(terminated.get('reason'))}\n")
        if terminated.get("message"):
            w.write(3, f"Message:\t{_s(terminated.get('message'))}\n")
        w.write(3, f"Exit Code:\t{_i(terminated.get('exitCode'))}\n")
        if _i(terminated.get("signal")) > 0:
            w.write(3, f"Signal:\t{_i(terminated.get('signal'))}\n")
        w.write(3, f"Started:\t{_rfc1123z(terminated.get('startedAt'), ctx)}\n")
        w.write(3, f"Finished:\t{_rfc1123z(terminated.get('finishedAt'), ctx)}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")


def _describe_container_state(status: Obj, w: _Out, ctx: _Ctx) -> None:
    _describe_state("State", _m(status.get("state")), w, ctx)
    last = _m(status.get("lastState"))
    if isinstance(last.get("terminated"), Mapping):
        _describe_state("Last State", last, w, ctx)
    w.write(2, f"Ready:\t{'True' if status.get('ready') is True else 'False'}\n")
    w.write(2, f"Restart Count:\t{_i(status.get('restartCount'))}\n")


def _describe_probe(probe: Obj) -> str:
    """``DescribeProbe``."""
    attrs = (f"delay={_i(probe.get('initialDelaySeconds'))}s "
             f"timeout={_i(probe.get('timeoutSeconds'))}s "
             f"period={_i(probe.get('periodSeconds'))}s "
             f"#success={_i(probe.get('successThreshold'))} "
             f"#failure={_i(probe.get('failureThreshold'))}")
    exec_action, http_get = probe.get("exec"), probe.get("httpGet")
    tcp, grpc = probe.get("tcpSocket"), probe.get("grpc")
    if isinstance(exec_action, Mapping):
        command = " ".join(_s(c) for c in _l(exec_action.get("command")))
        return f"exec [{command}] {attrs}"
    if isinstance(http_get, Mapping):
        return f"http-get {_probe_url(http_get)} {attrs}"
    if isinstance(tcp, Mapping):
        return f"tcp-socket {_s(tcp.get('host'))}:{_s(tcp.get('port'))} {attrs}"
    if isinstance(grpc, Mapping):
        return f"grpc <pod>:{_i(grpc.get('port'))} {_s(grpc.get('service'))} {attrs}"
    return f"unknown {attrs}"


def _probe_url(http_get: Obj) -> str:
    """The ``url.URL`` kubectl builds for an HTTP probe, as Go prints it."""
    scheme = _s(http_get.get("scheme")).lower()
    host, port = _s(http_get.get("host")), _s(http_get.get("port"))
    if port:
        host = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    path = quote(_s(http_get.get("path")), safe="/:@!$&'()*+,;=-._~")
    text = f"{scheme}:" if scheme else ""
    if (scheme or host) and (host or path):
        text += "//" + host
    if path and not path.startswith("/") and host:
        text += "/"
    return text + path


def _describe_probes(container: Obj, w: _Out) -> None:
    for title, key in (("Liveness", "livenessProbe"), ("Readiness", "readinessProbe"),
                       ("Startup", "startupProbe")):
        probe = container.get(key)
        if isinstance(probe, Mapping):
            w.write(2, f"{title}:\t{_describe_probe(probe)}\n")


def _describe_env_from(container: Obj, w: _Out) -> None:
    w.write(2, "Environment Variables from:\n")
    for source in _maps(container.get("envFrom")):
        origin, name, optional = "", "", False
        config_map, secret = source.get("configMapRef"), source.get("secretRef")
        if isinstance(config_map, Mapping):
            origin, name = "ConfigMap", _s(config_map.get("name"))
            optional = config_map.get("optional") is True
        elif isinstance(secret, Mapping):
            origin, name = "Secret", _s(secret.get("name"))
            optional = secret.get("optional") is True
        prefix = _s(source.get("prefix"))
        if prefix:
            w.write(3, f"{name}\t{origin} with prefix '{prefix}'\tOptional: {_gobool(optional)}\n")
        else:
            w.write(3, f"{name}\t{origin}\tOptional: {_gobool(optional)}\n")


def _field_ref_value(pod: Obj | None, field_path: str) -> str:
    """``EnvValueRetriever``: kubectl's scheme converts only the field labels
    every kind supports, so only the pod's name and namespace resolve."""
    if pod is None:
        return ""
    meta = _m(pod.get("metadata"))
    if field_path == "metadata.name":
        return _s(meta.get("name"))
    if field_path == "metadata.namespace":
        return _s(meta.get("namespace"))
    return ""


def _resource_field_value(ref: Obj, container: Obj) -> str:
    """``ExtractContainerResourceValue`` for the container being described."""
    divisor = _quantity(ref.get("divisor"))
    if divisor is None or divisor.is_zero():
        divisor = Quantity.from_int(1)
    resource = _s(ref.get("resource"))
    res = _m(container.get("resources"))
    section, _, name = resource.partition(".")
    if section not in ("limits", "requests"):
        return ""
    if name not in ("cpu", "memory", "ephemeral-storage") and not name.startswith("hugepages-"):
        return ""
    q = _quantity(_m(res.get(section)).get(name)) or Quantity(0)
    if name == "cpu":
        if divisor.milli_value() == 0:
            return ""
        return str(math.ceil(q.milli_value() / divisor.milli_value()))
    if divisor.value() == 0:
        return ""
    return str(math.ceil(q.value() / divisor.value()))


def _describe_env(container: Obj, pod: Obj | None, w: _Out) -> None:
    env = _maps(container.get("env"))
    none = "" if env else "\t<none>"
    w.write(2, f"Environment:{none}\n")
    for var in env:
        name = _s(var.get("name"))
        value_from = var.get("valueFrom")
        if not isinstance(value_from, Mapping):
            for i, part in enumerate(_s(var.get("value")).split("\n")):
                w.write(3, f"{name}:\t{part}\n" if i == 0 else f"\t{part}\n")
            continue
        field_ref, resource_ref = value_from.get("fieldRef"), value_from.get("resourceFieldRef")
        secret_ref, cm_ref = value_from.get("secretKeyRef"), value_from.get("configMapKeyRef")
        if isinstance(field_ref, Mapping):
            value = _field_ref_value(pod, _s(field_ref.get("fieldPath")))
            w.write(3, f"{name}:\t{value} ({_s(field_ref.get('apiVersion'))}:"
                       f"{_s(field_ref.get('fieldPath'))})\n")
        elif isinstance(resource_ref, Mapping):
            value = _resource_field_value(resource_ref, container)
            resource = _s(resource_ref.get("resource"))
            if value == "0" and resource in ("limits.cpu", "limits.memory"):
                value = "node allocatable"
            w.write(3, f"{name}:\t{value} ({resource})\n")
        elif isinstance(secret_ref, Mapping):
            w.write(3, f"{name}:\t<set to the key '{_s(secret_ref.get('key'))}' in secret "
                       f"'{_s(secret_ref.get('name'))}'>\t"
                       f"Optional: {_gobool(secret_ref.get('optional'))}\n")
        elif isinstance(cm_ref, Mapping):
            w.write(3, f"{name}:\t<set to the key '{_s(cm_ref.get('key'))}' of config map "
                       f"'{_s(cm_ref.get('name'))}'>\t"
                       f"Optional: {_gobool(cm_ref.get('optional'))}\n")


def _describe_mounts(container: Obj, w: _Out) -> None:
    mounts = _maps(container.get("volumeMounts"))
    none = "" if mounts else "\t<none>"
    w.write(2, f"Mounts:{none}\n")
    for mount in sorted(mounts, key=lambda m: _s(m.get("mountPath"))):
        flags = ["ro" if mount.get("readOnly") is True else "rw"]
        if mount.get("subPath"):
            flags.append(f"path={_go_quote(_s(mount.get('subPath')))}")
        w.write(3, f"{_s(mount.get('mountPath'))} from {_s(mount.get('name'))} "
                   f"({','.join(flags)})\n")
    devices = _maps(container.get("volumeDevices"))
    if devices:
        w.write(2, f"Devices:{none}\n")
        for device in sorted(devices, key=lambda d: _s(d.get("devicePath"))):
            w.write(3, f"{_s(device.get('devicePath'))} from {_s(device.get('name'))}\n")


# ------------------------------------------------------------------ volumes


def _describe_volumes(volumes: list[Obj], w: _Out, space: str) -> None:
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for volume in volumes:
        name_indent = " " if space else ""
        w.write(1, f"{name_indent}{_s(volume.get('name'))}:\n")
        _describe_volume_source(volume, w)


def _describe_volume_source(volume: Obj, w: _Out) -> None:
    src = {k: v for k, v in volume.items() if isinstance(v, Mapping)}
    if "hostPath" in src:
        hp = src["hostPath"]
        host_path_type = _s(hp["type"]) if hp.get("type") is not None else "<none>"
        w.write(2, "Type:\tHostPath (bare host directory volume)\n"
                   f"    Path:\t{_s(hp.get('path'))}\n"
                   f"    HostPathType:\t{host_path_type}\n")
    elif "emptyDir" in src:
        ed = src["emptyDir"]
        size = _quantity(ed.get("sizeLimit"))
        size_text = str(size) if size is not None and size.sign() > 0 else "<unset>"
        w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
                   f"    Medium:\t{_s(ed.get('medium'))}\n"
                   f"    SizeLimit:\t{size_text}\n")
    elif "gitRepo" in src:
        git = src["gitRepo"]
        w.write(2, "Type:\tGitRepo (a volume that is pulled from git when the pod is created)\n"
                   f"    Repository:\t{_s(git.get('repository'))}\n"
                   f"    Revision:\t{_s(git.get('revision'))}\n")
    elif "secret" in src:
        secret = src["secret"]
        w.write(2, "Type:\tSecret (a volume populated by a Secret)\n"
                   f"    SecretName:\t{_s(secret.get('secretName'))}\n"
                   f"    Optional:\t{_gobool(secret.get('optional'))}\n")
    elif "configMap" in src:
        cm = src["configMap"]
        w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"
                   f"    Name:\t{_s(cm.get('name'))}\n"
                   f"    Optional:\t{_gobool(cm.get('optional'))}\n")
    elif "nfs" in src:
        nfs = src["nfs"]
        w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n"
                   f"    Server:\t{_s(nfs.get('server'))}\n"
                   f"    Path:\t{_s(nfs.get('path'))}\n"
                   f"    ReadOnly:\t{_gobool(nfs.get('readOnly'))}\n")
    elif "persistentVolumeClaim" in src:
        pvc = src["persistentVolumeClaim"]
        w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in "
                   "the same namespace)\n"
                   f"    ClaimName:\t{_s(pvc.get('claimName'))}\n"
                   f"    ReadOnly:\t{_gobool(pvc.get('readOnly'))}\n")
    elif "ephemeral" in src:
        w.write(2, "Type:\tEphemeralVolume (an inline specification for a volume that gets "
                   "created and deleted with the pod)\n")
        template = src["ephemeral"].get("volumeClaimTemplate")
        if isinstance(template, Mapping):
            _print_claim_template(w.nested(2), template)
    elif "downwardAPI" in src:
        w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n"
                   "    Items:\n")
        for item in _maps(src["downwardAPI"].get("items")):
            field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
            if isinstance(field_ref, Mapping):
                w.write(3, f"{_s(field_ref.get('fieldPath'))} -> {_s(item.get('path'))}\n")
            if isinstance(resource_ref, Mapping):
                w.write(3, f"{_s(resource_ref.get('resource'))} -> {_s(item.get('path'))}\n")
    elif "projected" in src:
        _describe_projected(src["projected"], w)
    elif "csi" in src:
        csi = src["csi"]
        w.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"
                   f"    Driver:\t{_s(csi.get('driver'))}\n"
                   f"    FSType:\t{_s(csi.get('fsType'))}\n"
                   f"    ReadOnly:\t{_gobool(csi.get('readOnly'))}\n")
        _print_csi_attributes(w, _str_map(csi.get("volumeAttributes")))
    elif "image" in src:
        image = src["image"]
        w.write(2, "Type:\tImage (a container image or OCI artifact)\n"
                   f"    Reference:\t{_s(image.get('reference'))}\n"
                   f"    PullPolicy:\t{_s(image.get('pullPolicy'))}\n")
    else:
        w.write(1, "<unknown>\n")


def _describe_projected(projected: Obj, w: _Out) -> None:
    w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
    for source in _maps(projected.get("sources")):
        secret, downward = source.get("secret"), source.get("downwardAPI")
        config_map, token = source.get("configMap"), source.get("serviceAccountToken")
        if isinstance(secret, Mapping):
            w.write(2, f"SecretName:\t{_s(secret.get('name'))}\n"
                       f"    Optional:\t{_gobool(secret.get('optional'))}\n")
        elif isinstance(downward, Mapping):
            w.write(2, "DownwardAPI:\ttrue\n")
        elif isinstance(config_map, Mapping):
            w.write(2, f"ConfigMapName:\t{_s(config_map.get('name'))}\n"
                       f"    Optional:\t{_gobool(config_map.get('optional'))}\n")
        elif isinstance(token, Mapping):
            w.write(2, f"TokenExpirationSeconds:\t{_i(token.get('expirationSeconds'))}\n")


def _print_csi_attributes(w: _Out, attributes: Mapping[str, str]) -> None:
    """``printCSIPersistentVolumeAttributesMultilineIndent`` (its continuation
    lines really are indented twice)."""
    w.write(2, "VolumeAttributes:\t")
    if not attributes:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(attributes)):
        if i:
            w.write(2, "")
            w.write(2, "\t")
        line = f"{key}={attributes[key]}"
        w.write(2, f"{_shorten(line, _MAX_ANNOTATION_LEN)}\n")


def _print_claim_template(w: _Out, template: Obj) -> None:
    """``printPersistentVolumeClaim`` for an ephemeral volume's claim template."""
    meta, spec = _m(template.get("metadata")), _m(template.get("spec"))
    annotations = _str_map(meta.get("annotations"))
    storage_class = _s(spec.get("storageClassName")) if spec.get(
        "storageClassName") is not None else annotations.get(
        "volume.beta.kubernetes.io/storage-class", "")
    w.write(0, f"StorageClass:\t{storage_class}\n")
    volume_name = _s(spec.get("volumeName"))
    w.write(0, f"Volume:\t{volume_name}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", annotations)
    # A template has no status: capacity is the zero quantity once bound, and
    # the access modes shown are the (empty) status ones.
    w.write(0, f"Capacity:\t{'0' if volume_name else ''}\n")
    w.write(0, "Access Modes:\t\n")
    if spec.get("volumeMode") is not None:
        w.write(0, f"VolumeMode:\t{_s(spec.get('volumeMode'))}\n")
    data_source = spec.get("dataSource")
    if isinstance(data_source, Mapping):
        w.write(0, "DataSource:\n")
        if data_source.get("apiGroup") is not None:
            w.write(1, f"APIGroup:\t{_s(data_source.get('apiGroup'))}\n")
        w.write(1, f"Kind:\t{_s(data_source.get('kind'))}\n")
        w.write(1, f"Name:\t{_s(data_source.get('name'))}\n")


def _describe_topology_spread(constraints: list[Obj], w: _Out, space: str) -> None:
    if not constraints:
        return
    w.write(0, f"{space}Topology Spread Constraints:\t")
    for i, tsc in enumerate(sorted(constraints, key=lambda c: _s(c.get("topologyKey")))):
        if i:
            w.write(0, space)
            w.write(0, "\t")
        text = (f"{_s(tsc.get('topologyKey'))}:{_s(tsc.get('whenUnsatisfiable'))} "
                f"when max skew {_i(tsc.get('maxSkew'))} is exceeded")
        if isinstance(tsc.get("labelSelector"), Mapping):
            text += f" for selector {_format_label_selector(tsc.get('labelSelector'))}"
        w.write(0, text + "\n")


def _describe_pod_template(template: Obj, w: _Out, ctx: _Ctx) -> None:
    """``DescribePodTemplate``."""
    w.write(0, "Pod Template:\n")
    meta, spec = _m(template.get("metadata")), _m(template.get("spec"))
    _print_labels(w, "  Labels", _str_map(meta.get("labels")))
    annotations = _str_map(meta.get("annotations"))
    if annotations:
        _print_annotations(w, "  Annotations", annotations)
    if spec.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{_s(spec.get('serviceAccountName'))}\n")
    init = _maps(spec.get("initContainers"))
    if init:
        _describe_containers("Init Containers", init, None, None, w, "  ", ctx)
    _describe_containers("Containers", _maps(spec.get("containers")), None, None, w, "  ", ctx)
    _describe_volumes(_maps(spec.get("volumes")), w, "  ")
    _describe_topology_spread(_maps(spec.get("topologySpreadConstraints")), w, "  ")
    if spec.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{_s(spec.get('priorityClassName'))}\n")
    _print_labels(w, "  Node-Selectors", _str_map(spec.get("nodeSelector")))
    _print_tolerations(w, "  Tolerations", _maps(spec.get("tolerations")))


def _describe_conditions_short(conditions: list[Obj], w: _Out) -> None:
    """The Type / Status / Reason table of Deployments and ReplicaSets."""
    if not conditions:
        return
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
    w.write(1, "----\t------\t------\n")
    for c in conditions:
        w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))}\t{_s(c.get('reason'))}\n")


# ====================================================================== Pod


def _describe_pod(pod: Obj, events: list[Obj] | None, ctx: _Ctx) -> str:
    meta, spec, status = _m(pod.get("metadata")), _m(pod.get("spec")), _m(pod.get("status"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    if isinstance(spec.get("priority"), int) and not isinstance(spec.get("priority"), bool):
        w.write(0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{_s(spec.get('priorityClassName'))}\n")
    if spec.get("runtimeClassName"):
        w.write(0, f"Runtime Class Name:\t{_s(spec.get('runtimeClassName'))}\n")
    if spec.get("serviceAccountName"):
        w.write(0, f"Service Account:\t{_s(spec.get('serviceAccountName'))}\n")
    node_name = _s(spec.get("nodeName"))
    if node_name:
        w.write(0, f"Node:\t{node_name}/{_s(status.get('hostIP'))}\n")
    else:
        w.write(0, "Node:\t<none>\n")
    if _parse_time(status.get("startTime")) is not None:
        w.write(0, f"Start Time:\t{_rfc1123z(status.get('startTime'), ctx)}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    phase = _s(status.get("phase"))
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        w.write(0, f"Status:\tTerminating (lasts {_since(meta.get('deletionTimestamp'), ctx)})\n")
        w.write(0, f"Termination Grace Period:\t{_i(meta.get('deletionGracePeriodSeconds'))}s\n")
    else:
        w.write(0, f"Status:\t{phase}\n")
    if status.get("reason"):
        w.write(0, f"Reason:\t{_s(status.get('reason'))}\n")
    if status.get("message"):
        w.write(0, f"Message:\t{_s(status.get('message'))}\n")
    seccomp = _m(spec.get("securityContext")).get("seccompProfile")
    if isinstance(seccomp, Mapping):
        w.write(0, f"SeccompProfile:\t{_s(seccomp.get('type'))}\n")
        if seccomp.get("type") == "Localhost":
            w.write(0, f"LocalhostProfile:\t{_s(seccomp.get('localhostProfile'))}\n")
    w.write(0, f"IP:\t{_s(status.get('podIP'))}\n")
    pod_ips = _maps(status.get("podIPs"))
    if pod_ips:
        w.write(0, "IPs:\n")
        for ip in pod_ips:
            w.write(1, f"IP:\t{_s(ip.get('ip'))}\n")
    else:
        w.write(0, "IPs:\t<none>\n")
    controller = _controller_of(pod)
    if controller is not None:
        w.write(0, f"Controlled By:\t{_s(controller.get('kind'))}/{_s(controller.get('name'))}\n")
    if status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{_s(status.get('nominatedNodeName'))}\n")
    if isinstance(spec.get("resources"), Mapping):
        w.write(0, "Resources:\n")
        _describe_resources(spec.get("resources"), w, 1)
    init = _maps(spec.get("initContainers"))
    if init:
        _describe_containers("Init Containers", init, _maps(status.get("initContainerStatuses")),
                             pod, w, "", ctx)
    _describe_containers("Containers", _maps(spec.get("containers")),
                         _maps(status.get("containerStatuses")), pod, w, "", ctx)
    ephemeral = _maps(spec.get("ephemeralContainers"))
    if ephemeral:
        _describe_containers("Ephemeral Containers", ephemeral,
                             _maps(status.get("ephemeralContainerStatuses")), pod, w, "", ctx)
    conditions = _maps(status.get("conditions"))
    gates = _maps(spec.get("readinessGates"))
    if gates:
        w.write(0, "Readiness Gates:\n  Type\tStatus\n")
        for gate in gates:
            gate_status = next((_s(c.get("status")) for c in conditions
                                if c.get("type") == gate.get("conditionType")), "<none>")
            w.write(1, f"{_s(gate.get('conditionType'))} \t{gate_status} \n")
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))} \n")
    _describe_volumes(_maps(spec.get("volumes")), w, "")
    w.write(0, f"QoS Class:\t{_s(status.get('qosClass')) or qos_class(pod)}\n")
    _print_labels(w, "Node-Selectors", _str_map(spec.get("nodeSelector")))
    _print_tolerations(w, "Tolerations", _maps(spec.get("tolerations")))
    _describe_topology_spread(_maps(spec.get("topologySpreadConstraints")), w, "")
    _describe_events(events, w, ctx)
    return w.render()


# ===================================================================== Node


def _add_resources(acc: dict[str, Quantity], items: Mapping[str, Quantity]) -> None:
    for name, q in items.items():
        acc[name] = acc[name] + q if name in acc else q  # Quantity keeps its format


def _pod_resources(pod: Obj, field: str) -> dict[str, Quantity]:
    """``resourcehelper.PodRequests`` / ``PodLimits``: the app containers' sum,
    sidecars (restartable init containers) included, or the largest init-time
    need if that is more; pod-level resources and overhead on top."""
    spec = _m(pod.get("spec"))
    pod_level = _resource_list(_m(spec.get("resources")).get(field))
    pod_level = {k: v for k, v in pod_level.items() if k in ("cpu", "memory")}
    overhead = _resource_list(spec.get("overhead"))
    if field == "limits" and pod_level:
        limits = dict(pod_level)
        _add_resources(limits, overhead)
        return limits
    total = combine_containers(
        spec, lambda c: _resource_list(_m(c.get("resources")).get(field)))
    if field == "requests":
        total.update(pod_level)
        _add_resources(total, overhead)
    else:
        _add_resources(total, {k: v for k, v in overhead.items() if k in total})
    return total


def _percent(part: int, whole: int) -> int:
    # int64(float64(part) / float64(whole) * 100), truncating toward zero.
    return int(part / whole * 100) if whole else 0


def _node_roles(labels: Mapping[str, str]) -> list[str]:
    roles: set[str] = set()
    for key, value in labels.items():
        if key.startswith(_NODE_ROLE_PREFIX):
            role = key.removeprefix(_NODE_ROLE_PREFIX)
            if role:
                roles.add(role)
        elif key == _NODE_ROLE_LABEL and value:
            roles.add(value)
    return sorted(roles)


def _describe_node(node: Obj, pods: list[Obj], events: list[Obj] | None, ctx: _Ctx) -> str:
    meta, spec, status = _m(node.get("metadata")), _m(node.get("spec")), _m(node.get("status"))
    labels = _str_map(meta.get("labels"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Roles:\t{','.join(_node_roles(labels)) or '<none>'}\n")
    _print_labels(w, "Labels", labels)
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    w.write(0, f"CreationTimestamp:\t{_rfc1123z(meta.get('creationTimestamp'), ctx)}\n")
    _print_taints(w, "Taints", _maps(spec.get("taints")))
    w.write(0, f"Unschedulable:\t{_gobool(spec.get('unschedulable'))}\n")
    conditions = _maps(status.get("conditions"))
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\t"
                   "Reason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))} \t"
                       f"{_rfc1123z(c.get('lastHeartbeatTime'), ctx)} \t"
                       f"{_rfc1123z(c.get('lastTransitionTime'), ctx)} \t"
                       f"{_s(c.get('reason'))} \t{_s(c.get('message'))}\n")
    w.write(0, "Addresses:\n")
    for address in _maps(status.get("addresses")):
        w.write(1, f"{_s(address.get('type'))}:\t{_s(address.get('address'))}\n")
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        resources = _m(status.get(key))
        if resources:
            w.write(0, f"{title}:\n")
            for name in sorted(resources):
                w.write(0, f"  {name}:\t{_qstr(resources[name])}\n")
    info = _m(status.get("nodeInfo"))
    w.write(0, "System Info:\n")
    for title, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"),
                       ("Boot ID", "bootID"), ("Kernel Version", "kernelVersion"),
                       ("OS Image", "osImage"), ("Operating System", "operatingSystem"),
                       ("Architecture", "architecture"),
                       ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion")):
        w.write(0, f"  {title}:\t{_s(info.get(key))}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{_s(spec.get('podCIDR'))}\n")
    if _l(spec.get("podCIDRs")):
        w.write(0, f"PodCIDRs:\t{','.join(_s(c) for c in _l(spec.get('podCIDRs')))}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{_s(spec.get('providerID'))}\n")
    name = _s(meta.get("name"))
    running = [p for p in pods
               if _s(_m(p.get("spec")).get("nodeName")) == name
               and _s(_m(p.get("status")).get("phase")) not in ("Succeeded", "Failed")]
    running.sort(key=lambda p: (_s(_m(p.get("metadata")).get("namespace")),
                                _s(_m(p.get("metadata")).get("name"))))
    _describe_node_resource(running, status, w, ctx)
    _describe_events(events, w, ctx)
    return w.render()


def _describe_node_resource(pods: list[Obj], status: Obj, w: _Out, ctx: _Ctx) -> None:
    w.write(0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\t"
               "Memory Limits\tAge\n")
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t"
               "-------------\t---\n")
    allocatable = _resource_list(status.get("allocatable")) or _resource_list(
        status.get("capacity"))
    zero = Quantity(0)
    alloc_cpu = allocatable.get("cpu", zero).milli_value()
    alloc_mem = allocatable.get("memory", zero).value()
    for pod in pods:
        meta = _m(pod.get("metadata"))
        req, lim = _pod_resources(pod, "requests"), _pod_resources(pod, "limits")
        cpu_req, cpu_lim = req.get("cpu", zero), lim.get("cpu", zero)
        mem_req, mem_lim = req.get("memory", zero), lim.get("memory", zero)
        w.write(1, f"{_s(meta.get('namespace'))}\t{_s(meta.get('name'))}\t\t"
                   f"{cpu_req} ({_percent(cpu_req.milli_value(), alloc_cpu)}%)\t"
                   f"{cpu_lim} ({_percent(cpu_lim.milli_value(), alloc_cpu)}%)\t"
                   f"{mem_req} ({_percent(mem_req.value(), alloc_mem)}%)\t"
                   f"{mem_lim} ({_percent(mem_lim.value(), alloc_mem)}%)\t"
                   f"{_since(meta.get('creationTimestamp'), ctx)}\n")
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., "
               "overcommitted.)\n")
    w.write(1, "Resource\tRequests\tLimits\n")
    w.write(1, "--------\t--------\t------\n")
    reqs: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for pod in pods:
        _add_resources(reqs, _pod_resources(pod, "requests"))
        _add_resources(limits, _pod_resources(pod, "limits"))
    for name, scale in (("cpu", "milli"), ("memory", "unit"), ("ephemeral-storage", "unit")):
        whole = allocatable.get(name, zero)
        r, lmt = reqs.get(name, zero), limits.get(name, zero)
        if scale == "milli":
            rp, lp = (_percent(r.milli_value(), whole.milli_value()),
                      _percent(lmt.milli_value(), whole.milli_value()))
        else:
            rp, lp = _percent(r.value(), whole.value()), _percent(lmt.value(), whole.value())
        w.write(1, f"{name}\t{r} ({rp}%)\t{lmt} ({lp}%)\n")
    hugepages = sorted(n for n in allocatable if n.startswith("hugepages-"))
    extended = sorted(n for n in allocatable if not n.startswith("hugepages-")
                      and n not in ("cpu", "memory", "ephemeral-storage", "pods"))
    for name in hugepages:
        whole = allocatable[name]
        r, lmt = reqs.get(name, zero), limits.get(name, zero)
        w.write(1, f"{name}\t{r} ({_percent(r.value(), whole.value())}%)\t"
                   f"{lmt} ({_percent(lmt.value(), whole.value())}%)\n")
    for name in extended:
        w.write(1, f"{name}\t{reqs.get(name, zero)}\t{limits.get(name, zero)}\n")


# ================================================================ Namespace


def _describe_namespace(namespace: Obj, ctx: _Ctx) -> str:
    meta, status = _m(namespace.get("metadata")), _m(namespace.get("status"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    w.write(0, f"Status:\t{_s(status.get('phase'))}\n")
    conditions = _maps(status.get("conditions"))
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))}\t{_s(c.get('status'))}\t"
                       f"{_rfc1123z(c.get('lastTransitionTime'), ctx)}\t"
                       f"{_s(c.get('reason'))}\t{_s(c.get('message'))}\n")
    return w.render()


# =============================================================== Deployment


def _normalized(value: Any) -> Any:
    """A JSON value with Go zero values and empty containers dropped, so that
    templates compare as ``equality.Semantic.DeepEqual`` compares structs."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            norm = _normalized(item)
            if norm not in (None, "", 0, False, {}, []):
                out[key] = norm
        return out
    if isinstance(value, list | tuple):
        return [_normalized(v) for v in value]
    return value


def _template_without_hash(template: Any) -> Any:
    t = dict(_m(template))
    meta = dict(_m(t.get("metadata")))
    labels = {k: v for k, v in _m(meta.get("labels")).items() if k != _HASH_LABEL}
    meta["labels"] = labels
    t["metadata"] = meta
    return _normalized(t)


def _replica_sets_by_labels(replica_sets: list[Obj]) -> str:
    rendered = [f"{_s(_m(rs.get('metadata')).get('name'))} "
                f"({_i(_m(rs.get('status')).get('replicas'))}/"
                f"{_i(_m(rs.get('spec')).get('replicas'), 1)} replicas created)"
                for rs in replica_sets]
    return ", ".join(rendered) or "<none>"


def _creation_key(obj: Obj) -> tuple[float, str]:
    meta = _m(obj.get("metadata"))
    dt = _parse_time(meta.get("creationTimestamp"))
    return (dt.timestamp() if dt is not None else -math.inf, _s(meta.get("name")))


def _split_replica_sets(deployment: Obj, replica_sets: list[Obj]) -> tuple[list[Obj], list[Obj]]:
    """``deploymentutil.GetAllReplicaSets``: (all old, [new]) of those the
    deployment selects and controls, oldest first."""
    selector = _selector(_m(deployment.get("spec")).get("selector"))
    owned = [rs for rs in replica_sets
             if selector is not None
             and selector.matches(_str_map(_m(rs.get("metadata")).get("labels")))
             and _controlled_by(rs, deployment)]
    owned.sort(key=_creation_key)
    wanted = _template_without_hash(_m(deployment.get("spec")).get("template"))
    new = next((rs for rs in owned
                if _template_without_hash(_m(rs.get("spec")).get("template")) == wanted), None)
    old = [rs for rs in owned if rs is not new]
    return old, [new] if new is not None else []


def _describe_deployment(deployment: Obj, replica_sets: list[Obj],
                         events: list[Obj] | None, ctx: _Ctx) -> str:
    meta = _m(deployment.get("metadata"))
    spec, status = _m(deployment.get("spec")), _m(deployment.get("status"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    w.write(0, f"CreationTimestamp:\t{_rfc1123z(meta.get('creationTimestamp'), ctx)}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    selector = _selector(spec.get("selector"))
    w.write(0, f"Selector:\t{str(selector) if selector is not None else '<error>'}\n")
    w.write(0, f"Replicas:\t{_i(spec.get('replicas'), 1)} desired | "
               f"{_i(status.get('updatedReplicas'))} updated | "
               f"{_i(status.get('replicas'))} total | "
               f"{_i(status.get('availableReplicas'))} available | "
               f"{_i(status.get('unavailableReplicas'))} unavailable\n")
    strategy = _m(spec.get("strategy"))
    w.write(0, f"StrategyType:\t{_s(strategy.get('type'))}\n")
    w.write(0, f"MinReadySeconds:\t{_i(spec.get('minReadySeconds'))}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, Mapping):
        w.write(0, f"RollingUpdateStrategy:\t{_int_or_string(rolling.get('maxUnavailable'))} "
                   f"max unavailable, {_int_or_string(rolling.get('maxSurge'))} max surge\n")
    _describe_pod_template(_m(spec.get("template")), w, ctx)
    _describe_conditions_short(_maps(status.get("conditions")), w)
    old, new = _split_replica_sets(deployment, replica_sets)
    if old or new:
        w.write(0, f"OldReplicaSets:\t{_replica_sets_by_labels(old)}\n")
        w.write(0, f"NewReplicaSet:\t{_replica_sets_by_labels(new)}\n")
    _describe_events(events, w, ctx)
    return w.render()


# =============================================================== ReplicaSet


def _describe_replica_set(rs: Obj, pods: list[Obj], events: list[Obj] | None,
                          ctx: _Ctx) -> str:
    meta, spec, status = _m(rs.get("metadata")), _m(rs.get("spec")), _m(rs.get("status"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    w.write(0, f"Selector:\t{_format_label_selector(spec.get('selector'))}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    controller = _controller_of(rs)
    if controller is not None:
        w.write(0, f"Controlled By:\t{_s(controller.get('kind'))}/{_s(controller.get('name'))}\n")
    w.write(0, f"Replicas:\t{_i(status.get('replicas'))} current / "
               f"{_i(spec.get('replicas'), 1)} desired\n")
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    selector = _selector(spec.get("selector"))
    for pod in pods:
        labels = _str_map(_m(pod.get("metadata")).get("labels"))
        if selector is None or not selector.matches(labels) or not _controlled_by(pod, rs):
            continue
        phase = _s(_m(pod.get("status")).get("phase"))
        if phase in counts:
            counts[phase] += 1
    w.write(0, "Pods Status:\t")
    w.write(0, f"{counts['Running']} Running / {counts['Pending']} Waiting / "
               f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed\n")
    _describe_pod_template(_m(spec.get("template")), w, ctx)
    _describe_conditions_short(_maps(status.get("conditions")), w)
    _describe_events(events, w, ctx)
    return w.render()


# ================================================================== generic


def _camelcase_split(text: str) -> list[str]:
    """``github.com/fatih/camelcase.Split``."""
    runs: list[list[str]] = []
    last = 0
    for ch in text:
        cls = 1 if ch.islower() else 2 if ch.isupper() else 3 if ch.isdigit() else 4
        if cls == last and runs:
            runs[-1].append(ch)
        else:
            runs.append([ch])
        last = cls
    for i in range(len(runs) - 1):
        if runs[i] and runs[i][0].isupper() and runs[i + 1] and runs[i + 1][0].islower():
            runs[i + 1].insert(0, runs[i].pop())
    return ["".join(run) for run in runs if run]


def _smart_label(field: str) -> str:
    """kubectl's ``smartLabelFor``: ``apiVersion`` -> ``API Version``; names with
    characters other than letters and ``-`` are kept as they are."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    parts = _camelcase_split(field)
    merged: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if i < len(parts) - 1:
            following = parts[i + 1]
            if (len(part) >= 2 and all(not ch.isalpha() or ch.isupper() for ch in part)
                    and following and following[0].isupper()):
                merged.append(part + following)
                i += 2
                continue
        merged.append(part)
        i += 1
    result = []
    for part in merged:
        if part == "_":
            continue
        if part.upper() in ("API", "URL", "UID", "GUID"):
            part = part.upper()
        elif part.lower() == part:
            part = part[:1].upper() + part[1:]
        result.append(part)
    return " ".join(result)


def _go_float(value: float) -> str:
    """Go's ``%v`` of a float64 (``strconv.FormatFloat(f, 'g', -1, 64)``)."""
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    dec = Decimal(repr(value)).normalize()
    sign, digits, exponent = dec.as_tuple()
    assert isinstance(exponent, int)
    text = "".join(str(d) for d in digits)
    exp = len(digits) + exponent - 1
    neg = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{neg}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return neg + format(abs(dec), "f")


def _go_value(value: Any) -> str:
    """Go's ``%v`` of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(_go_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{_go_value(value[k])}"
                                 for k in sorted(value, key=str)) + "]"
    return str(value)


def _print_unstructured(w: _Out, level: int, content: Obj, skip_prefix: str,
                        skip: Iterable[str]) -> None:
    skip = tuple(skip)
    for field in sorted(content, key=str):
        value = content[field]
        skip_expr = f"{skip_prefix}.{field}"
        if skip_expr in skip:
            continue
        if isinstance(value, Mapping):
            w.write(level, f"{_smart_label(str(field))}:\n")
            _print_unstructured(w, level + 1, value, skip_expr, skip)
        elif isinstance(value, list | tuple):
            w.write(level, f"{_smart_label(str(field))}:\n")
            for child in value:
                if isinstance(child, Mapping):
                    _print_unstructured(w, level + 1, child, skip_expr, skip)
                else:
                    w.write(level + 1, f"{_go_value(child)}\n")
        else:
            w.write(level, f"{_smart_label(str(field))}:\t{_go_value(value)}\n")


def _describe_generic(obj: Obj, events: list[Obj] | None, ctx: _Ctx) -> str:
    meta = _m(obj.get("metadata"))
    w = _Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    _print_labels(w, "Labels", _str_map(meta.get("labels")))
    _print_annotations(w, "Annotations", _str_map(meta.get("annotations")))
    _print_unstructured(w, 0, obj, "", (".metadata.managedFields", ".metadata.name",
                                        ".metadata.namespace", ".metadata.labels",
                                        ".metadata.annotations"))
    _describe_events(events, w, ctx)
    return w.render()
