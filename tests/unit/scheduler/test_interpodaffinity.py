"""InterPodAffinity: required (anti-)affinity, the symmetric check, and scoring."""

from __future__ import annotations

from typing import Any

from minikube_py.scheduler.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
)

from .builders import filter_codes, node, pod, run_filter, run_score, snapshot

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
AFF = (ERR_REASON_AFFINITY,)
ANTI = (ERR_REASON_ANTI_AFFINITY,)
EXISTING_ANTI = (ERR_REASON_EXISTING_ANTI_AFFINITY,)


def term(labels: dict[str, str], key: str, **extra: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key, **extra}


def affinity(*terms: dict[str, Any], anti: bool = False) -> dict[str, Any]:
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def preferred(*items: tuple[int, dict[str, Any]], anti: bool = False) -> dict[str, Any]:
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "podAffinityTerm": t} for w, t in items]}}


def nodes() -> list[dict]:
    return [node("node1", zone="z1"), node("node2", zone="z1"), node("node3", zone="z2")]


NAMES = ["node1", "node2", "node3"]
SECURITY = {"security": "S1"}


def filt(p: dict, existing: list[dict], names: list[str] = NAMES) -> list:
    snap = snapshot(nodes(), existing)
    for ns in ("default", "other"):
        snap.set_namespace({"metadata": {"name": ns, "labels": {"team": ns}}})
    return run_filter(InterPodAffinity(), p, snap, names)


def test_required_affinity_in_zone() -> None:
    existing = [pod(node_name="node1", labels=SECURITY)]
    p = pod(affinity=affinity(term(SECURITY, ZONE)))
    assert filt(p, existing) == [None, None, AFF]
    snap = snapshot(nodes(), existing)
    assert filter_codes(InterPodAffinity(), p, snap, ["node3"]) == [
        "UnschedulableAndUnresolvable"]


def test_required_affinity_needs_every_term() -> None:
    existing = [pod(node_name="node1", labels=SECURITY),
                pod(node_name="node3", labels={"app": "db"})]
    p = pod(affinity=affinity(term(SECURITY, ZONE), term({"app": "db"}, ZONE)))
    # No single pod matches both terms, and the pod does not match them itself.
    assert filt(p, existing) == [AFF, AFF, AFF]


def test_first_pod_of_a_self_affine_group_goes_anywhere_with_the_keys() -> None:
    p = pod(labels=SECURITY, affinity=affinity(term(SECURITY, ZONE)))
    assert filt(p, []) == [None, None, None]
    assert filt(pod(affinity=affinity(term(SECURITY, ZONE))), []) == [AFF, AFF, AFF]


def test_required_affinity_missing_topology_key() -> None:
    existing = [pod(node_name="node1", labels=SECURITY)]
    p = pod(affinity=affinity(term(SECURITY, "rack")))
    assert filt(p, existing) == [AFF, AFF, AFF]


def test_required_anti_affinity() -> None:
    existing = [pod(node_name="node1", labels={"app": "web"})]
    p = pod(affinity=affinity(term({"app": "web"}, HOST), anti=True))
    assert filt(p, existing) == [ANTI, None, None]
    p = pod(affinity=affinity(term({"app": "web"}, ZONE), anti=True))
    assert filt(p, existing) == [ANTI, ANTI, None]
    snap = snapshot(nodes(), existing)
    assert filter_codes(InterPodAffinity(), p, snap, ["node1"]) == ["Unschedulable"]


def test_existing_pods_anti_affinity_is_symmetric() -> None:
    existing = [pod(node_name="node1",
                    affinity=affinity(term({"app": "web"}, ZONE), anti=True))]
    assert filt(pod(labels={"app": "web"}), existing) == [EXISTING_ANTI, EXISTING_ANTI, None]
    assert filt(pod(labels={"app": "db"}), existing) == [None, None, None]


def test_namespaces() -> None:
    existing = [pod(node_name="node1", labels=SECURITY, namespace="other")]
    # By default a term only looks at the pod's own namespace.
    assert filt(pod(affinity=affinity(term(SECURITY, ZONE))), existing) == [AFF, AFF, AFF]
    listed = pod(affinity=affinity(term(SECURITY, ZONE, namespaces=["other"])))
    assert filt(listed, existing) == [None, None, AFF]
    selected = pod(affinity=affinity(term(SECURITY, ZONE, namespaceSelector={
        "matchLabels": {"team": "other"}})))
    assert filt(selected, existing) == [None, None, AFF]
    everywhere = pod(affinity=affinity(term(SECURITY, ZONE, namespaceSelector={})))
    assert filt(everywhere, existing) == [None, None, AFF]


def test_existing_anti_affinity_namespace_selector_matches_incoming_namespace() -> None:
    existing = [pod(node_name="node1", namespace="other", affinity=affinity(
        term({"app": "web"}, HOST, namespaceSelector={"matchLabels": {"team": "default"}}),
        anti=True))]
    assert filt(pod(labels={"app": "web"}), existing) == [EXISTING_ANTI, None, None]


def test_skip_without_any_affinity() -> None:
    assert filt(pod(labels={"app": "web"}), [pod(node_name="node1")]) == [None, None, None]


# ------------------------------------------------------------------------------ score


def score(p: dict, existing: list[dict], args: dict | None = None,
          normalize: bool = True) -> list[int] | None:
    return run_score(InterPodAffinity(args), p, snapshot(nodes(), existing), NAMES,
                     normalize=normalize)


def test_preferred_affinity() -> None:
    existing = [pod(node_name="node1", labels={"app": "db"})]
    p = pod(affinity=preferred((5, term({"app": "db"}, ZONE))))
    assert score(p, existing, normalize=False) == [5, 5, 0]
    assert score(p, existing) == [100, 100, 0]


def test_preferred_anti_affinity_is_negative() -> None:
    existing = [pod(node_name="node1", labels={"app": "db"})]
    p = pod(affinity=preferred((5, term({"app": "db"}, HOST)), anti=True))
    assert score(p, existing, normalize=False) == [-5, 0, 0]
    assert score(p, existing) == [0, 100, 100]


def test_affinity_and_anti_affinity_mixed() -> None:
    existing = [pod(node_name="node1", labels={"app": "db"}),
                pod(node_name="node3", labels={"app": "cache"})]
    p = pod(affinity={**preferred((8, term({"app": "db"}, ZONE))),
                      **preferred((3, term({"app": "cache"}, ZONE)), anti=True)})
    # raw 8, 8, -3 -> 100 * (raw - min) / (max - min).
    assert score(p, existing, normalize=False) == [8, 8, -3]
    assert score(p, existing) == [100, 100, 0]


def test_existing_pods_terms_count_for_the_incoming_pod() -> None:
    # Required affinity of an existing pod counts with hardPodAffinityWeight.
    existing = [pod(node_name="node3", affinity=affinity(term({"app": "web"}, ZONE)))]
    p = pod(labels={"app": "web"})
    assert score(p, existing, normalize=False) == [0, 0, 1]
    assert score(p, existing, {"hardPodAffinityWeight": 0}) is None
    existing = [pod(node_name="node1", affinity=preferred((4, term({"app": "web"}, HOST)),
                                                          anti=True))]
    assert score(p, existing, normalize=False) == [-4, 0, 0]


def test_score_skipped_without_affinity_anywhere() -> None:
    assert score(pod(labels={"app": "web"}), [pod(node_name="node1")]) is None
