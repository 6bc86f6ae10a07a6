"""Writer process for the crash test (run as a script, killed with SIGKILL).

Writes creates, updates and deletes as fast as it can, compacting often so
kills also land during compaction, and prints one line per *acknowledged*
write to stdout (unbuffered): ``<op> <key> <resourceVersion> <counter>``.
A third argument ``encrypt`` keeps the pods encrypted on disk.
"""

from __future__ import annotations

import os
import random
import sys

from minikube_py.store.store import Store


def main() -> None:
    directory, seed = sys.argv[1], int(sys.argv[2])
    encrypted = {"pods"} if sys.argv[3:] == ["encrypt"] else set()
    rng = random.Random(seed)
    store = Store(directory, compact_records=300, compact_interval=0.05, encrypted=encrypted)
    out = sys.stdout.fileno()
    os.write(out, b"ready\n")
    counters: dict[str, int] = {}
    while True:
        key = f"p{rng.randrange(150)}"
        if key not in counters:
            obj = store.create("pods", {
                "metadata": {"name": key, "namespace": "default", "annotations": {"n": "0"}},
                "spec": {"containers": [{"name": "c", "image": "busybox", "args": ["x" * 200]}]},
            })
            counters[key] = 0
            op = "put"
        elif rng.random() < 0.1:
            obj = store.delete("pods", "default", key).object
            del counters[key]
            op = "del"
        else:
            counters[key] += 1
            current = store.get("pods", "default", key)
            current["metadata"]["annotations"]["n"] = str(counters[key])
            obj = store.update("pods", current)
            op = "put"
        rv = obj["metadata"]["resourceVersion"]
        os.write(out, f"{op} {key} {rv} {counters.get(key, -1)}\n".encode())


if __name__ == "__main__":
    main()
