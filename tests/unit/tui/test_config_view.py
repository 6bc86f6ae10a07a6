"""The Config view: ConfigMaps and Secrets with the pods that use them, their
keys below, Secret values hidden until asked for.

A Pilot test against a real control plane on hollow nodes; the pure helpers
table-driven (which pods refer to what is tests/unit/test_podrefs.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from tests.waiting import until
from tui.app import DashboardApp
from tui.views.config import ConfigView, key_rows, used_by_cell, value_cell

from .cluster import client, plane, pod, run_app

__all__ = ["client", "plane"]  # fixtures used by name

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("pods, cell", [
    ([], "-"), (["b", "a"], "a, b"), (["d", "c", "b", "a"], "a, b, c +1"),
    (["a", "a"], "a"),
    # Only as many names as fit in 36 characters, but always the first one.
    (["a" * 30, "b" * 10], "a" * 30 + " +1"), (["x" * 50], "x" * 50),
    (["api-5f6b8c-klmno", "init-demo", "web-7d9c5b-fghij"], "api-5f6b8c-klmno, init-demo +1"),
])
def test_used_by_cell(pods: list[str], cell: str):
    assert used_by_cell(pods) == cell


@pytest.mark.parametrize("value, cell", [
    ("", ""), ("one", "one"), ("a=1\nb=2", "a=1 ⏎ b=2"),
    ("1\n2\n3\n4\n5", "1 ⏎ 2 ⏎ 3 …"), ("x" * 45 + "\ny", "x" * 40 + "… ⏎ y"),
])
def test_value_cell(value: str, cell: str):
    assert value_cell(value) == cell


def plain(cells: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(c.plain if isinstance(c, Text) else c for c in cells)


def test_secret_values_are_hidden_unless_revealed():
    secret = {"data": {"password": "aHVudGVyMg==", "user": "YWRtaW4=", "blob": "/wA="}}
    hidden = key_rows("secrets", secret, reveal=False)
    assert [plain(r[1]) for r in hidden] == [
        ("blob", "2", "<hidden, 2 bytes>"), ("password", "7", "<hidden, 7 bytes>"),
        ("user", "5", "<hidden, 5 bytes>")]
    assert [r[0] for r in hidden] == ["blob", "password", "user"]
    shown = key_rows("secrets", secret, reveal=True)
    assert [plain(r[1]) for r in shown] == [
        ("blob", "2", "<binary, 2 bytes>"), ("password", "7", "hunter2"), ("user", "5", "admin")]


def test_configmap_values_are_shown_a_few_lines_each():
    cm = {"data": {"conf": "a=1\nb=2\nc=3\nd=4", "mode": "fast", "utf": "é"},
          "binaryData": {"bin": "AAE="}}
    rows = key_rows("configmaps", cm, reveal=False)
    assert [plain(r[1]) for r in rows] == [
        ("conf", "15", "a=1 ⏎ b=2 ⏎ c=3 …"), ("mode", "4", "fast"), ("utf", "2", "é"),
        ("bin", "2", "<binary, 2 bytes>")]
    assert key_rows("configmaps", cm, reveal=True) == rows


def test_the_view_lists_configmaps_and_secrets_with_their_pods(client: HTTPClient):
    client.create({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "settings", "namespace": "default"},
                   "data": {"mode": "fast", "conf": "a=1\nb=2"}})
    client.create({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "unused", "namespace": "default"}, "data": {"k": "v"}})
    client.create({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "db", "namespace": "default"},
                   "stringData": {"password": "hunter2"}})
    client.create({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
                   "metadata": {"name": "registry", "namespace": "default"},
                   "stringData": {".dockerconfigjson": '{"auths": {}}'}})
    user = pod("user")
    user["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "settings"}}]
    user["spec"]["volumes"] = [{"name": "db", "secret": {"secretName": "db"}}]
    client.create(user)
    for name in ("w1", "w2", "w3", "w4"):
        other = pod(name)
        other["spec"]["containers"][0]["env"] = [
            {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]
        other["spec"]["imagePullSecrets"] = [{"name": "registry"}]
        client.create(other)

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("8")
        assert app.active_view.id == "config"
        view = app.view("config")
        assert isinstance(view, ConfigView)

        def row(key: str) -> list[str]:
            return next(r for k, r in zip(view.upper.keys, view.upper.plain_rows(),
                                          strict=True) if k == key)

        wanted = {"configmaps/default/settings", "configmaps/default/unused",
                  "secrets/default/db", "secrets/default/registry"}
        await until(pilot, lambda: wanted <= set(view.upper.keys), "the ConfigMaps and Secrets")
        await until(pilot, lambda: row("secrets/default/registry")[6].endswith("+1"), "USED BY")
        assert row("configmaps/default/settings")[:5] + row("configmaps/default/settings")[6:] \
            == ["ConfigMap", "default", "settings", "-", "2", "user"]
        assert row("configmaps/default/unused")[6] == "-"
        assert row("secrets/default/db")[:5] == ["Secret", "default", "db", "Opaque", "1"]
        assert row("secrets/default/db")[6] == "user, w1, w2 +2"
        assert row("secrets/default/registry")[:5] == [
            "Secret", "default", "registry", "kubernetes.io/dockerconfigjson", "1"]
        assert row("secrets/default/registry")[6] == "w1, w2, w3 +1"
        # kube-root-ca.crt is in every namespace, used by every pod's token volume.
        assert row("configmaps/default/kube-root-ca.crt")[6].startswith("user, w1, w2 +")
        # ConfigMaps first, then Secrets, each by namespace and name.
        kinds = [k.split("/")[0] for k in view.upper.keys]
        assert kinds == sorted(kinds)

        assert view.upper.select_key("configmaps/default/settings")
        await until(pilot, lambda: view.lower.plain_rows() == [
            ["conf", "7", "a=1 ⏎ b=2"], ["mode", "4", "fast"]], "the ConfigMap's values")

        assert view.upper.select_key("secrets/default/db")
        view.focus_main()
        summary = app.query_one("#config-keys-summary")
        await until(pilot, lambda: view.lower.plain_rows() == [
            ["password", "7", "<hidden, 7 bytes>"]], "the hidden value")
        assert "values hidden" in str(summary.render())
        await pilot.press("v")
        await until(pilot, lambda: view.lower.plain_rows() == [["password", "7", "hunter2"]],
                    "the revealed value")
        assert "values shown" in str(summary.render())
        # Revealing is per Secret: another one stays hidden.
        assert view.upper.select_key("secrets/default/registry")
        await until(pilot, lambda: view.lower.plain_rows() == [
            [".dockerconfigjson", "13", "<hidden, 13 bytes>"]], "the other Secret hidden")
        assert view.upper.select_key("secrets/default/db")
        await until(pilot, lambda: view.lower.plain_rows()[0][2] == "hunter2", "still revealed")
        await pilot.press("v")
        await until(pilot, lambda: view.lower.plain_rows()[0][2] == "<hidden, 7 bytes>",
                    "hidden again")
        selected = view.selection()
        assert selected is not None and (selected.resource, selected.name) == ("secrets", "db")

    run_app(client, scenario)
