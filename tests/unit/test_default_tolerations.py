"""DefaultTolerationSeconds admission (``plugin/pkg/admission/defaulttolerationseconds``):
every pod that does not already tolerate ``node.kubernetes.io/not-ready:NoExecute`` /
``node.kubernetes.io/unreachable:NoExecute`` gets a bounded toleration for it, so the
taint manager evicts it ``tolerationSeconds`` after its node is lost instead of at once.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.store.registry import DEFAULT_TOLERATION_SECONDS, Registry
from minikube_py.store.store import Store

NOW = 1_800_000_000.0
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def default(key: str, seconds: int = DEFAULT_TOLERATION_SECONDS) -> dict[str, Any]:
    """The toleration the plugin appends, field for field as Kubernetes serialises it."""
    return {"key": key, "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": seconds}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "s", clock=lambda: NOW)
    yield s
    s.close()


def make_registry(store: Store, **kw: Any) -> Registry:
    counter = itertools.count(1)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: f"uid-{next(counter)}", **kw)
    reg.ensure_system_namespaces()
    return reg


@pytest.fixture
def registry(store: Store) -> Registry:
    return make_registry(store)


def pod(name: str = "web", tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox:1.36"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


# (case, tolerations given, tolerations stored). The plugin's rule: a toleration with
# the taint's key or an empty key, and effect NoExecute or empty, counts as "already
# tolerates" whatever its operator, value or tolerationSeconds.
CASES: list[tuple[str, list[dict[str, Any]] | None, list[dict[str, Any]]]] = [
    ("none given", None, [default(NOT_READY), default(UNREACHABLE)]),
    ("empty list", [], [default(NOT_READY), default(UNREACHABLE)]),
    ("unrelated toleration kept first",
     [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
     [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
      default(NOT_READY), default(UNREACHABLE)]),
    ("not-ready NoExecute forever: only unreachable added",
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute"}],
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute"},
      default(UNREACHABLE)]),
    ("unreachable with its own seconds: only not-ready added",
     [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 10}],
     [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 10}, default(NOT_READY)]),
    ("key with an empty effect tolerates every effect",
     [{"key": UNREACHABLE, "operator": "Exists"}],
     [{"key": UNREACHABLE, "operator": "Exists"}, default(NOT_READY)]),
    ("NoSchedule for the key is not NoExecute",
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoSchedule"}],
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoSchedule"},
      default(NOT_READY), default(UNREACHABLE)]),
    ("empty key, NoExecute: tolerates both",
     [{"operator": "Exists", "effect": "NoExecute"}],
     [{"operator": "Exists", "effect": "NoExecute"}]),
    ("empty key, empty effect: tolerates everything",
     [{"operator": "Exists"}], [{"operator": "Exists"}]),
    ("empty key, NoSchedule: tolerates neither",
     [{"operator": "Exists", "effect": "NoSchedule"}],
     [{"operator": "Exists", "effect": "NoSchedule"},
      default(NOT_READY), default(UNREACHABLE)]),
    ("operator Equal with a value still counts (the plugin ignores operator and value)",
     [{"key": NOT_READY, "operator": "Equal", "value": "x", "effect": "NoExecute"}],
     [{"key": NOT_READY, "operator": "Equal", "value": "x", "effect": "NoExecute"},
      default(UNREACHABLE)]),
    ("both present: nothing added",
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 1},
      {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 2}],
     [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 1},
      {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 2}]),
]


@pytest.mark.parametrize(("given", "stored"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_create_appends_the_missing_default_tolerations(
        registry: Registry, given: list[dict[str, Any]] | None,
        stored: list[dict[str, Any]]) -> None:
    obj = pod(tolerations=given)
    before = copy.deepcopy(obj)
    created = registry.create(obj)
    assert created["spec"]["tolerations"] == stored
    assert registry.store.get("pods", "default", "web")["spec"]["tolerations"] == stored
    assert obj == before  # the registry never mutates its input


@pytest.mark.parametrize("seconds", [0, 60, 3600])
def test_the_seconds_are_configurable(store: Store, seconds: int) -> None:
    created = make_registry(store, default_toleration_seconds=seconds).create(pod())
    assert created["spec"]["tolerations"] == [default(NOT_READY, seconds),
                                             default(UNREACHABLE, seconds)]


def test_default_is_300_seconds() -> None:
    assert DEFAULT_TOLERATION_SECONDS == 300


def test_none_turns_the_plugin_off(store: Store) -> None:
    created = make_registry(store, default_toleration_seconds=None).create(pod())
    assert "tolerations" not in created["spec"]


def test_dry_run_shows_the_defaults_without_storing(registry: Registry) -> None:
    shown = registry.create(pod(), dry_run=True)
    assert shown["spec"]["tolerations"] == [default(NOT_READY), default(UNREACHABLE)]
    assert registry.store.list("pods").items == []


def test_pod_templates_are_left_alone(registry: Registry) -> None:
    """Admission is for pods; the pods a Deployment's ReplicaSet creates get it then."""
    created = registry.create({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c",
                                                       "image": "busybox:1.36"}]}}}})
    assert "tolerations" not in created["spec"]["template"]["spec"]


def test_update_of_the_pod_adds_them_but_a_status_update_does_not(store: Store) -> None:
    """The plugin runs on Create and Update of pods proper, never on subresources."""
    registry = make_registry(store, default_toleration_seconds=None)
    created = registry.create(pod(tolerations=[{"key": "gpu", "operator": "Exists"}]))
    assert created["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
    registry.default_toleration_seconds = 120  # the plugin enabled on a running cluster

    status = copy.deepcopy(created)
    status["status"]["phase"] = "Running"
    after_status = registry.update(status, subresource="status")
    assert after_status["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists"}]

    after_update = registry.update(copy.deepcopy(after_status))
    assert after_update["spec"]["tolerations"] == [
        {"key": "gpu", "operator": "Exists"}, default(NOT_READY, 120),
        default(UNREACHABLE, 120)]


def test_an_update_that_keeps_the_defaults_adds_nothing_more(registry: Registry) -> None:
    created = registry.create(pod())
    again = registry.update(copy.deepcopy(created))
    assert again["spec"]["tolerations"] == [default(NOT_READY), default(UNREACHABLE)]
