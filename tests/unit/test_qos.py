"""Pod QoS classes, table-driven from Kubernetes' documented rules (pod-qos docs)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.qos import qos_class


def pod(*containers: dict[str, Any], init: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}", "resources": r}
                                           for i, r in enumerate(containers)]}
    if init:
        spec["initContainers"] = [{"name": f"i{i}", "resources": r} for i, r in enumerate(init)]
    return {"spec": spec}


G = {"requests": {"cpu": "500m", "memory": "64Mi"}, "limits": {"cpu": "0.5", "memory": "64Mi"}}


@pytest.mark.parametrize("obj, expected", [
    (pod({}), "BestEffort"),
    (pod({"requests": {"ephemeral-storage": "1Gi"}}), "BestEffort"),  # only cpu/memory count
    (pod({"requests": {"cpu": "0"}}), "BestEffort"),                     # zero counts as unset
    (pod(G), "Guaranteed"),
    (pod(G, G), "Guaranteed"),
    (pod({"limits": {"cpu": "1", "memory": "1Gi"},
          "requests": {"cpu": "1", "memory": "1Gi"}}), "Guaranteed"),
    (pod({"requests": {"cpu": "100m"}}), "Burstable"),
    (pod({"limits": {"memory": "1Gi"}, "requests": {"memory": "1Gi"}}), "Burstable"),
    (pod({"requests": {"cpu": "250m", "memory": "64Mi"},
          "limits": {"cpu": "500m", "memory": "64Mi"}}), "Burstable"),
    (pod(G, {}), "Burstable"),                      # one container without limits
    (pod(G, init=({},)), "Burstable"),              # init containers count too
    (pod({}, init=({"requests": {"memory": "1Mi"}},)), "Burstable"),
])
def test_qos_class(obj: dict[str, Any], expected: str):
    assert qos_class(obj) == expected
