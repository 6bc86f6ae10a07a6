"""An application in a pod reaching the API as on a real cluster: Debian's
python3-kubernetes (the official client) with in-cluster config, its
service account's projected token, the ``kubernetes`` Service and RBAC.

The pod lists the pods of its namespace: 403 in Kubernetes' words while its
service account has no role, the list once it is bound to ``view``; and
``kubectl auth can-i --as`` answers the same."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from minikube_py.runtime.image_pyclient import PYCLIENT_REPO, ensure_python_client_image
from tests.e2e.conftest import Daemon
from tests.hostclean import podman_daemon
from tests.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SA = "system:serviceaccount:default:reader"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    ensure_python_client_image()
    with podman_daemon(tmp_path_factory.mktemp("incluster") / "state") as d:
        d.kubectl("create", "serviceaccount", "reader")
        yield d


def run_client(d: Daemon, name: str) -> tuple[str, str]:
    """Run the image's list_pods.py as ``reader``; (phase, log)."""
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                           "spec": {"serviceAccountName": "reader", "restartPolicy": "Never",
                                    "containers": [{"name": "client",
                                                    "image": f"{PYCLIENT_REPO}:latest",
                                                    "imagePullPolicy": "IfNotPresent"}]}}
    d.kubectl("apply", "-f", "-", input=json.dumps(pod))

    def phase() -> str:
        return str(d.get_json("pod", name).get("status", {}).get("phase", ""))

    wait_for(lambda: phase() in ("Succeeded", "Failed"), f"pod {name} to finish", 120)
    return phase(), d.kubectl("logs", name).stdout


def test_a_pod_lists_pods_only_once_its_service_account_may(daemon: Daemon):
    assert daemon.kubectl("auth", "can-i", "list", "pods", f"--as={SA}",
                          check=False).stdout.strip() == "no"
    phase, log = run_client(daemon, "denied")
    assert phase == "Failed", log
    assert log.splitlines()[0] == "STATUS 403 Forbidden", log
    assert log.splitlines()[1] == (f'pods is forbidden: User "{SA}" cannot list resource '
                                   f'"pods" in API group "" in the namespace "default"')

    daemon.kubectl("create", "rolebinding", "reader-view", "--clusterrole=view",
                   "--serviceaccount=default:reader")
    assert daemon.kubectl("auth", "can-i", "list", "pods", f"--as={SA}").stdout.strip() == "yes"
    assert daemon.kubectl("auth", "can-i", "delete", "pods", f"--as={SA}",
                          check=False).stdout.strip() == "no"
    phase, log = run_client(daemon, "allowed")
    assert phase == "Succeeded", log
    listed = int(log.split("LISTED", 1)[1])
    assert listed == len(daemon.get_json("pods")["items"])  # "denied" and "allowed"
