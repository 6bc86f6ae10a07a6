"""Volume types and projections the kubelet cannot provide are refused when a
pod or a pod template is written, in Kubernetes' field-error words, never
accepted and skipped (api/validation_volumes.py); those it provides pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Invalid
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

SUPPORTED = "configMap, downwardAPI, emptyDir, hostPath, projected, secret"
PROJECTIONS = "configMap, downwardAPI, secret, serviceAccountToken"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "s")
    reg = Registry(store)
    reg.ensure_system_namespaces()
    yield reg
    store.close()


def pod(volumes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}],
                     "volumes": volumes}}


def deployment(volumes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}},
                                  "spec": pod(volumes)["spec"]}}}


def unsupported(path: str, kind: str) -> str:
    return (f"{path}.{kind}: Forbidden: {kind} volumes are not supported by minikube-py "
            f"(supported: {SUPPORTED})")


@pytest.mark.parametrize(("volume", "field"), [
    ({"persistentVolumeClaim": {"claimName": "data"}}, "persistentVolumeClaim"),
    ({"nfs": {"server": "nfs.example.com", "path": "/exports"}}, "nfs"),
    ({"csi": {"driver": "inline.example.com"}}, "csi"),
    ({"ephemeral": {"volumeClaimTemplate": {"spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
     "ephemeral"),
    ({"gitRepo": {"repository": "https://example.com/r.git"}}, "gitRepo"),
    ({"iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": "iqn.2001-04.com.example:x",
                "lun": 0}}, "iscsi"),
    ({"cephfs": {"monitors": ["1.2.3.4"]}}, "cephfs"),
    ({"image": {"reference": "busybox:1.36"}}, "image"),
    ({"fc": {"wwids": ["x"]}}, "fc"),
])
@pytest.mark.parametrize(("make", "kind", "path"), [
    (pod, "Pod", "spec.volumes[0]"),
    (deployment, "Deployment", "spec.template.spec.volumes[0]"),
])
def test_unsupported_volume_types_are_refused(registry: Registry, volume: dict[str, Any],
                                              field: str, make: Any, kind: str, path: str):
    with pytest.raises(Invalid) as err:
        registry.create(make([{"name": "data", **volume}]))
    assert unsupported(path, field) in str(err.value)
    assert str(err.value).startswith(f'{kind}.apps "d" is invalid: ' if kind == "Deployment"
                                     else 'Pod "p" is invalid: ')
    status = err.value.to_status()
    assert status["code"] == 422
    assert {"reason": "FieldValueForbidden", "field": f"{path}.{field}"} in [
        {k: c[k] for k in ("reason", "field")} for c in status["details"]["causes"]]


def test_a_cluster_trust_bundle_projection_is_refused(registry: Registry):
    with pytest.raises(Invalid) as err:
        registry.create(pod([{"name": "bundle", "projected": {"sources": [
            {"configMap": {"name": "c"}},
            {"clusterTrustBundle": {"name": "b", "path": "ca.crt"}}]}}]))
    assert ("spec.volumes[0].projected.sources[1].clusterTrustBundle: Forbidden: "
            "clusterTrustBundle projections are not supported by minikube-py "
            f"(supported: {PROJECTIONS})") in str(err.value)


def test_only_the_first_of_several_types_is_named_unsupported(registry: Registry):
    with pytest.raises(Invalid) as err:
        registry.create(pod([{"name": "v", "emptyDir": {}, "nfs": {"server": "s", "path": "/"}}]))
    text = str(err.value)
    assert "spec.volumes[0].nfs: Forbidden: may not specify more than 1 volume type" in text
    assert "not supported by minikube-py" not in text


def test_supported_volumes_are_accepted(registry: Registry):
    created = registry.create(pod([
        {"name": "scratch", "emptyDir": {"medium": "Memory"}},
        {"name": "cfg", "configMap": {"name": "c", "optional": True,
                                      "items": [{"key": "k", "path": "k", "mode": 0o400}]}},
        {"name": "sec", "secret": {"secretName": "s", "defaultMode": 0o400}},
        {"name": "info", "downwardAPI": {"items": [
            {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
        {"name": "all", "projected": {"sources": [
            {"configMap": {"name": "c"}}, {"secret": {"name": "s"}},
            {"downwardAPI": {"items": [{"path": "name", "fieldRef": {
                "fieldPath": "metadata.name"}}]}}]}},
    ]))
    assert [v["name"] for v in created["spec"]["volumes"]] == [
        "scratch", "cfg", "sec", "info", "all"]


def test_the_refusal_is_the_only_error_of_a_mounted_unsupported_volume(registry: Registry):
    p = pod([{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])
    p["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    with pytest.raises(Invalid) as err:
        registry.create(p)
    assert str(err.value) == 'Pod "p" is invalid: ' + unsupported(
        "spec.volumes[0]", "persistentVolumeClaim")
