"""Services and the endpoints behind them, live from their EndpointSlices.

Top, every Service with kubectl's TYPE, CLUSTER-IP, EXTERNAL-IP and PORT(S)
(the server-side table printer's cells, so they read exactly as ``kubectl get
services``) and an ENDPOINTS column: ready/total addresses from the Service's
EndpointSlices, green when all are ready, yellow when some are, red when none
are (or there are none); ``-`` for an ExternalName Service, which has no
endpoints. Below, the endpoints of the Service under the cursor, read from the
EndpointSlices labelled ``kubernetes.io/service-name=<service>`` in its
namespace: ADDRESS, PORTS (the slice's, ``8080/TCP`` or ``8080/TCP (http)``
when named, ``*`` for "all ports"), READY (the endpoint's conditions as one
word: ``Ready``, ``NotReady`` or ``Terminating``), POD (the target
reference), NODE and HOSTNAME. Ready endpoints come first, then not ready
ones, then terminating ones, each by pod name. Both tables follow the watches:
a pod turning (un)ready changes its slice, which changes the rows.

Keys: ``enter`` describes the Service (on an endpoint: its pod; the app
handles the table's ``RowSelected``); ``d``, ``y`` and ``ctrl+d`` act on the
Service, or on the endpoint's pod while the lower table has focus (the
EndpointSlice for an endpoint without a pod).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from rich.markup import escape
from rich.text import Text

from minikube_py.api.core.service import SERVICE_NAME_LABEL

from ..widgets.table import Row
from .base import Selection, namespace_name, printed
from .split import Pane, SplitView

SERVICE_COLUMNS: Final = ("NAMESPACE", "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)",
                          "ENDPOINTS", "AGE")
ENDPOINT_COLUMNS: Final = ("ADDRESS", "PORTS", "READY", "POD", "NODE", "HOSTNAME")
#: The READY words, in the order the endpoints are listed, with their colours.
STATES: Final = {"Ready": "green", "NotReady": "red", "Terminating": "yellow"}
_NONE: Final = "<none>"


def endpoint_state(conditions: Mapping[str, Any] | None) -> str:
    """``Terminating`` when the endpoint is terminating, else ``Ready`` or ``NotReady``.

    An unset ``ready`` counts as ready: the API tells consumers to read the
    unknown state so.
    """
    conditions = conditions or {}
    if conditions.get("terminating") is True:
        return "Terminating"
    return "NotReady" if conditions.get("ready") is False else "Ready"


def slice_ports(eps: Mapping[str, Any]) -> str:
    """A slice's ports: ``8080/TCP``, ``8080/TCP (http)`` when named, ``*`` for a
    port without a number (all ports); ``<none>`` without ports."""
    shown = []
    for port in eps.get("ports") or []:
        number = port.get("port")
        text = f"{number if number is not None else '*'}/{port.get('protocol') or 'TCP'}"
        shown.append(f"{text} ({port['name']})" if port.get("name") else text)
    return ", ".join(shown) or _NONE


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One endpoint of one EndpointSlice, as the lower table shows it.

    ``key`` (``<slice>/<first address>``) is its row key; ``target`` is what
    the app's actions act on: the pod it points at, else its EndpointSlice.
    """

    key: str
    address: str
    ports: str
    state: str
    pod: str
    node: str
    hostname: str
    target: Selection

    @property
    def cells(self) -> tuple[str | Text, ...]:
        return (self.address, self.ports, Text(self.state, style=STATES[self.state]),
                self.pod, self.node, self.hostname)


def slice_endpoints(eps: Mapping[str, Any]) -> list[Endpoint]:
    """The endpoints of one EndpointSlice, in the slice's order."""
    namespace, name = namespace_name(eps)
    ports = slice_ports(eps)
    out: list[Endpoint] = []
    for index, endpoint in enumerate(eps.get("endpoints") or []):
        addresses = [str(a) for a in endpoint.get("addresses") or []]
        ref = endpoint.get("targetRef") or {}
        if ref.get("name") and ref.get("kind", "Pod") == "Pod":
            pod = str(ref["name"])
            target = Selection("pods", str(ref.get("namespace") or namespace), pod)
        else:
            pod = f"{str(ref.get('kind')).lower()}/{ref['name']}" if ref.get("name") else _NONE
            target = Selection("endpointslices", namespace, name)
        out.append(Endpoint(
            key=f"{name}/{addresses[0] if addresses else index}",
            address=",".join(addresses) or _NONE, ports=ports,
            state=endpoint_state(endpoint.get("conditions")), pod=pod,
            node=str(endpoint.get("nodeName") or _NONE),
            hostname=str(endpoint.get("hostname") or _NONE), target=target))
    return out


def order_endpoints(endpoints: Iterable[Endpoint]) -> list[Endpoint]:
    """Ready first, then not ready, then terminating; by pod, then address; one
    row per key (an endpoint listed twice in a slice is shown once)."""
    rank = {state: i for i, state in enumerate(STATES)}
    unique = {e.key: e for e in endpoints}
    return sorted(unique.values(), key=lambda e: (rank[e.state], e.pod, e.address))


def endpoints_cell(service: Mapping[str, Any], endpoints: Iterable[Endpoint]) -> Text:
    """ENDPOINTS: ready/total distinct addresses (an address ready in any slice is
    ready), coloured; ``-`` for an ExternalName Service."""
    if (service.get("spec") or {}).get("type") == "ExternalName":
        return Text("-", style="dim")
    total: set[str] = set()
    ready: set[str] = set()
    for endpoint in endpoints:
        total.add(endpoint.address)
        if endpoint.state == "Ready":
            ready.add(endpoint.address)
    style = "green" if total and len(ready) == len(total) else "yellow" if ready else "red"
    return Text(f"{len(ready)}/{len(total)}", style=style)


class ServicesView(SplitView):
    """The Services tab (see the module docstring)."""

    UPPER = Pane("services", "Services", "services", SERVICE_COLUMNS)
    LOWER = Pane("endpoints", "Endpoints", "pods", ENDPOINT_COLUMNS)
    WATCHES = frozenset({"services", "endpointslices"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (endpointslices generation, endpoints by (namespace, service)).
        self._index: tuple[int, dict[tuple[str, str], list[Endpoint]]] = (-1, {})
        #: Row key -> endpoint, of the lower table as last rendered.
        self._shown: dict[str, Endpoint] = {}

    def endpoints(self) -> dict[tuple[str, str], list[Endpoint]]:
        """Every Service's endpoints in display order, by (namespace, name); read
        again from the slices only when the slices changed."""
        generation = self.model.generation("endpointslices")
        if self._index[0] == generation:
            return self._index[1]
        grouped: dict[tuple[str, str], list[Endpoint]] = {}
        for eps in self.model.objects("endpointslices"):
            service = ((eps.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME_LABEL)
            if service:
                grouped.setdefault((namespace_name(eps)[0], str(service)), []).extend(
                    slice_endpoints(eps))
        index = {svc: order_endpoints(eps) for svc, eps in grouped.items()}
        self._index = (generation, index)
        return index

    def upper_rows(self) -> list[Row]:
        services = sorted(self.model.objects("services"), key=namespace_name)
        endpoints = self.endpoints()
        rows: list[Row] = []
        for svc, c in printed("Service", services, now=self.clock()):
            ref = namespace_name(svc)
            cells: tuple[str | Text, ...] = (
                ref[0], c[0], c[1], c[2], c[3], c[4],
                endpoints_cell(svc, endpoints.get(ref, ())), c[5])
            if self.filter.matches(svc, cells):
                rows.append((f"{ref[0]}/{ref[1]}", cells))
        return rows

    def lower_rows(self, key: str | None) -> list[Row]:
        namespace, _, name = (key or "").partition("/")
        shown = self.endpoints().get((namespace, name), []) if key else []
        self._shown = {e.key: e for e in shown}
        return [(e.key, e.cells) for e in shown]

    def lower_summary(self, key: str | None, rows: list[Row]) -> str:
        if key is None:
            return "[b]Endpoints[/b] (no Service)"
        service = self.model.get("services", key) or {}
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName":
            return (f"[b]Endpoints[/b] of {escape(key)}: none, an ExternalName Service "
                    f"(DNS answers {escape(str(spec.get('externalName', '')))})")
        ready = sum(1 for e in self._shown.values() if e.state == "Ready")
        return (f"[b]Endpoints[/b] of {escape(key)}: {len(rows)}, {ready} ready"
                "  [dim]from its EndpointSlices, ready first[/dim]")

    def lower_selection(self, key: str) -> Selection | None:
        endpoint = self._shown.get(key)
        return endpoint.target if endpoint is not None else None
