"""The downward API: a pod's own fields and its containers' resources as
text, for environment variables and for ``downwardAPI`` volume files.

* :func:`field_value` is the kubelet's ``podFieldSelectorRuntimeValue`` over
  ``fieldpath.ExtractFieldPathAsString`` (v1.32): ``metadata.name``,
  ``namespace``, ``uid``, ``metadata.labels['k']`` /
  ``metadata.annotations['k']`` (empty when absent), the whole
  ``metadata.labels`` / ``metadata.annotations`` as ``FormatMap`` writes them
  (``key="value"`` lines sorted by key, values quoted as Go's
  ``strconv.Quote``, no newline at the end), ``spec.nodeName`` (also as
  ``spec.host``), ``spec.serviceAccountName``, ``status.hostIP(s)`` and
  ``status.podIP(s)`` (one IP per family here, so one address).
* :func:`resource_value` is ``ExtractContainerResourceValue`` on a container
  whose missing cpu/memory **limits** are the node's allocatable
  (``MergeContainerResourceLimits`` / ``defaultPodLimitsForDownwardAPI``):
  ``limits|requests`` ``.cpu|.memory|.ephemeral-storage|.hugepages-<size>``
  divided by ``divisor`` (default ``1``) and rounded up. ``containerName``
  picks another container of the pod (a volume file must name one).

What cannot be resolved raises :class:`~.sources.ConfigError` with
Kubernetes' message (``unsupported fieldPath: status.phase``, ``container
nope not found``); API validation refuses such pods, so this is a guard.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..api.quantity import Quantity, QuantityError
from .sources import ConfigError

__all__ = ["field_value", "format_map", "go_quote", "resource_value"]

_SUBSCRIPT = re.compile(r"^metadata\.(labels|annotations)\['(.*)'\]$", re.DOTALL)
_NAMED_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r",
                  "\t": r"\t", "\v": r"\v"}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote``: printable characters as they are (Python's
    ``isprintable`` is Go's ``unicode.IsPrint``), the rest escaped."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def format_map(values: Mapping[str, Any]) -> str:
    """``fieldpath.FormatMap``: ``k="v"`` lines sorted by key."""
    return "\n".join(f"{k}={go_quote(str(values[k]))}" for k in sorted(values))


def field_value(pod: Mapping[str, Any], path: str, *, host_ip: str = "",
                pod_ip: str = "") -> str:
    """The text of ``path`` for ``pod`` (see the module contract)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    simple: dict[str, Any] = {
        "metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
        "spec.host": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.hostIP": host_ip, "status.hostIPs": host_ip,
        "status.podIP": pod_ip, "status.podIPs": pod_ip,
    }
    if path in simple:
        value = simple[path]
        return "" if value is None else str(value)
    if path in ("metadata.labels", "metadata.annotations"):
        return format_map(meta.get(path.partition(".")[2]) or {})
    m = _SUBSCRIPT.match(path)
    if m:
        return str((meta.get(m.group(1)) or {}).get(m.group(2), ""))
    raise ConfigError(f"unsupported fieldPath: {path}")


def _quantity(raw: Any) -> Quantity | None:
    if raw is None:
        return None
    try:
        return Quantity.parse(raw)
    except (QuantityError, TypeError):
        return None


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def resource_value(pod: Mapping[str, Any], container: Mapping[str, Any] | None,
                   ref: Mapping[str, Any], allocatable: tuple[int, int]) -> str:
    """The value ``ref`` (a ``resourceFieldRef``) selects; ``container`` is the
    one whose environment it is (``None`` for a volume file), ``allocatable``
    the node's ``(cpu millicores, memory bytes)``."""
    spec = pod.get("spec") or {}
    wanted = ref.get("containerName")
    target = container
    if wanted or target is None:
        target = next((c for c in [*(spec.get("containers") or []),
                                   *(spec.get("initContainers") or [])]
                       if c.get("name") == wanted), None)
        if target is None:
            raise ConfigError(f"container {wanted or ''} not found")
    resource = str(ref.get("resource", ""))
    kind, _, name = resource.partition(".")
    if kind not in ("limits", "requests") or not (
            name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-")):
        raise ConfigError(f"unsupported container resource : {resource}")
    divisor = _quantity(ref.get("divisor"))
    if divisor is None or divisor.is_zero():
        divisor = Quantity.parse("1")
    q = _quantity(((target.get("resources") or {}).get(kind) or {}).get(name))
    if name == "cpu":
        millis = q.milli_value() if q is not None else 0
        if q is None and kind == "limits":
            millis = allocatable[0]
        return str(_ceil_div(millis, max(1, divisor.milli_value())))
    amount = q.value() if q is not None else 0
    if q is None and kind == "limits" and name == "memory":
        amount = allocatable[1]
    return str(_ceil_div(amount, max(1, divisor.value())))
