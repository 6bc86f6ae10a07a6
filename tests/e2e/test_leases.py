"""Lease (coordination.k8s.io/v1), added by following docs/adding-a-kind.md:
the real kubectl, the official Python client and minikube-py's CLI against a
running daemon.

Discovery, CRUD, watch, label and field selectors, the server's table
(``NAME HOLDER AGE``), validation refusals worded as Kubernetes words them, and
``describe`` (kubectl's generic describer must print what ``minikube-py
describe`` prints).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kubernetes import client, config, watch

from tests.waiting import wait_for

from .conftest import Daemon, Lines, start_daemon, stop_daemon

pytestmark = pytest.mark.e2e

NODE_LEASES = "kube-node-lease"


def manifest(name: str, namespace: str = NODE_LEASES, holder: str | None = "node-a",
             extra: str = "") -> str:
    spec = f"  holderIdentity: {holder}\n" if holder is not None else ""
    return (f"apiVersion: coordination.k8s.io/v1\nkind: Lease\n"
            f"metadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n{spec}  leaseDurationSeconds: 40\n{extra}")


@pytest.fixture(scope="module")
def coordination(daemon: Daemon) -> Iterator[client.CoordinationV1Api]:
    api = config.new_client_from_config(config_file=str(daemon.kubeconfig))
    try:
        yield client.CoordinationV1Api(api)
    finally:
        api.close()


def test_discovery_and_the_node_lease_namespace(daemon: Daemon):
    resources = daemon.kubectl("api-resources", "--api-group=coordination.k8s.io",
                               "--no-headers").stdout.split()
    assert resources == ["leases", "coordination.k8s.io/v1", "true", "Lease"]
    assert "coordination.k8s.io/v1" in daemon.kubectl("api-versions").stdout.split()
    ns = daemon.get_json("namespace", NODE_LEASES)
    assert ns["status"]["phase"] == "Active"


def test_kubectl_get_leases_in_kube_node_lease(daemon: Daemon):
    daemon.kubectl("apply", "-f", "-", input=manifest("node-a"))
    daemon.kubectl("apply", "-f", "-", input=manifest("unheld", holder=None))
    rows = daemon.kubectl("get", "leases", "-n", NODE_LEASES).stdout.splitlines()
    assert rows[0].split() == ["NAME", "HOLDER", "AGE"]
    cells = {line.split()[0]: line for line in rows[1:]}
    assert cells["node-a"].split()[:2] == ["node-a", "node-a"]
    # No holder: an empty HOLDER cell, then the AGE.
    holder_at = rows[0].index("HOLDER")
    assert len(cells["unheld"].split()) == 2
    assert cells["unheld"][holder_at:holder_at + len("HOLDER")].strip() == ""
    lease = daemon.get_json("lease", "node-a", "-n", NODE_LEASES)
    assert lease["spec"] == {"holderIdentity": "node-a", "leaseDurationSeconds": 40}
    assert "generation" not in lease["metadata"] and "status" not in lease
    names = daemon.kubectl("get", "leases.coordination.k8s.io", "-n", NODE_LEASES,
                           "-o", "name").stdout.split()
    assert {"lease.coordination.k8s.io/node-a", "lease.coordination.k8s.io/unheld"} <= set(
        names)
    daemon.kubectl("delete", "lease", "unheld", "-n", NODE_LEASES)
    assert daemon.kubectl("get", "lease", "unheld", "-n", NODE_LEASES,
                          check=False).returncode == 1


def test_kubectl_refuses_what_kubernetes_refuses(daemon: Daemon):
    bad = daemon.kubectl("apply", "-f", "-", check=False, input=manifest(
        "bad", extra="  leaseTransitions: -1\n").replace("leaseDurationSeconds: 40",
                                                          "leaseDurationSeconds: 0"))
    assert bad.returncode == 1
    assert ('The Lease "bad" is invalid: \n'
            "* spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0\n"
            "* spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"
            ) in bad.stderr
    assert daemon.kubectl("get", "lease", "bad", "-n", NODE_LEASES,
                          check=False).returncode == 1
    daemon.kubectl("apply", "-f", "-", input=manifest("patched"))
    shrunk = daemon.kubectl("patch", "lease", "patched", "-n", NODE_LEASES, "--type=merge",
                            "-p", '{"spec": {"leaseDurationSeconds": -3}}', check=False)
    assert shrunk.returncode == 1
    assert ('The Lease "patched" is invalid: spec.leaseDurationSeconds: Invalid value: -3: '
            "must be greater than 0") in shrunk.stderr
    # CoordinatedLeaderElection is off (1.32's default): the gated fields are dropped.
    gated = daemon.kubectl("apply", "-f", "-", input=manifest(
        "gated", extra="  strategy: OldestEmulationVersion\n  preferredHolder: node-b\n"))
    assert gated.returncode == 0
    assert daemon.get_json("lease", "gated", "-n", NODE_LEASES)["spec"] == {
        "holderIdentity": "node-a", "leaseDurationSeconds": 40}


def test_kubectl_describe_prints_what_minikube_py_describe_prints(daemon: Daemon):
    daemon.kubectl("apply", "-f", "-", input=manifest(
        "described", namespace="default",
        extra="  leaseTransitions: 2\n  renewTime: \"2027-01-15T07:59:00.123456Z\"\n"))
    daemon.kubectl("label", "lease", "described", "tier=control")
    theirs = daemon.kubectl("describe", "lease", "described").stdout
    ours = daemon.cli("describe", "lease", "described").stdout
    assert ours == theirs
    assert "Holder Identity:         node-a\n" in ours
    assert "Lease Transitions:       2\n" in ours and "Labels:       tier=control\n" in ours
    node = daemon.kubectl("describe", "lease", "node-a", "-n", NODE_LEASES).stdout
    assert node == daemon.cli("describe", "lease", "node-a", "-n", NODE_LEASES).stdout


def test_kubectl_watch_and_selectors(daemon: Daemon):
    daemon.kubectl("apply", "-f", "-", input=manifest("watch-anchor", namespace="default"))
    daemon.kubectl("label", "lease", "watch-anchor", "watched=yes")
    watcher = subprocess.Popen(
        ["kubectl", "--cache-dir", str(daemon.state / "kubectl-cache"), "get", "leases",
         "-l", "watched=yes", "-w", "--request-timeout=20s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert watcher.stdout is not None and watcher.stderr is not None
    out = Lines(watcher.stdout)
    Lines(watcher.stderr)
    try:
        wait_for(lambda: out.starting("watch-anchor"), "the watcher's first row", timeout=30)
        daemon.kubectl("apply", "-f", "-", input=manifest("watched-later", namespace="default",
                                                          holder="node-z"))
        daemon.kubectl("label", "lease", "watched-later", "watched=yes")
        rows = wait_for(lambda: out.starting("watched-later"), "a row for the new Lease",
                        timeout=30)
        assert rows[0].split()[:2] == ["watched-later", "node-z"]
    finally:
        watcher.kill()
        watcher.wait()
    names = daemon.kubectl("get", "leases", "-l", "watched=yes", "-o", "name").stdout.split()
    assert names == ["lease.coordination.k8s.io/watch-anchor",
                     "lease.coordination.k8s.io/watched-later"]
    by_field = daemon.kubectl("get", "leases", "-A", "--field-selector",
                              "metadata.name=watch-anchor", "-o", "name").stdout.split()
    assert by_field == ["lease.coordination.k8s.io/watch-anchor"]
    unsupported = daemon.kubectl("get", "leases", "--field-selector",
                                 "spec.holderIdentity=node-z", check=False)
    assert unsupported.returncode == 1
    assert "field label not supported: spec.holderIdentity" in unsupported.stderr
    daemon.kubectl("delete", "lease", "watched-later")
    assert daemon.kubectl("get", "lease", "watched-later", check=False).returncode == 1


def test_official_client_crud_list_and_watch(coordination: client.CoordinationV1Api):
    renewed = datetime(2027, 1, 15, 7, 59, 0, 123456, tzinfo=UTC)
    body = client.V1Lease(
        metadata=client.V1ObjectMeta(name="py-lease", labels={"owner": "py"}),
        spec=client.V1LeaseSpec(holder_identity="py-holder", lease_duration_seconds=15,
                                renew_time=renewed, lease_transitions=0))
    made = coordination.create_namespaced_lease("default", body)
    assert made.spec.holder_identity == "py-holder" and made.spec.lease_duration_seconds == 15
    assert made.spec.renew_time == renewed
    listed = coordination.list_namespaced_lease("default", label_selector="owner=py")
    assert [item.metadata.name for item in listed.items] == ["py-lease"]
    read = coordination.read_namespaced_lease("py-lease", "default")
    assert read.metadata.uid == made.metadata.uid
    read.spec.holder_identity = "py-other"
    read.spec.lease_transitions = 1
    replaced = coordination.replace_namespaced_lease("py-lease", "default", read)
    assert (replaced.spec.holder_identity, replaced.spec.lease_transitions) == ("py-other", 1)
    coordination.patch_namespaced_lease("py-lease", "default",
                                        {"spec": {"leaseDurationSeconds": 30}})
    after = coordination.read_namespaced_lease("py-lease", "default")
    assert (after.spec.holder_identity, after.spec.lease_duration_seconds) == ("py-other", 30)
    seen = []
    stream = watch.Watch()
    for ev in stream.stream(coordination.list_namespaced_lease, "default",
                            label_selector="owner=py",
                            resource_version=listed.metadata.resource_version,
                            timeout_seconds=10):
        seen.append((ev["type"], ev["object"].spec.holder_identity,
                     ev["object"].spec.lease_duration_seconds))
        if len(seen) == 2:
            stream.stop()
    assert seen == [("MODIFIED", "py-other", 15), ("MODIFIED", "py-other", 30)]
    with pytest.raises(client.ApiException) as err:
        coordination.patch_namespaced_lease("py-lease", "default",
                                            {"spec": {"leaseTransitions": -1}})
    assert err.value.status == 422
    assert ("spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"
            in err.value.body)
    coordination.delete_namespaced_lease("py-lease", "default")
    with pytest.raises(client.ApiException) as gone:
        coordination.read_namespaced_lease("py-lease", "default")
    assert gone.value.status == 404


def test_minikube_py_get_and_delete(daemon: Daemon):
    daemon.kubectl("apply", "-f", "-", input=manifest("cli-lease", holder="cli-holder"))
    rows = daemon.cli("get", "leases", "-n", NODE_LEASES).stdout.splitlines()
    assert rows[0].split() == ["NAME", "HOLDER", "AGE"]
    assert any(row.split()[:2] == ["cli-lease", "cli-holder"] for row in rows[1:])
    daemon.cli("delete", "lease", "cli-lease", "-n", NODE_LEASES)
    assert daemon.kubectl("get", "lease", "cli-lease", "-n", NODE_LEASES,
                          check=False).returncode == 1


def node_lease_durations(daemon: Daemon) -> dict[str, int]:
    leases = daemon.get_json("leases", "-n", NODE_LEASES)["items"]
    return {lease["metadata"]["name"]: lease["spec"]["leaseDurationSeconds"]
            for lease in leases if lease["spec"].get("holderIdentity") == lease["metadata"]["name"]}


def test_node_leases_carry_the_kubelets_lease_duration(daemon: Daemon, tmp_path: Path):
    """--node-lease-duration-seconds is the kubelet's nodeLeaseDurationSeconds:
    what every node's Lease says, as kubectl and the official client read it."""
    nodes = {n["metadata"]["name"] for n in daemon.get_json("nodes")["items"]}
    assert {n: d for n, d in node_lease_durations(daemon).items() if n in nodes} == {
        n: 40 for n in nodes}  # Kubernetes' default
    stretched = start_daemon(tmp_path / "state", "--nodes", "2",
                             "--node-lease-duration-seconds", "1200",
                             "--node-monitor-grace-period", "3600",
                             "--node-status-update-frequency", "1200",
                             "--node-monitor-period", "600")
    try:
        names = {n["metadata"]["name"] for n in stretched.get_json("nodes")["items"]}
        assert len(names) == 2
        assert node_lease_durations(stretched) == {n: 1200 for n in names}
        api = config.new_client_from_config(config_file=str(stretched.kubeconfig))
        try:
            for name in names:
                lease = client.CoordinationV1Api(api).read_namespaced_lease(name, NODE_LEASES)
                assert lease.spec.lease_duration_seconds == 1200
                assert lease.spec.holder_identity == name
        finally:
            api.close()
        ready = {n["metadata"]["name"]: {c["type"]: c["status"]
                                         for c in n["status"]["conditions"]}["Ready"]
                 for n in stretched.get_json("nodes")["items"]}
        assert ready == {n: "True" for n in names}
    finally:
        assert stop_daemon(stretched) == 0


def test_a_grace_period_shorter_than_a_renewal_is_refused(tmp_path: Path):
    state = tmp_path / "refused"
    result = subprocess.run(
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state),
         "--listen", "127.0.0.1:0", "--runtime", "fake", "--node-lease-duration-seconds",
         "1200"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert ("--node-monitor-grace-period 50: each node renews its lease every 300 s (a "
            "quarter of --node-lease-duration-seconds 1200)") in result.stderr
    assert not state.exists()  # refused before anything was written
