"""The ServiceAccount admission plugin on a registry (``service_accounts=True``).

Expectations come from ``plugin/pkg/admission/serviceaccount/admission.go``
(Kubernetes v1.32): defaulting ``serviceAccountName``, the existence check and
its message, ``shouldAutomount``, ``mountServiceAccountToken`` and
``TokenVolumeSource``, and the v1 conversion of ``spec.serviceAccount``.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.admission.serviceaccount import (
    TOKEN_MOUNT_PATH,
    ServiceAccountAdmission,
    token_volume_source,
)
from minikube_py.api.errors import Forbidden, Invalid, NotFound
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

VOLUME = "kube-api-access-abcde"
MOUNT = {"name": VOLUME, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}
PROJECTED = {"defaultMode": 420, "sources": [
    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
        "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []
        self.hook: Any = None

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        if self.hook is not None:
            self.hook()


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "state")
    reg = Registry(store, service_accounts=True)
    reg.ensure_system_namespaces()
    plugin = reg.admission.service_accounts
    assert plugin is not None
    plugin.volume_name = lambda: VOLUME
    plugin.sleep = Sleeps()
    plugin.interval = lambda: 0.15
    yield reg
    store.close()


def plugin_of(reg: Registry) -> ServiceAccountAdmission:
    assert reg.admission.service_accounts is not None
    return reg.admission.service_accounts


def sa(name: str = "default", namespace: str = "default", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": name, "namespace": namespace}, **fields}


def pod(name: str = "web", namespace: str = "default", **spec: Any) -> dict[str, Any]:
    spec.setdefault("containers", [{"name": "c", "image": "busybox:1.36"}])
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def test_volume_source_is_kubernetes_token_volume_source():
    assert token_volume_source() == PROJECTED


def test_default_account_and_token_volume(registry):
    registry.create(sa())
    spec = registry.create(pod())["spec"]
    assert spec["serviceAccountName"] == spec["serviceAccount"] == "default"
    assert spec["volumes"] == [{"name": VOLUME, "projected": PROJECTED}]
    assert spec["containers"][0]["volumeMounts"] == [MOUNT]


def test_volume_name_is_five_characters_of_kubernetes_alphabet(registry):
    registry.create(sa())
    plugin_of(registry).volume_name = ServiceAccountAdmission(registry.store).volume_name
    names = {registry.create(pod(f"p{i}"))["spec"]["volumes"][0]["name"] for i in range(20)}
    assert all(re.fullmatch(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", n)
               for n in names), names
    assert len(names) > 1


@pytest.mark.parametrize(("pod_choice", "sa_choice", "mounted"), [
    (None, None, True),
    (None, True, True),
    (None, False, False),
    (True, False, True),      # the pod's preference wins
    (False, True, False),
    (False, None, False),
])
def test_automount_pod_wins_over_account(registry, pod_choice, sa_choice, mounted):
    fields = {} if sa_choice is None else {"automountServiceAccountToken": sa_choice}
    registry.create(sa("robot", **fields))
    spec_fields: dict[str, Any] = {"serviceAccountName": "robot"}
    if pod_choice is not None:
        spec_fields["automountServiceAccountToken"] = pod_choice
    spec = registry.create(pod(**spec_fields))["spec"]
    assert ("volumes" in spec) is mounted
    assert ("volumeMounts" in spec["containers"][0]) is mounted


def test_switch_off_mounts_nothing_but_still_checks_the_account(registry):
    plugin_of(registry).mount_token = False
    with pytest.raises(Forbidden):
        registry.create(pod(serviceAccountName="ghost"))
    registry.create(sa())
    spec = registry.create(pod())["spec"]
    assert spec["serviceAccountName"] == "default"
    assert "volumes" not in spec and "volumeMounts" not in spec["containers"][0]


@pytest.mark.parametrize(("containers", "init", "want_mounts", "want_volume"), [
    # every container and init container gets the mount
    ([{"name": "a"}, {"name": "b"}], [{"name": "i"}], ([MOUNT], [MOUNT], [MOUNT]), True),
    # one already mounting something at the path keeps it; the others get ours
    ([{"name": "a", "volumeMounts": [{"name": "mine", "mountPath": TOKEN_MOUNT_PATH}]},
      {"name": "b"}], [],
     ([{"name": "mine", "mountPath": TOKEN_MOUNT_PATH}], [MOUNT]), True),
    # nobody needs it: no volume
    ([{"name": "a", "volumeMounts": [{"name": "mine", "mountPath": TOKEN_MOUNT_PATH}]}], [],
     ([{"name": "mine", "mountPath": TOKEN_MOUNT_PATH}],), False),
])
def test_mounts(registry, containers, init, want_mounts, want_volume):
    registry.create(sa())
    volumes = [{"name": "mine", "emptyDir": {}}]
    for c in [*containers, *init]:
        c["image"] = "busybox:1.36"
    fields: dict[str, Any] = {"containers": containers, "volumes": volumes}
    if init:
        fields["initContainers"] = init
    spec = registry.create(pod(**fields))["spec"]
    got = [c.get("volumeMounts") for c in [*spec.get("initContainers", []),
                                           *spec["containers"]]]
    assert got == list(want_mounts)
    names = [v["name"] for v in spec["volumes"]]
    assert names == (["mine", VOLUME] if want_volume else ["mine"])


def test_existing_kube_api_access_volume_is_reused(registry):
    registry.create(sa())
    own = {"name": "kube-api-access-zzzzz", "emptyDir": {}}
    spec = registry.create(pod(volumes=[own]))["spec"]
    assert [v["name"] for v in spec["volumes"]] == ["kube-api-access-zzzzz"]
    assert spec["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-zzzzz"


@pytest.mark.parametrize(("given", "name", "deprecated"), [
    ({}, "default", "default"),
    ({"serviceAccount": "robot"}, "robot", "robot"),           # deprecated fills the name
    ({"serviceAccountName": "robot"}, "robot", "robot"),       # and mirrors it
    ({"serviceAccountName": "robot", "serviceAccount": "other"}, "robot", "robot"),
])
def test_deprecated_service_account_field(registry, given, name, deprecated):
    registry.create(sa())
    registry.create(sa("robot"))
    spec = registry.create(pod(**given))["spec"]
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == (name, deprecated)


def test_image_pull_secrets_come_from_the_account_unless_the_pod_has_some(registry):
    registry.create(sa(imagePullSecrets=[{"name": "regcred"}]))
    assert registry.create(pod("a"))["spec"]["imagePullSecrets"] == [{"name": "regcred"}]
    own = registry.create(pod("b", imagePullSecrets=[{"name": "mine"}]))["spec"]
    assert own["imagePullSecrets"] == [{"name": "mine"}]


@pytest.mark.parametrize(("account", "tries"), [("default", 10), ("robot", 1)])
def test_missing_account_is_forbidden_with_kubernetes_message(registry, account, tries):
    with pytest.raises(Forbidden) as err:
        registry.create(pod(serviceAccountName=account))
    assert str(err.value) == (f'pods "web" is forbidden: error looking up service account '
                              f'default/{account}: serviceaccount "{account}" not found')
    assert err.value.code == 403
    # the default account is looked up again (its controller may be about to make it)
    assert plugin_of(registry).sleep.calls == [0.15] * (tries - 1)  # type: ignore[attr-defined]
    assert registry.store.list("pods").items == []


def test_generated_names_are_named_by_their_prefix(registry):
    with pytest.raises(Forbidden, match=r'^pods "web-" is forbidden: error looking up'):
        registry.create({**pod(), "metadata": {"generateName": "web-", "namespace": "default"}})


def test_default_account_created_during_the_retries_is_found(registry):
    sleeps = plugin_of(registry).sleep
    assert isinstance(sleeps, Sleeps)
    sleeps.hook = lambda: (len(sleeps.calls) == 3 and registry.create(sa()))
    created = registry.create(pod())
    assert created["spec"]["serviceAccountName"] == "default"
    assert len(sleeps.calls) == 3


def test_namespace_errors_come_first(registry):
    with pytest.raises(NotFound, match='namespaces "nowhere" not found'):
        registry.create(pod(namespace="nowhere"))
    assert plugin_of(registry).sleep.calls == []  # type: ignore[attr-defined]


def test_update_keeps_the_deprecated_field_in_step(registry):
    registry.create(sa())
    stored = registry.create(pod())
    body = copy.deepcopy(stored)
    body["spec"].pop("serviceAccount")
    body["metadata"]["labels"] = {"new": "label"}
    updated = registry.update(body)
    assert updated["spec"]["serviceAccount"] == "default"
    assert updated["spec"]["volumes"] == stored["spec"]["volumes"]


def test_account_name_cannot_change_on_update(registry):
    registry.create(sa())
    registry.create(sa("robot"))
    body = registry.create(pod())
    body["spec"]["serviceAccountName"] = body["spec"]["serviceAccount"] = "robot"
    with pytest.raises(Invalid, match="spec: Forbidden: pod updates may not change fields"):
        registry.update(body)


def test_off_by_default(tmp_path):
    store = Store(tmp_path / "state")
    try:
        reg = Registry(store)
        reg.ensure_system_namespaces()
        assert reg.admission.service_accounts is None
        spec = reg.create(pod())["spec"]
        assert "serviceAccountName" not in spec and "volumes" not in spec
    finally:
        store.close()


def test_concurrent_creates_of_a_pod_and_its_account(registry):
    """The race a user meets: the account appears while the pod is admitted."""
    plugin_of(registry).sleep = lambda s: threading.Event().wait(0.05)
    maker = threading.Timer(0.02, lambda: registry.create(sa()))
    maker.start()
    try:
        assert registry.create(pod())["spec"]["serviceAccountName"] == "default"
    finally:
        maker.join()
