"""Service data plane benchmark: one full sync of 1,000 services x 10 endpoints.

Run (as root): ``.venv/bin/python bench/proxy_sync_bench.py [--quick]``

In a network namespace of its own (``ip netns add``, removed at the end), so no
rule ever reaches the host's tables, it measures each step of a sync:

* model: :func:`from_objects` over the Services and EndpointSlices (API dicts);
* build: :func:`build_ruleset` (the pure function; target well under 0.5 s);
* apply: :meth:`Nft.apply` (JSON encoding + ``nft -j -f -``, one transaction),
  first into an empty namespace, then replacing an identical table, then
  replacing it with one endpoint changed (the steady-state sync);
* the same ruleset in nft's text syntax (:func:`~.text.to_text` + ``nft -f -``),
  replacing the table alternately with the JSON apply, after checking that both
  syntaxes leave the same table in the kernel, to show what JSON costs.

The mix: every service ClusterIP with one TCP port and 10 ready endpoints; every
5th also a NodePort; every 20th with ClientIP affinity. Each figure is the
median of ``--repeat`` runs. Prints the figures and records them in
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.network.proxy import Nft, ProxyState, build_ruleset, from_objects
from minikube_py.network.proxy.text import to_text

TABLE = "minikube-py-bench"


def objects(services: int, endpoints: int,
            changed: int = -1) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Services and their slices; service ``changed`` gets a different last endpoint."""
    svcs, slices = [], []
    for i in range(services):
        port: dict[str, Any] = {"name": "http", "port": 80, "targetPort": "http",
                                "protocol": "TCP"}
        spec: dict[str, Any] = {"type": "ClusterIP", "clusterIP": f"10.96.{i // 250}.{i % 250 + 1}",
                                "ports": [port]}
        if i % 5 == 0:
            spec["type"] = "NodePort"
            port["nodePort"] = 30000 + i
        if i % 20 == 0:
            spec["sessionAffinity"] = "ClientIP"
        svcs.append({"apiVersion": "v1", "kind": "Service",
                     "metadata": {"name": f"svc-{i}", "namespace": "default"}, "spec": spec})
        eps = []
        for j in range(endpoints):
            n = i * endpoints + j + (1 if i == changed and j == endpoints - 1 else 0)
            eps.append({"addresses": [f"10.{128 + n // 65536}.{n // 256 % 256}.{n % 256}"],
                        "conditions": {"ready": True}})
        slices.append({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                       "metadata": {"name": f"svc-{i}-abcde", "namespace": "default",
                                    "labels": {"kubernetes.io/service-name": f"svc-{i}"}},
                       "addressType": "IPv4",
                       "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
                       "endpoints": eps})
    return svcs, slices


def state(svcs: list[dict[str, Any]], slices: list[dict[str, Any]]) -> ProxyState:
    return ProxyState(table=TABLE, bridge="mkbench0", pod_cidr="10.128.0.0/9",
                      service_cidr="10.96.0.0/16", services=from_objects(svcs, slices),
                      comment="/var/lib/minikube-py/bench")


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median seconds of ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def listing(ns: str) -> list[dict[str, Any]]:
    """The table as the kernel holds it, without handles and set/map comments
    (nft 1.0.6 keeps those from text input but drops them from JSON input)."""
    out = subprocess.run(["ip", "netns", "exec", ns, "nft", "-j", "list", "table", "ip", TABLE],
                         capture_output=True, text=True, check=True).stdout
    items: list[dict[str, Any]] = json.loads(out)["nftables"]
    for item in items:
        for kind, body in item.items():
            if isinstance(body, dict):
                body.pop("handle", None)
                if kind in ("set", "map"):
                    body.pop("comment", None)
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 services, 1 repeat")
    ap.add_argument("--services", type=int, default=1000)
    ap.add_argument("--endpoints", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    services, repeat = (100, 1) if args.quick else (args.services, args.repeat)

    ns = f"mkp-bench-{secrets.token_hex(3)}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        nft = Nft(netns=ns)
        reason = nft.available()
        if reason is not None:
            sys.exit(f"nftables unusable: {reason}")
        svcs, slices = objects(services, args.endpoints)
        t_model, st = timed(lambda: state(svcs, slices), repeat)
        t_build, doc = timed(lambda: build_ruleset(st), repeat)
        t_dumps, _ = timed(lambda: json.dumps(doc, separators=(",", ":")), repeat)
        rules = sum("rule" in c.get("add", {}) for c in doc["nftables"])
        chains = sum("chain" in c.get("add", {}) for c in doc["nftables"])

        t_first, _ = timed(lambda: nft.apply(doc), 1)
        changed = build_ruleset(state(*objects(services, args.endpoints, changed=services // 2)))
        docs = itertools.cycle([changed, doc])
        t_changed, _ = timed(lambda: nft.apply(next(docs)), repeat)
        nft.apply(doc)
        from_json = listing(ns)

        t_text, text = timed(lambda: to_text(doc), repeat)
        # JSON and text replaces interleaved, so a busy neighbour on a shared
        # machine slows both alike.
        json_times, text_times = [], []
        for _ in range(repeat):
            json_times.append(timed(lambda: nft.apply(doc), 1)[0])
            text_times.append(timed(lambda: subprocess.run(
                ["ip", "netns", "exec", ns, "nft", "-f", "-"], input=text, text=True,
                capture_output=True, check=True), 1)[0])
        t_same, t_text_apply = statistics.median(json_times), statistics.median(text_times)
        same_table = listing(ns) == from_json
        nft.delete_table(TABLE)
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)

    print(f"{services} services x {args.endpoints} endpoints: {chains:,} chains, {rules:,} rules,"
          f" {len(json.dumps(doc)) / 1e6:.1f} MB of JSON")
    rows = [
        ["model (from_objects)", ms(t_model)],
        ["build (build_ruleset)", ms(t_build)],
        ["JSON encoding (inside apply)", ms(t_dumps)],
        ["apply, empty namespace", ms(t_first)],
        ["apply, replacing the same table", ms(t_same)],
        ["apply, one endpoint changed", ms(t_changed)],
        ["text syntax: to_text", ms(t_text)],
        ["text syntax: nft -f, replacing", ms(t_text_apply)],
    ]
    for name, value in rows:
        print(f"  {name:34s} {value:>7s} ms")
    verdict = "same table" if same_table else "DIFFERENT tables"
    ratio = t_same / (t_text + t_text_apply)
    print(f"  JSON vs text (both syntaxes leave the {verdict}): {ratio:.2f}x")
    record("proxy_sync_bench", "\n".join([
        "## Service data plane sync (`bench/proxy_sync_bench.py`)",
        "",
        f"Run: {machine()}, nft 1.0.6, in a throwaway network namespace. {services:,} services"
        f" x {args.endpoints} ready endpoints (every 5th a NodePort, every 20th ClientIP"
        f" affinity): {chains:,} chains, {rules:,} rules in one transaction. Median of"
        f" {repeat}.",
        "",
        table(["step", "ms"], rows),
        "",
        f"JSON apply / text apply (to_text + `nft -f`): **{ratio:.2f}x**; both leave the"
        f" {verdict} in the kernel. Target build < 500 ms: **{ms(t_build)} ms"
        f" ({'met' if t_build < 0.5 else 'missed'})**.",
    ]))
    if not same_table:
        sys.exit("the text rendering does not match the JSON document")


if __name__ == "__main__":
    main()
