"""The ConfigMaps and Secrets a pod refers to (minikube_py.api.podrefs)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.podrefs import CONFIGMAPS, SECRETS, pod_references

CM, S = CONFIGMAPS, SECRETS


def env(**refs: str) -> list[dict[str, Any]]:
    """``env`` entries: ``cm=NAME`` a configMapKeyRef, ``s=NAME`` a secretKeyRef."""
    kinds = {"cm": "configMapKeyRef", "s": "secretKeyRef"}
    return [{"name": f"V{i}", "valueFrom": {kinds[k.rstrip("0123456789")]: {"name": v, "key": "k"}}}
            for i, (k, v) in enumerate(refs.items())]


CASES: list[tuple[str, dict[str, Any], set[tuple[str, str]]]] = [
    ("nothing", {"containers": [{"name": "c", "image": "x"}]}, set()),
    ("no spec at all", {}, set()),
    ("env valueFrom",
     {"containers": [{"name": "c", "env": [*env(cm="cm-a", s="s-a"),
                                           {"name": "PLAIN", "value": "x"}]}]},
     {(CM, "cm-a"), (S, "s-a")}),
    ("envFrom", {"containers": [{"name": "c", "envFrom": [
        {"configMapRef": {"name": "cm-b"}, "prefix": "P_"}, {"secretRef": {"name": "s-b"}}]}]},
     {(CM, "cm-b"), (S, "s-b")}),
    ("init containers",
     {"initContainers": [{"name": "i", "env": env(s="init-s")}],
      "containers": [{"name": "c"}]},
     {(S, "init-s")}),
    ("ephemeral containers",
     {"containers": [{"name": "c"}],
      "ephemeralContainers": [{"name": "dbg", "envFrom": [{"configMapRef": {"name": "dbg"}}]}]},
     {(CM, "dbg")}),
    ("volumes", {"containers": [{"name": "c"}], "volumes": [
        {"name": "v1", "configMap": {"name": "vol-cm", "optional": True}},
        {"name": "v2", "secret": {"secretName": "vol-s"}},
        {"name": "v3", "emptyDir": {}}]},
     {(CM, "vol-cm"), (S, "vol-s")}),
    ("projected sources", {"containers": [{"name": "c"}], "volumes": [
        {"name": "p", "projected": {"sources": [
            {"configMap": {"name": "p-cm"}}, {"secret": {"name": "p-s"}},
            {"serviceAccountToken": {"path": "token"}}, {"downwardAPI": {"items": []}}]}}]},
     {(CM, "p-cm"), (S, "p-s")}),
    ("imagePullSecrets",
     {"containers": [{"name": "c"}], "imagePullSecrets": [{"name": "registry"}, {}]},
     {(S, "registry")}),
    ("a name used twice counts once",
     {"containers": [{"name": "a", "env": env(cm="same")},
                     {"name": "b", "envFrom": [{"configMapRef": {"name": "same"}}]}],
      "volumes": [{"name": "v", "configMap": {"name": "same"}}]},
     {(CM, "same")}),
    ("same name, both kinds",
     {"containers": [{"name": "c", "env": env(cm="app", s="app")}]},
     {(CM, "app"), (S, "app")}),
    ("secret volume names its Secret in secretName, not name",
     {"containers": [{"name": "c"}], "volumes": [{"name": "v", "secret": {"name": "wrong"}}]},
     set()),
    ("malformed pieces are skipped", {
        "containers": [None, "x", {"name": "c", "env": [None, {"valueFrom": None},
                                                       {"valueFrom": {"secretKeyRef": "s"}}],
                                    "envFrom": "nope"}],
        "volumes": [{"name": "v", "configMap": {"name": ""}}, {"projected": {"sources": None}}],
        "imagePullSecrets": [{"name": 3}]},
     set()),
]


@pytest.mark.parametrize("spec, refs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_references(spec: dict[str, Any], refs: set[tuple[str, str]]):
    assert pod_references({"spec": spec}) == refs


def test_a_pod_without_a_spec_refers_to_nothing():
    assert pod_references({"metadata": {"name": "p"}}) == frozenset()
