"""ImageLocality: spread-scaled image sizes, clamped to [23Mi, 1000Mi * containers].

The cases are kube-scheduler's image_locality_test.go; the expected numbers are
its formula: 100 * (sum - 23Mi) / (1000Mi * containers - 23Mi), integer division,
with each image scored int(size * nodes_with_image / all_nodes).
"""

from __future__ import annotations

import pytest

from minikube_py.scheduler.plugins.imagelocality import ImageLocality

from .builders import MB, node, pod, run_score, snapshot

MIN = 23 * MB


def expected(sum_bytes: int, containers: int) -> int:
    top = 1000 * MB * containers
    clamped = min(max(sum_bytes, MIN), top)
    return 100 * (clamped - MIN) // (top - MIN)


NODE_403002000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
                  (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
                  (["gcr.io/2000:latest"], 2000 * MB)]
NODE_25010 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]


def two_nodes() -> list[dict]:
    return [node("machine1", images=NODE_403002000), node("machine2", images=NODE_25010)]


CASES = [
    ("two images spread on two nodes, prefer the larger image one",
     ["gcr.io/40", "gcr.io/250"], two_nodes(),
     [expected(int(40 * MB * 0.5), 2), expected(int(250 * MB * 0.5), 2)], [0, 5]),
    ("two images on one node, prefer this node", ["gcr.io/40", "gcr.io/300"], two_nodes(),
     [expected(int(40 * MB * 0.5) + int(300 * MB * 0.5), 2), 0], [7, 0]),
    ("if exceed limit, use limit", ["gcr.io/10", "gcr.io/2000"], two_nodes(),
     [expected(int(2000 * MB * 0.5), 2), expected(int(10 * MB * 0.5), 2)], [49, 0]),
    ("if exceed limit, use limit (with node which has no images present)",
     ["gcr.io/10", "gcr.io/2000"], [*two_nodes(), node("machine3")],
     [expected(int(2000 * MB * (1 / 3)), 2), 0, 0], [32, 0, 0]),
]


@pytest.mark.parametrize(("name", "images", "nodes", "formula", "want"), CASES,
                         ids=[c[0] for c in CASES])
def test_image_locality(name: str, images: list[str], nodes: list[dict], formula: list[int],
                        want: list[int]) -> None:
    assert formula == want
    snap = snapshot(nodes)
    got = run_score(ImageLocality(), pod(images=images), snap,
                    [n["metadata"]["name"] for n in nodes])
    assert got == want


def test_image_on_every_node_counts_fully_and_tags_are_normalised() -> None:
    nodes = [node("a", images=[(["nginx:latest"], 600 * MB)]),
             node("b", images=[(["docker.io/library/nginx:latest"], 600 * MB)])]
    snap = snapshot(nodes)
    # "nginx" normalises to "nginx:latest"; node-side names are not normalised.
    got = run_score(ImageLocality(), pod(images=["nginx"]), snap, ["a", "b"])
    assert got == [expected(int(600 * MB * 0.5), 1), 0]
