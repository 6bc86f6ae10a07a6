"""The store at 100,000 objects: paging, compaction, restart and memory per object.

Run: ``.venv/bin/python bench/store_scale_bench.py [--quick] [--no-record]``

For 10,000 and 100,000 pod-sized objects (``bench/store_bench.make_pod``, ~1 KB
of JSON each) in a fresh store, in this process:

* creates/s (durable: each write is in the kernel before it returns);
* ``list`` of everything with ``limit=500`` and the continue token (what
  kubectl and informers do with ``--chunk-size``): ms per page and for the
  whole walk, and the page count (each page must hold 500 but the last);
* one label-selected list (1 object in 100 labelled) and one full list;
* compaction (the state file rewritten from memory) and restart (close, then
  reopen and replay) in ms;
* memory per object: the process's RSS growth over the creates, divided by
  the count (the store keeps each object's JSON text, its index entry, and
  its share of the 10,000-event history ring).

Baseline in the same run: the 10,000-object row. Per-object costs (ms per
page, compaction and restart per object, bytes per object) should stay flat
from 10,000 to 100,000 objects; the ratio column shows 100,000 / 10,000.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from bench.store_bench import make_pod
from minikube_py.api.labels import parse_selector
from minikube_py.store.store import Store

PAGE = 500


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def pod(i: int) -> dict[str, Any]:
    obj = make_pod(i)
    obj["metadata"]["name"] = f"web-{i:06d}"
    if i % 100 == 0:
        obj["metadata"]["labels"]["sample"] = "yes"
    return obj


def measure(n: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="store-scale-"))
    try:
        gc.collect()
        before = rss_bytes()
        store = Store(root / "s", compact_records=10 * n)  # no compaction mid-run
        started = time.perf_counter()
        for i in range(n):
            store.create("pods", pod(i))
        creates = n / (time.perf_counter() - started)
        gc.collect()
        per_object = (rss_bytes() - before) / n

        pages = 0
        token: str | None = None
        seen = 0
        started = time.perf_counter()
        while True:
            page = store.list_raw("pods", limit=PAGE, continue_token=token)
            pages += 1
            seen += len(page.items)
            if page.continue_token is None:
                break
            if len(page.items) != PAGE:
                raise AssertionError(f"page {pages} held {len(page.items)} items, not {PAGE}")
            token = page.continue_token
        walk = time.perf_counter() - started
        if seen != n:
            raise AssertionError(f"the paged list saw {seen} objects, not {n}")

        started = time.perf_counter()
        sampled = store.list_raw("pods", label_selector=parse_selector("sample=yes"))
        selected_ms = (time.perf_counter() - started) * 1000
        if len(sampled.items) != (n + 99) // 100:
            raise AssertionError(f"the selector found {len(sampled.items)} objects")
        started = time.perf_counter()
        full = store.list_raw("pods")
        full_ms = (time.perf_counter() - started) * 1000
        if len(full.items) != n:
            raise AssertionError(f"the full list held {len(full.items)} objects")

        started = time.perf_counter()
        store.compact()
        compact_ms = (time.perf_counter() - started) * 1000
        store.close()
        started = time.perf_counter()
        reopened = Store(root / "s")
        reopen_ms = (time.perf_counter() - started) * 1000
        count = reopened.count("pods")
        reopened.close()
        if count != n:
            raise AssertionError(f"the reopened store holds {count} objects, not {n}")
        return {"creates_per_s": creates, "bytes_per_object": per_object,
                "page_ms": walk * 1000 / pages, "walk_ms": walk * 1000, "pages": pages,
                "selected_ms": selected_ms, "full_ms": full_ms,
                "compact_ms": compact_ms, "reopen_ms": reopen_ms}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1,000 and 10,000 objects")
    ap.add_argument("--no-record", action="store_true", help="print only; leave RESULTS.md")
    args = ap.parse_args()
    small, large = (1_000, 10_000) if args.quick else (10_000, 100_000)
    results = {n: measure(n) for n in (small, large)}
    for n, r in results.items():
        print(f"{n:>7,} objects: {r['creates_per_s']:,.0f} creates/s, "
              f"{r['bytes_per_object']:,.0f} B/object, page of {PAGE} {r['page_ms']:.2f} ms "
              f"({r['pages']:.0f} pages, {r['walk_ms']:,.0f} ms), selector "
              f"{r['selected_ms']:.1f} ms, full list {r['full_ms']:,.0f} ms, compaction "
              f"{r['compact_ms']:,.0f} ms, restart {r['reopen_ms']:,.0f} ms")
    a, b = results[small], results[large]
    scale = large / small

    def ratio(key: str, per_object: bool) -> str:
        value = b[key] / a[key]
        return f"{value / scale if per_object else value:.2f}x"
    rows = [[f"{n:,}", f"{r['creates_per_s']:,.0f}", f"{r['bytes_per_object']:,.0f}",
             f"{r['page_ms']:.2f}", f"{r['walk_ms']:,.0f}", f"{r['selected_ms']:.1f}",
             f"{r['full_ms']:,.0f}", f"{r['compact_ms']:,.0f}", f"{r['reopen_ms']:,.0f}"]
            for n, r in results.items()]
    rows.append([f"{large:,} / {small:,}", ratio("creates_per_s", False),
                 ratio("bytes_per_object", False), ratio("page_ms", False),
                 ratio("walk_ms", True) + " per object", ratio("selected_ms", True)
                 + " per object", ratio("full_ms", True) + " per object",
                 ratio("compact_ms", True) + " per object",
                 ratio("reopen_ms", True) + " per object"])
    body = "\n".join([
        "## The store at 100,000 objects (`bench/store_scale_bench.py`)"
        + (" — quick run" if args.quick else ""),
        "",
        f"Run: {machine()}. Pod-sized objects (~1 KB of JSON) in a fresh store, in "
        "process; lists paged with limit=500 and the continue token. Baseline in the same "
        f"run: the {small:,}-object row; the last row divides the large size's figures by it "
        "(per object where the work grows with the count).",
        "",
        table(["objects", "creates/s", "memory B/object", f"ms per page of {PAGE}",
               "whole paged list ms", "label-selected list ms", "full list ms",
               "compaction ms", "restart ms"], rows),
    ])
    print(body)
    if not args.no_record:
        record("store_scale_bench", body)


if __name__ == "__main__":
    main()
