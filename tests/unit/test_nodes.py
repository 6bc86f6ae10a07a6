"""Virtual nodes: reservation, carving, config files, Node objects, conditions.

Everything runs on hand-made :class:`HostInfo`/:class:`HostReadings`; only
``test_read_this_host`` looks at the real machine, and only for plausibility.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from minikube_py.api.defaults import apply_defaults
from minikube_py.api.quantity import canonical
from minikube_py.api.schema import decode
from minikube_py.api.validation import validate
from minikube_py.nodes import (
    DEFAULT_MAX_PODS,
    IMAGEFS_AVAILABLE_MIN,
    MEMORY_AVAILABLE_MIN,
    PIDS_AVAILABLE_MIN,
    HostInfo,
    HostReadings,
    NodeConfigError,
    NodeSpec,
    SharedReadings,
    allocatable,
    carve,
    format_memory,
    go_arch,
    load_config,
    node_conditions,
    node_object,
    system_reserved,
)

Mi = 1024**2
Gi = 1024**3


def host(cpu: int = 4000, memory: int = 8 * Gi, **kw: object) -> HostInfo:
    fields: dict[str, object] = {
        "cpu_millis": cpu, "memory_bytes": memory, "pods_max": 512, "hostname": "box",
        "kernel": "6.1.0-18-amd64", "os_image": "Debian GNU/Linux 12 (bookworm)",
        "arch": "amd64", "boot_id": "5716b9bb-c485-4f1d-9fd0-0d7782f7aa38",
        "machine_id": "3d1219c7c4c5404aaa1f6d2a48adfda4", "ip": "10.0.0.2",
        "disk_bytes": 100 * Gi,
    }
    fields.update(kw)
    return HostInfo(**fields)  # type: ignore[arg-type]


# ------------------------------------------------------------- reading hosts


def test_read_this_host(tmp_path: Path) -> None:
    info = HostInfo.read(tmp_path)
    assert info.cpu_millis >= 1
    assert info.memory_bytes > 64 * Mi
    assert info.pods_max >= 1
    assert info.arch == go_arch(info.arch)
    assert info.os_image and info.kernel and info.hostname
    assert info.ip.count(".") == 3
    assert info.disk_bytes > 0
    readings = HostReadings.read(tmp_path / "not" / "yet")
    assert 0 < readings.memory_available <= info.memory_bytes * 2
    assert 0.0 <= readings.disk_available_ratio <= 1.0
    assert readings.pids_available >= 0


@pytest.mark.parametrize(("machine", "arch"), [
    ("x86_64", "amd64"), ("aarch64", "arm64"), ("armv7l", "arm"), ("i686", "386"),
    ("ppc64le", "ppc64le"), ("s390x", "s390x"), ("riscv64", "riscv64"), ("amd64", "amd64"),
    ("arm64", "arm64"), ("Weird9", "weird9"),
])
def test_go_arch(machine: str, arch: str) -> None:
    assert go_arch(machine) == arch


# -------------------------------------------------------------- reservation


@pytest.mark.parametrize(("cpu", "memory", "reserved_cpu", "reserved_memory"), [
    # CPU: 100m + 6% of core 1 + 1% of core 2 + 0.5% of cores 3-4 + 0.25% above.
    # Memory: max(256Mi, 10% of 8Gi + 6% of next 120Gi + 2% above) up to Mi, + 100Mi.
    (1000, 1 * Gi, 160, 356 * Mi),
    (2000, 2 * Gi, 170, 356 * Mi),
    (4000, 4 * Gi, 180, 510 * Mi),
    (4000, 8 * Gi, 180, 920 * Mi),
    (8000, 16 * Gi, 190, 1411 * Mi),
    (16000, 64 * Gi, 210, 4360 * Mi),
    (64000, 256 * Gi, 330, 10914 * Mi),
    (1500, 3 * Gi, 165, 408 * Mi),
    # Never more than the host has.
    (100, 200 * Mi, 100, 200 * Mi),
    (150, 300 * Mi, 109, 300 * Mi),
])
def test_system_reserved(cpu: int, memory: int, reserved_cpu: int, reserved_memory: int) -> None:
    assert system_reserved(host(cpu, memory)) == (reserved_cpu, reserved_memory)


def test_reservation_grows_with_the_host_but_not_past_it() -> None:
    sizes = [(c, m) for c in (100, 500, 1000, 3000, 12000, 96000)
             for m in (64 * Mi, 512 * Mi, 2 * Gi, 12 * Gi, 200 * Gi)]
    for c, m in sizes:
        rc, rm = system_reserved(host(c, m))
        assert 0 < rc <= c and 0 < rm <= m
        assert system_reserved(host(c * 2, m * 2)) >= (rc, rm)


# ------------------------------------------------------------------ carving


@pytest.mark.parametrize("count", [1, 2, 3, 5, 7, 20, 28])
@pytest.mark.parametrize(("cpu", "memory"),
                         [(4000, 8 * Gi), (16000, 64 * Gi), (3000, 7 * Gi + 12345)])
def test_carve_splits_evenly_within_allocatable(count: int, cpu: int, memory: int) -> None:
    h = host(cpu, memory)
    nodes = carve(count, h)
    assert [n.name for n in nodes] == [f"node-{i}" for i in range(1, count + 1)]
    assert len({(n.cpu_millis, n.memory_bytes, n.pods) for n in nodes}) == 1
    alloc_cpu, alloc_mem = allocatable(h)
    assert sum(n.cpu_millis for n in nodes) <= alloc_cpu
    assert sum(n.memory_bytes for n in nodes) <= alloc_mem
    # Even: what is left over is less than one more share step.
    assert alloc_cpu - sum(n.cpu_millis for n in nodes) < count
    assert alloc_mem - sum(n.memory_bytes for n in nodes) < count * Mi
    assert all(n.memory_bytes % Mi == 0 and n.cpu_millis >= 100 for n in nodes)
    assert nodes[0].labels == {"minikube-py.io/node-index": "1", "minikube-py.io/primary": "true"}
    assert all(n.labels["minikube-py.io/primary"] == "false" for n in nodes[1:])
    assert all(n.taints == () for n in nodes)


def test_carve_one_node_gets_the_whole_allocatable() -> None:
    (node,) = carve(1, host(4000, 8 * Gi))
    assert (node.cpu_millis, node.memory_bytes, node.pods) == (3820, 7272 * Mi, DEFAULT_MAX_PODS)


@pytest.mark.parametrize(("pods_max", "count", "pods"), [
    (512, 1, 110), (512, 4, 110), (512, 5, 102), (100, 2, 50), (3, 5, 1),
])
def test_carve_pods_share_the_pid_budget(pods_max: int, count: int, pods: int) -> None:
    nodes = carve(count, host(64000, 256 * Gi, pods_max=pods_max))
    assert {n.pods for n in nodes} == {pods}


@pytest.mark.parametrize(("count", "h", "message"), [
    (0, host(), "--nodes must be at least 1, got 0"),
    (-3, host(), "--nodes must be at least 1, got -3"),
    (40, host(), "--nodes 40: each node would get 95m CPU and 181Mi memory, below the minimum "
     "of 100m CPU and 128Mi per node; the host has 3820m CPU and 7.1Gi memory (host 4 CPU / "
     "8Gi minus 180m / 920Mi reserved for the system and control plane); use --nodes 38 or "
     "fewer"),
    (3, host(2000, 700 * Mi), "--nodes 3: each node would get 610m CPU and 114Mi memory, "
     "below the minimum of 100m CPU and 128Mi per node; the host has 1830m CPU and 344Mi "
     "memory (host 2 CPU / 700Mi minus 170m / 356Mi reserved for the system and control "
     "plane); use --nodes 2 or fewer"),
    (1, host(200, 300 * Mi), "--nodes 1: each node would get 88m CPU and 0 bytes memory, below "
     "the minimum of 100m CPU and 128Mi per node; the host has 88m CPU and 0 bytes memory "
     "(host 200m CPU / 300Mi minus 112m / 300Mi reserved for the system and control plane); "
     "this host is too small for even one node"),
])
def test_carve_errors(count: int, h: HostInfo, message: str) -> None:
    with pytest.raises(NodeConfigError) as err:
        carve(count, h)
    assert str(err.value) == message
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(("n", "text"), [
    (0, "0 bytes"), (1000, "1000 bytes"), (128 * Mi, "128Mi"), (int(1.5 * Mi), "1.5Mi"),
    (4 * Gi, "4Gi"), (7272 * Mi, "7.1Gi"), (-920 * Mi, "-920Mi"),
])
def test_format_memory(n: int, text: str) -> None:
    assert format_memory(n) == text


# ------------------------------------------------------------- config files

HAPPY = """\
# two nodes
nodes:
- name: node-a
  cpu: "1500m"
  memory: 2Gi
  labels: {zone: a, disktype: ssd}
- name: node-b
  cpu: 1
  memory: 1536Mi
  pods: 30
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: spot, effect: PreferNoSchedule}
"""


def write(tmp_path: Path, text: str, name: str = "nodes.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_config_happy_path(tmp_path: Path) -> None:
    path = write(tmp_path, HAPPY)
    nodes = load_config(path, host(), runtime="podman", overcommit=False)
    assert nodes == [
        NodeSpec("node-a", 1500, 2 * Gi, 110,
                 {"minikube-py.io/node-index": "1", "minikube-py.io/primary": "true",
                  "zone": "a", "disktype": "ssd"}),
        NodeSpec("node-b", 1000, 1536 * Mi, 30,
                 {"minikube-py.io/node-index": "2", "minikube-py.io/primary": "false"},
                 ({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
                  {"key": "spot", "effect": "PreferNoSchedule"})),
    ]
    # str paths work too, and so does JSON with the same content.
    assert load_config(str(path), host(), runtime="fake", overcommit=False) == nodes
    as_json = {"nodes": [
        {"name": "node-a", "cpu": "1500m", "memory": "2Gi",
         "labels": {"zone": "a", "disktype": "ssd"}},
        {"name": "node-b", "cpu": 1, "memory": "1536Mi", "pods": 30, "taints": [
            {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
            {"key": "spot", "effect": "PreferNoSchedule"}]},
    ]}
    json_path = write(tmp_path, json.dumps(as_json, indent=2), "nodes.json")
    assert load_config(json_path, host(), runtime="podman", overcommit=False) == nodes


@pytest.mark.parametrize(("text", "lines"), [
    ("", ['{p}: the file is empty; expected a mapping with a "nodes" list']),
    ("# nothing\n", ['{p}: the file is empty; expected a mapping with a "nodes" list']),
    ("nodes: []\n", ["{p}:1: nodes: must list at least one node"]),
    ("nodes:\n", ["{p}:1: nodes: Required value: list the nodes to create"]),
    ("node:\n- name: a\n", [
        '{p}:1: unknown field "node" (did you mean "nodes"?); known fields: nodes',
        "{p}:1: nodes: Required value: list the nodes to create"]),
    ("nodes: {name: a}\n", ["{p}:1: nodes: must be a list of nodes, found a mapping"]),
    ("- name: a\n", ['{p}:1: expected a mapping with a "nodes" list, found a list']),
    ("nodes:\n- name: a\n  cpu: 1\n  memory: 1Gi\n---\nnodes: []\n", [
        '{p}:6: expected one document, found 2; list every node under one "nodes" key']),
    ("nodes:\n- name: a\n  cpu: 1\n  cpu: 2\n", [
        '{p}:4:3: duplicate key "cpu" (first at line 3)']),
    ("nodes:\n- name: a\n  cpu: [1\n", ["{p}:4:1: did not find expected ',' or ']' "
                                        "(while parsing a flow sequence at line 3)"]),
    # Node entries.
    ("nodes:\n- 5\n", ["{p}:1: nodes[0]: expected a mapping with name, cpu and memory, "
                       "found a number (5)"]),
    ("nodes:\n- cpu: 1\n  memory: 1Gi\n", ["{p}:2: nodes[0]: name: Required value"]),
    ("nodes:\n- name: a\n", ["{p}:2: nodes[0] (a): cpu: Required value",
                             "{p}:2: nodes[0] (a): memory: Required value"]),
    ("nodes:\n- name: a\n  cpus: 1\n  cpu: 1\n  memory: 1Gi\n  lables: {}\n", [
        '{p}:2: nodes[0] (a): unknown field "cpus" (did you mean "cpu"?); known fields: '
        "name, cpu, memory, pods, labels, taints",
        '{p}:2: nodes[0] (a): unknown field "lables" (did you mean "labels"?); known fields: '
        "name, cpu, memory, pods, labels, taints"]),
    ("nodes:\n- {name: Node_A, cpu: 1, memory: 1Gi}\n", [
        '{p}:2: nodes[0] (Node_A): name: Invalid value: "Node_A": a lowercase RFC 1123 label '
        "must consist of lower case alphanumeric characters or '-', and must start and end "
        "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
    ("nodes:\n- {name: a.b, cpu: 1, memory: 1Gi}\n", [
        '{p}:2: nodes[0] (a.b): name: Invalid value: "a.b": must not contain dots']),
    ("nodes:\n- {name: 7, cpu: 1, memory: 1Gi}\n", [
        "{p}:2: nodes[0]: name: Invalid value: 7: must be a string"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi}\n- {name: b, cpu: 1, memory: 1Gi}\n"
     "- {name: a, cpu: 1, memory: 1Gi}\n", [
         '{p}:4: nodes[2] (a): name: Duplicate value: "a": already used by nodes[0] at line 2']),
    # Quantities.
    ("nodes:\n- {name: a, cpu: 2x, memory: 1Gi}\n", [
        '{p}:2: nodes[0] (a): cpu: Invalid value: "2x": quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 4gi}\n", [
        '{p}:2: nodes[0] (a): memory: Invalid value: "4gi": quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 4Mii}\n", [
        '{p}:2: nodes[0] (a): memory: Invalid value: "4Mii": unable to parse quantity\'s suffix']),
    ("nodes:\n- {name: a, cpu: 0, memory: 1Gi}\n", [
        "{p}:2: nodes[0] (a): cpu: Invalid value: 0: must be greater than 0"]),
    ("nodes:\n- {name: a, cpu: -1, memory: 1Gi}\n", [
        '{p}:2: nodes[0] (a): cpu: Invalid value: "-1": must be greater than or equal to 0']),
    ("nodes:\n- {name: a, cpu: true, memory: 1Gi}\n", [
        "{p}:2: nodes[0] (a): cpu: Invalid value: true: quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("nodes:\n- {name: a, cpu: 0.0005, memory: 1Gi}\n", [
        "{p}:2: nodes[0] (a): cpu: Invalid value: 0.0005: must be a whole number of "
        "millicores (1m = 0.001)"]),
    ("nodes:\n- {name: a, cpu: 50m, memory: 1Gi}\n", [
        '{p}:2: nodes[0] (a): cpu: Invalid value: "50m": must be at least 100m for the podman '
        "runtime"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 512m}\n", [
        '{p}:2: nodes[0] (a): memory: Invalid value: "512m": must be a whole number of bytes '
        '("m" means milli; did you mean "512Mi"?)']),
    ("nodes:\n- {name: a, cpu: 1, memory: 4}\n", [
        "{p}:2: nodes[0] (a): memory: Invalid value: 4: must be at least 128Mi for the podman "
        'runtime (a number without a suffix is bytes; did you mean "4Gi"?)']),
    ("nodes:\n- {name: a, cpu: 1, memory: 100Mi}\n", [
        '{p}:2: nodes[0] (a): memory: Invalid value: "100Mi": must be at least 128Mi for the '
        "podman runtime"]),
    # Pods.
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, pods: '110'}\n", [
        '{p}:2: nodes[0] (a): pods: Invalid value: "110": must be an integer']),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, pods: 0}\n", [
        "{p}:2: nodes[0] (a): pods: Invalid value: 0: must be at least 1"]),
    # Labels, checked by the API's Node validation.
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: {zone: 1}}\n", [
        "{p}:2: nodes[0] (a): labels[zone]: Invalid value: 1: must be a string"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: {'a b': x}}\n", [
        '{p}:2: nodes[0] (a): labels: Invalid value: "a b": name part must consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: {zone: 'a b'}}\n", [
        '{p}:2: nodes[0] (a): labels: Invalid value: "a b": a valid label must be an empty '
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
        "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: [zone]}\n", [
        '{p}:2: nodes[0] (a): labels: Invalid value: ["zone"]: must be a map of string keys '
        "to string values"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: {kubernetes.io/hostname: x}}\n", [
        "{p}:2: nodes[0] (a): labels[kubernetes.io/hostname]: Forbidden: set by minikube-py "
        "on every node"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, labels: {minikube-py.io/primary: 'true'}}\n", [
        "{p}:2: nodes[0] (a): labels[minikube-py.io/primary]: Forbidden: set by minikube-py "
        "on every node"]),
    # Taints: shape here, content by the API's Node validation.
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: {key: x}}\n", [
        '{p}:2: nodes[0] (a): taints: Invalid value: {"key":"x"}: must be a list of taints']),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [x]}\n", [
        '{p}:2: nodes[0] (a): taints[0]: Invalid value: "x": must be a mapping with key, '
        "value and effect"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [{key: x, efect: NoSchedule}]}\n", [
        '{p}:2: nodes[0] (a): taints[0]: unknown field "efect" (did you mean "effect"?); '
        "known fields: key, value, effect"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [{key: x, value: 1, effect: NoSchedule}]}"
     "\n", ["{p}:2: nodes[0] (a): taints[0].value: Invalid value: 1: must be a string"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [{key: x}]}\n", [
        "{p}:2: nodes[0] (a): taints[0].effect: Required value"]),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [{key: x, effect: Sometimes}]}\n", [
        '{p}:2: nodes[0] (a): taints[0].effect: Unsupported value: "Sometimes": supported '
        'values: "NoSchedule", "PreferNoSchedule", "NoExecute"']),
    ("nodes:\n- {name: a, cpu: 1, memory: 1Gi, taints: [{key: x, effect: NoSchedule}, "
     "{key: x, value: y, effect: NoSchedule}]}\n", [
         '{p}:2: nodes[0] (a): taints[1]: Duplicate value: core.Taint{Key:"x", Value:"y", '
         'Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and '
         "effect pair"]),
])
def test_config_errors(tmp_path: Path, text: str, lines: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(NodeConfigError) as err:
        load_config(path, host(), runtime="podman", overcommit=True)
    expected = [line.replace("{p}", str(path)) for line in lines]
    assert err.value.errors == tuple(expected)
    assert str(err.value) == "\n".join(expected)


def test_config_reports_every_node_with_its_own_line(tmp_path: Path) -> None:
    path = write(tmp_path, """\
nodes:
- name: good
  cpu: 1
  memory: 1Gi
- name: bad-cpu
  cpu: lots
  memory: 1Gi
- name: bad-memory
  cpu: 1
  memory: -1Gi
""")
    with pytest.raises(NodeConfigError) as err:
        load_config(path, host(), runtime="fake", overcommit=False)
    assert err.value.errors == (
        f'{path}:5: nodes[1] (bad-cpu): cpu: Invalid value: "lots": quantities must match the '
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        f'{path}:8: nodes[2] (bad-memory): memory: Invalid value: "-1Gi": must be greater '
        "than or equal to 0",
    )


@pytest.mark.parametrize(("name", "message"), [
    ("missing.yaml", "{p}: no such file"),
    ("", "{p}: is a directory, not a node config file"),
])
def test_config_unreadable(tmp_path: Path, name: str, message: str) -> None:
    path = tmp_path / name if name else tmp_path
    with pytest.raises(NodeConfigError) as err:
        load_config(path, host(), runtime="fake", overcommit=False)
    assert str(err.value) == message.replace("{p}", str(path))


def test_config_unknown_runtime(tmp_path: Path) -> None:
    with pytest.raises(NodeConfigError) as err:
        load_config(write(tmp_path, HAPPY), host(), runtime="docker", overcommit=False)
    assert str(err.value) == 'unknown runtime "docker"; expected one of "podman", "fake"'


BIG = """\
nodes:
- {name: a, cpu: 3, memory: 4Gi}
- {name: b, cpu: 2, memory: 4Gi}
"""


@pytest.mark.parametrize(("text", "runtime", "overcommit", "message"), [
    (BIG, "podman", False,
     "{p}: the 2 nodes ask for 5 CPU and 8Gi memory, but this host can give them 3820m CPU "
     "and 7.1Gi memory (host 4 CPU / 8Gi minus 180m / 920Mi reserved for the system and "
     "control plane): 1180m CPU and 920Mi memory too much. Pass --overcommit to run them "
     "anyway, or make the nodes smaller."),
    ("nodes:\n- {name: a, cpu: 5, memory: 1Gi}\n", "podman", False,
     "{p}: the 1 node ask for 5 CPU and 1Gi memory, but this host can give them 3820m CPU "
     "and 7.1Gi memory (host 4 CPU / 8Gi minus 180m / 920Mi reserved for the system and "
     "control plane): 1180m CPU too much. Pass --overcommit to run them anyway, or make the "
     "nodes smaller."),
    ("nodes:\n- {name: a, cpu: 1, memory: 7273Mi}\n", "podman", False,
     "{p}: the 1 node ask for 1 CPU and 7.1Gi memory, but this host can give them 3820m CPU "
     "and 7.1Gi memory (host 4 CPU / 8Gi minus 180m / 920Mi reserved for the system and "
     "control plane): 1Mi memory too much. Pass --overcommit to run them anyway, or make "
     "the nodes smaller."),
    ("nodes:\n- {name: a, cpu: 3820m, memory: 7272Mi}\n", "podman", False, None),
    (BIG, "podman", True, None),
    (BIG, "fake", False, None),
    ("nodes:\n- {name: a, cpu: 1m, memory: 1}\n", "fake", False, None),
    ("nodes:\n- {name: a, cpu: 64, memory: 1Ti}\n", "fake", False, None),
])
def test_overcommit_rule(tmp_path: Path, text: str, runtime: str, overcommit: bool,
                         message: str | None) -> None:
    path = write(tmp_path, text)
    if message is None:
        nodes = load_config(path, host(), runtime=runtime, overcommit=overcommit)
        assert nodes and all(n.cpu_millis > 0 and n.memory_bytes > 0 for n in nodes)
        return
    with pytest.raises(NodeConfigError) as err:
        load_config(path, host(), runtime=runtime, overcommit=overcommit)
    assert str(err.value) == message.replace("{p}", str(path))


# -------------------------------------------------------------- Node objects

NOW = "2024-05-01T10:00:00Z"


def make_node(spec: NodeSpec, h: HostInfo | None = None) -> dict[str, object]:
    h = h or host()
    conditions = node_conditions(HostReadings(4 * Gi, 0.5, 30000), now=NOW, previous=None,
                                 ready=True, ready_message="")
    return node_object(spec, h, runtime_version="podman://4.3.1", kubelet_version="v1.32.0",
                       now=NOW, conditions=conditions)


@pytest.mark.parametrize("spec", [
    *carve(3, host()),
    NodeSpec("node-a", 1500, 2 * Gi, 110, {"zone": "a"},
             ({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},)),
    NodeSpec("odd", 1234, 1_000_000_007, 7),
    NodeSpec("big", 64000, 1024 * Gi, 250),
])
def test_node_object_passes_api_validation(spec: NodeSpec) -> None:
    node = make_node(spec)
    assert validate(node) == []
    assert validate(apply_defaults(decode(node))) == []
    status = node["status"]
    assert isinstance(status, dict)
    for key in ("capacity", "allocatable"):
        for value in status[key].values():
            assert canonical(value) == value
    assert status["capacity"] == status["allocatable"]


def test_node_object_contents() -> None:
    spec = NodeSpec("node-a", 1500, 2 * Gi, 30, {"zone": "a", "kubernetes.io/hostname": "x"},
                    ({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},))
    conditions = node_conditions(HostReadings(4 * Gi, 0.5, 30000), now=NOW, previous=None,
                                 ready=True, ready_message="")
    node = node_object(spec, host(arch="aarch64", disk_bytes=50 * Gi + 512),
                       runtime_version="fake://0.1", kubelet_version="v1.32.0", now=NOW,
                       conditions=conditions)
    assert node["apiVersion"] == "v1" and node["kind"] == "Node"
    assert node["metadata"] == {"name": "node-a", "labels": {
        "beta.kubernetes.io/arch": "arm64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "arm64",
        "kubernetes.io/hostname": "node-a",  # the spec cannot override it
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "minikube-py",
        "zone": "a",
    }}
    assert node["spec"] == {"taints": [{"key": "dedicated", "value": "gpu",
                                        "effect": "NoSchedule"}]}
    status = node["status"]
    resources = {"cpu": "1500m", "ephemeral-storage": "53687091712", "hugepages-2Mi": "0",
                 "memory": "2Gi", "pods": "30"}
    assert status["capacity"] == resources
    assert status["allocatable"] == resources
    assert status["conditions"] == conditions
    assert status["addresses"] == [{"type": "InternalIP", "address": "10.0.0.2"},
                                   {"type": "Hostname", "address": "node-a"}]
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    info = dict(status["nodeInfo"])
    system_uuid = info.pop("systemUUID")
    assert info == {
        "machineID": "3d1219c7c4c5404aaa1f6d2a48adfda4",
        "bootID": "5716b9bb-c485-4f1d-9fd0-0d7782f7aa38",
        "kernelVersion": "6.1.0-18-amd64",
        "osImage": "Debian GNU/Linux 12 (bookworm)",
        "containerRuntimeVersion": "fake://0.1",
        "kubeletVersion": "v1.32.0",
        "kubeProxyVersion": "",
        "operatingSystem": "linux",
        "architecture": "arm64",
    }
    # Stable per node, different between nodes.
    again = make_node(dataclasses.replace(spec))["status"]
    other = make_node(dataclasses.replace(spec, name="node-b"))["status"]
    assert again["nodeInfo"]["systemUUID"] == system_uuid  # type: ignore[index]
    assert other["nodeInfo"]["systemUUID"] != system_uuid  # type: ignore[index]
    assert node_object(spec, host(), runtime_version="fake://0.1", kubelet_version="v1.32.0",
                       now=NOW, conditions=[])["spec"] == node["spec"]


def test_node_object_quantities_are_canonical() -> None:
    node = make_node(NodeSpec("n", 2000, 3 * 1024 * Mi + 4096, 110), host(disk_bytes=0))
    capacity = node["status"]["capacity"]  # type: ignore[index]
    assert capacity == {"cpu": "2", "ephemeral-storage": "0", "hugepages-2Mi": "0",
                        "memory": "3145732Ki", "pods": "110"}


# ---------------------------------------------------------------- conditions

FINE = HostReadings(memory_available=4 * Gi, disk_available_ratio=0.5, pids_available=30000)


def statuses(conditions: list[dict[str, object]]) -> dict[object, tuple[object, object, object]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in conditions}


def test_conditions_all_fine() -> None:
    conditions = node_conditions(FINE, now=NOW, previous=None, ready=True, ready_message="")
    assert conditions == [
        {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": NOW,
         "lastTransitionTime": NOW, "reason": "KubeletHasSufficientMemory",
         "message": "kubelet has sufficient memory available"},
        {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": NOW,
         "lastTransitionTime": NOW, "reason": "KubeletHasNoDiskPressure",
         "message": "kubelet has no disk pressure"},
        {"type": "PIDPressure", "status": "False", "lastHeartbeatTime": NOW,
         "lastTransitionTime": NOW, "reason": "KubeletHasSufficientPID",
         "message": "kubelet has sufficient PID available"},
        {"type": "Ready", "status": "True", "lastHeartbeatTime": NOW,
         "lastTransitionTime": NOW, "reason": "KubeletReady",
         "message": "kubelet is posting ready status"},
    ]


@pytest.mark.parametrize(("readings", "pressured"), [
    (FINE, set()),
    (dataclasses.replace(FINE, memory_available=MEMORY_AVAILABLE_MIN), set()),
    (dataclasses.replace(FINE, memory_available=MEMORY_AVAILABLE_MIN - 1), {"MemoryPressure"}),
    (dataclasses.replace(FINE, memory_available=0), {"MemoryPressure"}),
    (dataclasses.replace(FINE, disk_available_ratio=IMAGEFS_AVAILABLE_MIN), set()),
    (dataclasses.replace(FINE, disk_available_ratio=0.149), {"DiskPressure"}),
    (dataclasses.replace(FINE, disk_available_ratio=0.05), {"DiskPressure"}),
    (dataclasses.replace(FINE, pids_available=PIDS_AVAILABLE_MIN), set()),
    (dataclasses.replace(FINE, pids_available=PIDS_AVAILABLE_MIN - 1), {"PIDPressure"}),
    (HostReadings(0, 0.0, 0), {"MemoryPressure", "DiskPressure", "PIDPressure"}),
])
def test_pressure_thresholds(readings: HostReadings, pressured: set[str]) -> None:
    by_type = statuses(node_conditions(readings, now=NOW, previous=None, ready=True,
                                       ready_message=""))
    true = {"MemoryPressure": ("KubeletHasInsufficientMemory",
                               "kubelet has insufficient memory available"),
            "DiskPressure": ("KubeletHasDiskPressure", "kubelet has disk pressure"),
            "PIDPressure": ("KubeletHasInsufficientPID",
                            "kubelet has insufficient PID available")}
    for kind, (reason, message) in true.items():
        if kind in pressured:
            assert by_type[kind] == ("True", reason, message)
        else:
            assert by_type[kind][0] == "False"
    # Pressure alone does not make the node NotReady.
    assert by_type["Ready"][0] == "True"


@pytest.mark.parametrize(("ready", "message", "expected"), [
    (True, "", ("True", "KubeletReady", "kubelet is posting ready status")),
    (True, "kubelet is posting ready status, podman 4.3.1",
     ("True", "KubeletReady", "kubelet is posting ready status, podman 4.3.1")),
    (False, "container runtime is down: podman not found",
     ("False", "KubeletNotReady", "container runtime is down: podman not found")),
    (False, "", ("False", "KubeletNotReady", "kubelet is not ready")),
])
def test_ready_condition(ready: bool, message: str, expected: tuple[str, str, str]) -> None:
    by_type = statuses(node_conditions(FINE, now=NOW, previous=None, ready=ready,
                                       ready_message=message))
    assert by_type["Ready"] == expected


def test_transitions_keep_last_transition_time() -> None:
    t0, t1, t2, t3 = (f"2024-05-01T10:0{i}:00Z" for i in range(4))
    first = node_conditions(FINE, now=t0, previous=None, ready=False, ready_message="starting")
    assert {c["lastTransitionTime"] for c in first} == {t0}

    # Ready flips, memory gets tight: those two transition, the others keep t0.
    tight = dataclasses.replace(FINE, memory_available=10 * Mi)
    second = node_conditions(tight, now=t1, previous=first, ready=True, ready_message="")
    times = {c["type"]: (c["lastHeartbeatTime"], c["lastTransitionTime"]) for c in second}
    assert times == {"MemoryPressure": (t1, t1), "DiskPressure": (t1, t0),
                     "PIDPressure": (t1, t0), "Ready": (t1, t1)}

    # Nothing changes: every transition time stays, every heartbeat moves.
    third = node_conditions(tight, now=t2, previous=second, ready=True, ready_message="")
    times = {c["type"]: (c["lastHeartbeatTime"], c["lastTransitionTime"]) for c in third}
    assert times == {"MemoryPressure": (t2, t1), "DiskPressure": (t2, t0),
                     "PIDPressure": (t2, t0), "Ready": (t2, t1)}

    # A condition the node lifecycle controller set to Unknown transitions back.
    unknown = [dict(c, status="Unknown") if c["type"] == "Ready" else c for c in third]
    fourth = node_conditions(tight, now=t3, previous=unknown, ready=True, ready_message="")
    assert {c["type"]: c["lastTransitionTime"] for c in fourth} == {
        "MemoryPressure": t1, "DiskPressure": t0, "PIDPressure": t0, "Ready": t3}


def test_conditions_ignore_malformed_previous() -> None:
    previous: list[dict[str, object]] = [{"status": "True"}, {"type": "Ready", "status": "True"}]
    conditions = node_conditions(FINE, now=NOW, previous=previous, ready=True, ready_message="")
    # A previous condition without lastTransitionTime cannot lend one.
    assert all(c["lastTransitionTime"] == NOW for c in conditions)



def test_shared_readings_read_the_host_once_per_max_age(tmp_path: Path) -> None:
    calls: list[Path] = []
    now = [100.0]

    def read(path: Path) -> HostReadings:
        calls.append(path)
        return HostReadings(memory_available=len(calls), disk_available_ratio=0.5,
                            pids_available=1000)
    shared = SharedReadings(max_age=1.0, read=read, clock=lambda: now[0])
    assert [shared(tmp_path).memory_available for _ in range(50)] == [1] * 50
    now[0] += 0.99
    assert shared(tmp_path).memory_available == 1
    now[0] += 0.02
    assert shared(tmp_path).memory_available == 2
    assert shared(tmp_path / "other").memory_available == 3  # per state directory
    assert calls == [tmp_path, tmp_path, tmp_path / "other"]
