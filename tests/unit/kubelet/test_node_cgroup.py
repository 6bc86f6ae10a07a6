"""The node's cgroup (kubelet/node_cgroup.py) on directory trees mimicking cgroupfs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from minikube_py.kubelet.node_cgroup import NodeCgroup

from .conftest import GI, create_pod, pod_in_phase

LOGGER = "minikube_py.kubelet.node_cgroup"


def v1_tree(root: Path, cpu_dir: str = "cpu") -> Path:
    for d in (cpu_dir, "cpuacct", "memory", "pids"):
        (root / d).mkdir(parents=True)
    return root


def v2_tree(root: Path, controllers: str = "cpuset cpu io memory pids",
            enabled: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text(enabled + "\n")
    return root


@pytest.mark.parametrize("cpu_dir", ["cpu", "cpu,cpuacct"])
def test_v1_limits_equal_allocatable(tmp_path, cpu_dir):
    root = v1_tree(tmp_path / "cg", cpu_dir)
    cg = NodeCgroup("node-1", cpu_millis=1500, memory_bytes=3 * GI, root=root)
    assert cg.setup() == "/minikube-py/node-1"
    assert cg.version == "v1"
    cpu = root / cpu_dir / "minikube-py" / "node-1"
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"
    assert (cpu / "cpu.cfs_quota_us").read_text() == "150000"
    mem = root / "memory" / "minikube-py" / "node-1"
    assert (mem / "memory.limit_in_bytes").read_text() == str(3 * GI)
    cg.teardown()
    assert not (root / cpu_dir / "minikube-py").exists()
    assert not (root / "memory" / "minikube-py").exists()


def test_v2_limits_and_controllers(tmp_path):
    root = v2_tree(tmp_path / "cg")
    cg = NodeCgroup("node-2", cpu_millis=250, memory_bytes=512 * 1024**2, root=root)
    assert cg.setup() == "/minikube-py/node-2"
    assert cg.version == "v2"
    node = root / "minikube-py" / "node-2"
    assert (node / "cpu.max").read_text() == "25000 100000"
    assert (node / "memory.max").read_text() == str(512 * 1024**2)
    for d in (root, root / "minikube-py", node):
        assert (d / "cgroup.subtree_control").read_text() == "+cpu +memory"
    cg.teardown()
    assert not (root / "minikube-py").exists()


def test_v2_controllers_already_enabled_are_not_rewritten(tmp_path):
    root = v2_tree(tmp_path / "cg", enabled="cpu memory io")
    NodeCgroup("n", cpu_millis=1000, memory_bytes=GI, root=root).setup()
    assert (root / "cgroup.subtree_control").read_text() == "cpu memory io\n"


def test_teardown_keeps_a_cgroup_that_is_not_empty(tmp_path):
    root = v2_tree(tmp_path / "cg")
    one = NodeCgroup("node-1", cpu_millis=1000, memory_bytes=GI, root=root)
    two = NodeCgroup("node-2", cpu_millis=1000, memory_bytes=GI, root=root)
    one.setup()
    two.setup()
    (root / "minikube-py" / "node-1" / "pod-abc").mkdir()  # a pod's cgroup is still there
    one.teardown()
    two.teardown()
    assert (root / "minikube-py" / "node-1").is_dir()
    assert not (root / "minikube-py" / "node-2").exists()


@pytest.mark.parametrize("make", [
    lambda root: root.mkdir(),                                     # no cgroupfs at all
    lambda root: v2_tree(root, controllers="cpuset io pids"),      # controllers missing
    lambda root: (root / "cpu").mkdir(parents=True),               # v1 without memory
])
def test_unavailable_hosts_log_one_warning_and_go_on(tmp_path, caplog, make):
    root = tmp_path / "cg"
    make(root)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        for i in range(3):
            assert NodeCgroup(f"node-{i}", cpu_millis=1000, memory_bytes=GI,
                              root=root).setup() == ""
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "cannot create its cgroup" in warnings[0].getMessage()
    assert "only by scheduling" in warnings[0].getMessage()


def test_a_limit_that_cannot_be_written_is_unavailable(tmp_path, caplog):
    root = v1_tree(tmp_path / "cg")
    # As a read-only or bandwidth-less cpu controller would: the write fails.
    (root / "cpu" / "minikube-py" / "node-1" / "cpu.cfs_quota_us").mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        cg = NodeCgroup("node-1", cpu_millis=1000, memory_bytes=GI, root=root)
        assert cg.setup() == ""
    assert "cannot write" in caplog.text and "cpu.cfs_quota_us" in caplog.text
    assert cg.parent == ""


def test_disabled_with_no_root():
    cg = NodeCgroup("n", cpu_millis=1000, memory_bytes=GI, root=None)
    assert cg.setup() == ""
    cg.teardown()


def test_kubelet_puts_sandboxes_in_the_node_cgroup(client, make_kubelet, runtime, tmp_path):
    root = v2_tree(tmp_path / "cgroupfs")
    kubelet = make_kubelet(cpu=1000, memory=2 * GI, cgroup_root=root)
    assert (root / "minikube-py" / "node-1" / "cpu.max").read_text() == "100000 100000"
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    [sb] = runtime.list_sandboxes()
    assert runtime.sandbox_config(sb.id).cgroup_parent == "/minikube-py/node-1"
    kubelet.stop()
    assert not (root / "minikube-py").exists()  # nothing of ours left under it


def test_kubelet_without_a_cgroup_runs_pods_anyway(client, make_kubelet, runtime, tmp_path):
    make_kubelet(cgroup_root=tmp_path / "nothing-here")
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    [sb] = runtime.list_sandboxes()
    assert runtime.sandbox_config(sb.id).cgroup_parent == ""


@pytest.mark.parametrize("tree", ["v1", "v2"])
def test_two_clusters_with_the_same_node_names_keep_their_own_cgroups(tmp_path, tree):
    root = v1_tree(tmp_path / "cg") if tree == "v1" else v2_tree(tmp_path / "cg")
    mem = root / "memory" if tree == "v1" else root
    limit = "memory.limit_in_bytes" if tree == "v1" else "memory.max"
    first = NodeCgroup("node-1", cpu_millis=1000, memory_bytes=GI, root=root, cluster="aaa")
    second = NodeCgroup("node-1", cpu_millis=500, memory_bytes=2 * GI, root=root, cluster="bbb")
    assert first.setup() == "/minikube-py/aaa/node-1"
    assert second.setup() == "/minikube-py/bbb/node-1"
    assert (mem / "minikube-py/aaa/node-1" / limit).read_text() == str(GI)
    assert (mem / "minikube-py/bbb/node-1" / limit).read_text() == str(2 * GI)
    if tree == "v2":
        for d in (root / "minikube-py", root / "minikube-py/aaa"):
            assert (d / "cgroup.subtree_control").read_text() == "+cpu +memory"
    # The second cluster stopping leaves the first one's cgroup and limit alone.
    second.teardown()
    assert not (mem / "minikube-py/bbb").exists()
    assert (mem / "minikube-py/aaa/node-1" / limit).read_text() == str(GI)
    first.teardown()
    assert not (mem / "minikube-py").exists()


@pytest.mark.parametrize("node, cluster", [("a/b", ""), ("..", ""), ("n", "x/y"), ("", "c")])
def test_names_that_are_not_one_path_level_are_refused(node, cluster):
    with pytest.raises(ValueError, match="not a cgroup name"):
        NodeCgroup(node, cpu_millis=1000, memory_bytes=GI, root=None, cluster=cluster)
