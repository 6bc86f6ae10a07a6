"""Pod requests as Kubernetes computes them (component-helpers/resource.PodRequests)."""

from __future__ import annotations

import pytest

from minikube_py.api.podrequests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    is_scalar_resource_name,
    pod_nonzero_requests,
    pod_requests,
)

from .scheduler.builders import pod


def c(name: str, restart: str | None = None, **req: str) -> dict:
    out: dict = {"name": name, "image": "x", "resources": {"requests": dict(req)}}
    if restart:
        out["restartPolicy"] = restart
    return out


def plain(name: str) -> dict:
    return {"name": name, "image": "x"}


CASES = [
    ("sum of app containers",
     pod(containers=[c("a", cpu="1", memory="1G"), c("b", cpu="2", memory="3G")]),
     {"cpu": 3000, "memory": 4 * 10**9}),
    # The example in kube-scheduler's computePodResourceRequest doc comment:
    # IC1 2/1G, IC2 2/3G, C1 2/1G, C2 1/1G -> cpu 3, memory 3G.
    ("init containers take the max",
     pod(init_containers=[c("ic1", cpu="2", memory="1G"), c("ic2", cpu="2", memory="3G")],
         containers=[c("c1", cpu="2", memory="1G"), c("c2", cpu="1", memory="1G")]),
     {"cpu": 3000, "memory": 3 * 10**9}),
    # KEP-753: InitContainerUse(i) = sum(sidecars before i) + init i;
    # sidecars also run with the app containers.
    ("sidecar joins the app sum",
     pod(init_containers=[c("side", "Always", cpu="2")], containers=[c("app", cpu="1")]),
     {"cpu": 3000}),
    ("init container after a sidecar needs both",
     pod(init_containers=[c("i1", cpu="1"), c("side", "Always", cpu="2"), c("i2", cpu="5")],
         containers=[c("app", cpu="1")]),
     {"cpu": 7000}),
    ("init container before the sidecar does not add it",
     pod(init_containers=[c("i1", cpu="4"), c("side", "Always", cpu="2")],
         containers=[c("app", cpu="1")]),
     {"cpu": 4000}),
    ("sidecar phase itself",
     pod(init_containers=[c("s1", "Always", cpu="2"), c("s2", "Always", cpu="3")],
         containers=[c("app", cpu="100m")]),
     {"cpu": 5100}),
    ("overhead is added after the max",
     pod(init_containers=[c("ic", cpu="2")], containers=[c("app", cpu="1")],
         overhead={"cpu": "250m", "memory": "64Mi"}),
     {"cpu": 2250, "memory": 64 * 1024 * 1024}),
    # Quantities are summed exactly, then MilliValue() rounds up once.
    ("exact sum then round up",
     pod(containers=[c("a", cpu="0.5m"), c("b", cpu="0.5m"), c("c", cpu="0.1m")]),
     {"cpu": 2}),
    ("extended resources are summed",
     pod(containers=[c("a", **{"nvidia.com/gpu": "1"}), c("b", **{"nvidia.com/gpu": "2"})]),
     {"nvidia.com/gpu": 3}),
    ("no containers, no requests", pod(containers=[]), {}),
]


@pytest.mark.parametrize(("name", "p", "want"), CASES, ids=[c[0] for c in CASES])
def test_pod_requests(name: str, p: dict, want: dict) -> None:
    got = pod_requests(p)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}


NONZERO = [
    ("one container without requests", pod(containers=[plain("a")]),
     (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)),
    ("defaults per container", pod(containers=[plain("a"), plain("b")]),
     (2 * DEFAULT_MILLI_CPU_REQUEST, 2 * DEFAULT_MEMORY_REQUEST)),
    ("explicit zero is not missing", pod(containers=[c("a", cpu="0", memory="0")]), (0, 0)),
    ("only the missing resource is defaulted", pod(containers=[c("a", cpu="2")]),
     (2000, DEFAULT_MEMORY_REQUEST)),
    ("no containers", pod(containers=[]), (0, 0)),
    ("init container with defaults vs larger app",
     pod(init_containers=[plain("i")], containers=[c("a", cpu="1", memory="1Gi")]),
     (1000, 1024**3)),
    ("overhead on top of defaults", pod(containers=[plain("a")], overhead={"cpu": "50m"}),
     (150, DEFAULT_MEMORY_REQUEST)),
]


@pytest.mark.parametrize(("name", "p", "want"), NONZERO, ids=[c[0] for c in NONZERO])
def test_nonzero_requests(name: str, p: dict, want: tuple[int, int]) -> None:
    assert pod_nonzero_requests(p) == want


@pytest.mark.parametrize(("name", "scalar"), [
    ("nvidia.com/gpu", True), ("hugepages-2Mi", True), ("attachable-volumes-aws-ebs", True),
    ("kubernetes.io/batch", True), ("requests.nvidia.com/gpu", False), ("cpu", False),
    ("gpu", False),
])
def test_scalar_resource_names(name: str, scalar: bool) -> None:
    assert is_scalar_resource_name(name) is scalar


def test_bad_quantities_are_ignored() -> None:
    assert pod_requests(pod(containers=[c("a", cpu="lots", memory="1Gi")])) == {
        "memory": 1024**3}
