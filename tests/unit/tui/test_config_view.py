"""The Config view: ConfigMaps and Secrets with the pods that use them, their
keys below, Secret values hidden until asked for.

A Pilot test against a real control plane on hollow nodes; the pure helpers
table-driven."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from tests.waiting import until
from tui.app import DashboardApp
from tui.views.config import ConfigView, key_rows, pod_references, used_by_cell

from .cluster import client, plane, pod, run_app

__all__ = ["client", "plane"]  # fixtures used by name

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("spec, refs", [
    ({"containers": [{"name": "c", "env": [
        {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "a"}}},
        {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "b"}}},
        {"name": "C", "value": "plain"}]}]},
     {("configmaps", "cm"), ("secrets", "s")}),
    ({"initContainers": [{"name": "i", "envFrom": [{"configMapRef": {"name": "init-cm"}},
                                                   {"secretRef": {"name": "init-s"}}]}],
      "containers": [{"name": "c"}]},
     {("configmaps", "init-cm"), ("secrets", "init-s")}),
    ({"containers": [{"name": "c"}], "volumes": [
        {"name": "v1", "configMap": {"name": "vol-cm"}},
        {"name": "v2", "secret": {"secretName": "vol-s"}},
        {"name": "v3", "projected": {"sources": [
            {"configMap": {"name": "p-cm"}}, {"secret": {"name": "p-s"}},
            {"serviceAccountToken": {"path": "token"}}]}},
        {"name": "v4", "emptyDir": {}}]},
     {("configmaps", "vol-cm"), ("secrets", "vol-s"), ("configmaps", "p-cm"),
      ("secrets", "p-s")}),
    ({"containers": [{"name": "c"}], "imagePullSecrets": [{"name": "registry"}]},
     {("secrets", "registry")}),
    ({"containers": [{"name": "c"}], "ephemeralContainers": [
        {"name": "dbg", "envFrom": [{"configMapRef": {"name": "dbg-cm"}}]}]},
     {("configmaps", "dbg-cm")}),
    ({"containers": [{"name": "c"}]}, set()),
])
def test_pod_references(spec: dict[str, Any], refs: set[tuple[str, str]]):
    assert pod_references({"spec": spec}) == refs


@pytest.mark.parametrize("pods, cell", [
    ([], "-"), (["b", "a"], "a, b"), (["d", "c", "b", "a"], "a, b, c +1"),
])
def test_used_by_cell(pods: list[str], cell: str):
    assert used_by_cell(pods) == cell


def test_secret_values_are_hidden_unless_revealed():
    secret = {"data": {"password": "aHVudGVyMg==", "user": "YWRtaW4="}}
    hidden = key_rows("secrets", secret, reveal=False)
    assert [r[0] for r in hidden] == ["password", "user"]
    assert isinstance(hidden[0][1][2], Text)
    assert hidden[0][1][1:] [0] == "7" and hidden[0][1][2].plain == "<hidden, 7 bytes>"
    shown = key_rows("secrets", secret, reveal=True)
    assert shown[0][1] == ("password", "7", "hunter2")
    cm = key_rows("configmaps", {"data": {"conf": "a=1\nb=2"}, "binaryData": {"bin": "AAE="}},
                  reveal=False)
    assert cm[0][1] == ("conf", "7", "a=1…")
    assert cm[1][1][2].plain == "<binary, 2 bytes>"  # type: ignore[union-attr]


def test_the_view_lists_configmaps_and_secrets_with_their_pods(client: HTTPClient):
    client.create({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "settings", "namespace": "default"},
                   "data": {"mode": "fast"}})
    client.create({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "db", "namespace": "default"},
                   "stringData": {"password": "hunter2"}})
    user = pod("user")
    user["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "settings"}}]
    user["spec"]["volumes"] = [{"name": "db", "secret": {"secretName": "db"}}]
    client.create(user)

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("8")
        assert app.active_view.id == "config"
        view = app.view("config")
        assert isinstance(view, ConfigView)

        def row(key: str) -> list[str]:
            return next(r for k, r in zip(view.upper.keys, view.upper.plain_rows(),
                                          strict=True) if k == key)

        wanted = {"configmaps/default/settings", "secrets/default/db"}
        await until(pilot, lambda: wanted <= set(view.upper.keys), "the ConfigMap and Secret")
        await until(pilot, lambda: row("secrets/default/db")[6] == "user", "USED BY")
        assert row("configmaps/default/settings")[:6][0:5] == [
            "ConfigMap", "default", "settings", "-", "1"]
        assert row("secrets/default/db")[:5] == ["Secret", "default", "db", "Opaque", "1"]
        assert row("configmaps/default/settings")[6] == "user"
        # kube-root-ca.crt is in every namespace and used by the pod's token volume.
        assert "configmaps/default/kube-root-ca.crt" in view.upper.keys

        assert view.upper.select_key("secrets/default/db")
        view.focus_main()
        await until(pilot, lambda: view.lower.plain_rows() == [
            ["password", "7", "<hidden, 7 bytes>"]], "the hidden value")
        await pilot.press("v")
        await until(pilot, lambda: view.lower.plain_rows() == [["password", "7", "hunter2"]],
                    "the revealed value")
        assert "values shown" in str(app.query_one("#config-keys-summary").render())
        await pilot.press("v")
        await until(pilot, lambda: view.lower.plain_rows()[0][2] == "<hidden, 7 bytes>",
                    "hidden again")
        selected = view.selection()
        assert selected is not None and (selected.resource, selected.name) == ("secrets", "db")

    run_app(client, scenario)
