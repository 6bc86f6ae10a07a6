"""The Services view: Services with kubectl's cells, the endpoints of the one
under the cursor, live.

Pilot tests run the dashboard against a real control plane on hollow nodes
(:mod:`.cluster`), where the Endpoints/EndpointSlice and load-balancer
controllers run: pods with an exec readiness probe become endpoints, and a
test flips a pod's readiness through the fake runtime's exec exit codes (the
probe then fails or passes, the kubelet updates the pod, the controller the
slice, the watch the view). The pure helpers are tested table-driven.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from minikube_py.controlplane import ControlPlane
from minikube_py.runtime.fake import FakeRuntime
from tests.waiting import until
from tui.app import DashboardApp
from tui.screens import ConfirmDialog, DescribeScreen
from tui.views.base import Selection
from tui.views.services import (
    Endpoint,
    ServicesView,
    endpoint_state,
    endpoints_cell,
    order_endpoints,
    slice_endpoints,
    slice_ports,
)

from .cluster import client, plane, pod, run_app, type_filter

__all__ = ["client", "plane"]  # fixtures used by name

pytestmark = pytest.mark.timeout(120)

TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1"


# ------------------------------------------------------------------ helpers


def services_view(app: DashboardApp) -> ServicesView:
    view = app.view("services")
    assert isinstance(view, ServicesView)
    return view


def probed_pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    """A pod whose one container (named as the pod) has an exec readiness probe
    run every second: its readiness follows the fake runtime's exec exit code."""
    return pod(name, labels=labels, container=name, readiness_probe={
        "exec": {"command": ["ready?"]}, "periodSeconds": 1, "failureThreshold": 1,
        "successThreshold": 1})


def service(name: str, kind: str = "ClusterIP", *, selector: dict[str, str] | None = None,
            labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"type": kind, **spec}
    if kind != "ExternalName":
        body.setdefault("ports", [{"name": "http", "port": 80, "targetPort": 8080}])
    if selector:
        body["selector"] = selector
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": body}


def set_ready(plane: ControlPlane, container: str, ready: bool) -> None:
    """Make the readiness probe of ``container`` pass or fail on every node."""
    for kubelet in plane.kubelets.values():
        runtime = kubelet.runtime
        assert isinstance(runtime, FakeRuntime)
        runtime.exec_exit_codes[container] = 0 if ready else 1


def server_cells(client: HTTPClient) -> dict[str, list[Any]]:
    """What ``kubectl get services -n default`` shows: the API server's own Table,
    NAME -> cells (NAME, TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), AGE)."""
    status, body, _ = client.request("GET", "/api/v1/namespaces/default/services",
                                     accept=TABLE)
    assert status == 200
    return {row["cells"][0]: row["cells"] for row in json.loads(body)["rows"]}


def row(view: ServicesView, key: str) -> list[str]:
    cells = view.upper.cells(key)
    return [c.plain if isinstance(c, Text) else str(c) for c in cells] if cells else []


def style(view: ServicesView, key: str, column: int) -> str:
    cells = view.upper.cells(key)
    assert cells is not None
    cell = cells[column]
    assert isinstance(cell, Text)
    return str(cell.style)


# ------------------------------------------------------------------ pure helpers


@pytest.mark.parametrize(("conditions", "state"), [
    ({"ready": True, "serving": True, "terminating": False}, "Ready"),
    ({"ready": False, "serving": False, "terminating": False}, "NotReady"),
    ({"ready": False, "serving": True, "terminating": True}, "Terminating"),
    ({"ready": False, "serving": False, "terminating": True}, "Terminating"),
    ({}, "Ready"),  # unknown reads as ready (the API's advice to consumers)
    (None, "Ready"),
])
def test_endpoint_state(conditions: dict[str, bool] | None, state: str) -> None:
    assert endpoint_state(conditions) == state


@pytest.mark.parametrize(("ports", "shown"), [
    ([{"name": "", "port": 8080, "protocol": "TCP"}], "8080/TCP"),
    ([{"name": "http", "port": 80, "protocol": "TCP"},
      {"name": "dns", "port": 53, "protocol": "UDP"}], "80/TCP (http), 53/UDP (dns)"),
    ([{"name": "all"}], "*/TCP (all)"),
    ([], "<none>"),
])
def test_slice_ports(ports: list[dict[str, Any]], shown: str) -> None:
    assert slice_ports({"ports": ports}) == shown


def _slice(*endpoints: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "s1", "namespace": "ns"}, "endpoints": list(endpoints),
            "ports": [{"name": "", "port": 80, "protocol": "TCP"}]}


def test_slice_endpoints_name_their_pod_or_slice_and_list_ready_first() -> None:
    endpoints = slice_endpoints(_slice(
        {"addresses": ["10.0.0.3"], "conditions": {"ready": False, "terminating": True},
         "targetRef": {"kind": "Pod", "name": "c", "namespace": "ns"}},
        {"addresses": ["10.0.0.2"], "conditions": {"ready": False},
         "targetRef": {"kind": "Pod", "name": "b"}, "nodeName": "node-1"},
        {"addresses": ["10.0.0.1"], "conditions": {"ready": True}, "hostname": "h"},
        {"addresses": ["10.0.0.4"], "conditions": {"ready": True},
         "targetRef": {"kind": "Pod", "name": "a"}}))
    shown = order_endpoints(endpoints)
    assert [(e.address, e.state, e.pod) for e in shown] == [
        ("10.0.0.1", "Ready", "<none>"), ("10.0.0.4", "Ready", "a"),
        ("10.0.0.2", "NotReady", "b"), ("10.0.0.3", "Terminating", "c")]
    assert shown[0].target == Selection("endpointslices", "ns", "s1")
    assert shown[0].hostname == "h" and shown[2].node == "node-1"
    assert shown[2].target == Selection("pods", "ns", "b")  # the slice's namespace
    assert {e.key for e in shown} == {f"s1/10.0.0.{i}" for i in range(1, 5)}


def _endpoint(address: str, state: str) -> Endpoint:
    return Endpoint(key=address, address=address, ports="", state=state, pod="", node="",
                    hostname="", target=Selection("pods", "ns", address))


@pytest.mark.parametrize(("states", "text", "colour"), [
    (["Ready", "Ready"], "2/2", "green"),
    (["Ready", "NotReady", "Terminating"], "1/3", "yellow"),
    (["NotReady"], "0/1", "red"),
    ([], "0/0", "red"),
])
def test_endpoints_cell(states: list[str], text: str, colour: str) -> None:
    cell = endpoints_cell({"spec": {"type": "ClusterIP"}},
                          [_endpoint(f"10.0.0.{i}", s) for i, s in enumerate(states)])
    assert (cell.plain, str(cell.style)) == (text, colour)


def test_endpoints_cell_counts_addresses_once_and_external_names_not_at_all() -> None:
    # The same address in two slices (one being replaced): ready if ready in either.
    twice = [_endpoint("10.0.0.1", "NotReady"), _endpoint("10.0.0.1", "Ready")]
    assert endpoints_cell({"spec": {}}, twice).plain == "1/1"
    assert endpoints_cell({"spec": {"type": "ExternalName"}}, twice).plain == "-"


# ------------------------------------------------------------------ the view, live


def test_services_show_kubectls_cells_and_endpoints_follow_readiness(
        plane: ControlPlane, client: HTTPClient) -> None:
    client.create(probed_pod("ep-a", {"app": "ep"}))
    client.create(probed_pod("ep-b", {"app": "ep"}))
    client.create(service("ep", "NodePort", selector={"app": "ep"}))
    client.create(service("lb", "LoadBalancer", selector={"app": "nothing"}))
    client.create(service("ext", "ExternalName", externalName="docs.example.com"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("7")
        assert app.active_view.id == "services"
        view = services_view(app)

        def same_as_kubectl() -> bool:
            server = server_cells(client)
            ours = {r[1]: r for r in view.upper.plain_rows() if r[0] == "default"}
            return ours.keys() == server.keys() and all(
                ours[name][1:6] == [str(c) for c in server[name][:5]] for name in server)

        await until(pilot, lambda: {"default/ep", "default/lb", "default/ext"}
                    <= set(view.upper.keys), "the three Services")
        await until(pilot, lambda: row(view, "default/lb")[4] != "<pending>",
                    "the load balancer's address")
        await until(pilot, same_as_kubectl, "TYPE..PORT(S) as the API server prints them")
        ep = client.get("services", "default", "ep")
        node_port = ep["spec"]["ports"][0]["nodePort"]
        assert row(view, "default/ep")[2:6] == [
            "NodePort", ep["spec"]["clusterIP"], "<none>", f"80:{node_port}/TCP"]
        assert row(view, "default/ext")[2:7] == [
            "ExternalName", "<none>", "docs.example.com", "<none>", "-"]
        assert row(view, "default/lb")[6] == "0/0" and style(view, "default/lb", 6) == "red"
        assert "default/kubernetes" in view.upper.keys  # the cluster's own Service

        # The endpoints of the Service under the cursor, from its EndpointSlices.
        assert view.upper.select_key("default/ep")
        await until(pilot, lambda: row(view, "default/ep")[6] == "2/2", "2/2 ready")
        assert style(view, "default/ep", 6) == "green"
        pods = {p["metadata"]["name"]: p for p in client.list("pods", namespace="default").items}

        def endpoints() -> list[list[str]]:
            return view.lower.plain_rows()

        await until(pilot, lambda: len(endpoints()) == 2, "two endpoints below")
        assert endpoints() == [
            [pods[n]["status"]["podIP"], "8080/TCP (http)", "Ready", n,
             pods[n]["spec"]["nodeName"], "<none>"] for n in ("ep-a", "ep-b")]
        summary = str(app.query_one("#endpoints-summary").render())
        assert "of default/ep: 2, 2 ready" in summary

        # ep-a's probe fails: it goes NotReady, after the ready one.
        set_ready(plane, "ep-a", False)
        await until(pilot, lambda: [r[2:4] for r in endpoints()] ==
                    [["Ready", "ep-b"], ["NotReady", "ep-a"]], "ep-a NotReady, listed last")
        assert row(view, "default/ep")[6] == "1/2"
        assert style(view, "default/ep", 6) == "yellow"
        set_ready(plane, "ep-b", False)
        await until(pilot, lambda: row(view, "default/ep")[6] == "0/2", "none ready")
        assert style(view, "default/ep", 6) == "red"
        set_ready(plane, "ep-a", True)
        set_ready(plane, "ep-b", True)
        await until(pilot, lambda: [r[2] for r in endpoints()] == ["Ready", "Ready"],
                    "both Ready again")
        await until(pilot, lambda: row(view, "default/ep")[6] == "2/2", "2/2 again")

        # enter on an endpoint describes its pod.
        view.take_focus(view.lower)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DescribeScreen)
        assert (screen.resource, screen.namespace, screen.name_) == ("pods", "default", "ep-a")
        await pilot.press("escape")

    # No age tick: only the watches can re-render the view.
    run_app(client, scenario, age_tick=0)


def test_enter_describes_a_service_filter_and_delete(client: HTTPClient) -> None:
    client.create(service("front", labels={"tier": "front"}, selector={"app": "front"}))
    client.create(service("back", labels={"tier": "back"}, selector={"app": "back"}))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("7")
        view = services_view(app)
        everything = {"default/back", "default/front", "default/kubernetes"}
        await until(pilot, lambda: everything <= set(view.upper.keys), "the Services")
        everything = set(view.upper.keys)

        # / text, then / -l labels, then esc: as in every view.
        await type_filter(pilot, "front")
        await pilot.press("enter")
        await until(pilot, lambda: view.upper.keys == ["default/front"], "the text filter")
        await type_filter(pilot, "-l tier=back")
        await pilot.press("enter")
        await until(pilot, lambda: view.upper.keys == ["default/back"], "the label filter")
        assert "filter: -l tier=back" in str(app.query_one("#services-summary").render())
        await pilot.press("slash", "escape")
        await until(pilot, lambda: set(view.upper.keys) == everything, "the filter cleared")

        # enter: the Service's description; y: its YAML.
        assert view.upper.select_key("default/front")
        view.focus_main()
        await pilot.press("enter")
        described = app.screen
        assert isinstance(described, DescribeScreen) and not described.yaml
        assert (described.resource, described.namespace, described.name_) == \
            ("services", "default", "front")
        await until(pilot, lambda: "Name:" in described.text and "front" in described.text
                    and "ClusterIP" in described.text, "the description")
        await pilot.press("escape")
        await pilot.press("y")
        as_yaml = app.screen
        assert isinstance(as_yaml, DescribeScreen) and as_yaml.yaml
        await until(pilot, lambda: "kind: Service" in as_yaml.text, "the YAML")
        await pilot.press("escape")

        # ctrl+d asks first; yes deletes the Service under the cursor.
        await pilot.press("ctrl+d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        assert client.get("services", "default", "front")
        await pilot.press("ctrl+d")
        await pilot.press("y")
        await until(pilot, lambda: "default/front" not in view.upper.keys, "front to go")
        assert any('service "front" deleted' in msg for _, msg in app.notices)
        assert "default/back" in view.upper.keys

    run_app(client, scenario)


def test_the_palette_finds_the_view_by_its_endpoints(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"endpoints")

        def highlighted() -> str:
            hits = app.screen.query_one(CommandList)
            if hits.highlighted is None:
                return ""
            return str(hits.get_option_at_index(hits.highlighted).prompt)

        await until(pilot, lambda: highlighted().startswith("endpoints"), "the command")
        await pilot.press("enter")
        await until(pilot, lambda: app.active_view.id == "services", "the services view")

    run_app(client, scenario)
