"""Exec round trip and port-forward throughput, through the daemon, with kubectl.

Run: ``.venv/bin/python bench/streams_bench.py [--execs N] [--transfers N] [--mb M]``

The real path: the daemon as a process on Podman (1 node), a busybox pod
serving a file with httpd, and the real kubectl over HTTPS.

* **Exec round trip**: ``kubectl exec POD -- true`` against ``podman exec
  CONTAINER true`` on the same container, alternating one by one so both see
  the same moment of a noisy machine. Target (issue 17): median within 1.3x.
* **Port-forward throughput**: ``GET /big`` (M MB) through ``kubectl
  port-forward`` (SPDY in a WebSocket, kubectl 1.32's default) against the
  same GET straight to the pod's IP, alternating. Target: at least 0.5x of
  the direct throughput.

The cluster is torn down afterwards (``minikube-py teardown``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from bench.service_net_bench import Cluster, answers

IMAGE = "localhost/minikube-py/busybox:1.35"


def pod(mb: int) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "box"},
            "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
                "name": "box", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
                "ports": [{"containerPort": 8080}],
                "command": ["sh", "-c", f"mkdir -p /www && head -c {mb * 1000 * 1000} "
                            "/dev/zero > /www/big && exec httpd -f -p 8080 -h /www"]}]}}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - started


def fetch(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    size = 0
    with urllib.request.urlopen(url, timeout=120) as reply:
        while chunk := reply.read(1 << 20):
            size += len(chunk)
    return time.perf_counter() - started, size


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--execs", type=int, default=30)
    parser.add_argument("--transfers", type=int, default=3)
    parser.add_argument("--mb", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="streams-bench-") as tmp:
        cluster = Cluster(Path(tmp) / "state")
        forward: subprocess.Popen[str] | None = None
        try:
            cluster.kubectl("apply", "-f", "-", stdin=yaml.safe_dump(pod(args.mb)))
            cluster.kubectl("wait", "--for=condition=Ready", "pod/box", "--timeout=120s")
            ip = cluster.kubectl("get", "pod", "box", "-o", "jsonpath={.status.podIP}")
            direct = f"http://{ip}:8080/big"
            deadline = time.monotonic() + 60
            while not answers(f"http://{ip}:8080/") and time.monotonic() < deadline:
                time.sleep(0.2)
            cluster_id = (cluster.state / "cluster-id").read_text().strip()
            names = subprocess.run(
                ["podman", "ps", "--format", "{{.Names}}", "--filter",
                 f"label=minikube-py.io/cluster={cluster_id}", "--filter",
                 "label=minikube-py.io/name=box"], capture_output=True, text=True,
                check=True).stdout.split()
            container = next(n for n in names if not n.endswith("-infra"))
            kubectl = ["kubectl", "--kubeconfig", str(cluster.state / "kubeconfig")]
            ours, baseline = [], []
            timed([*kubectl, "exec", "box", "--", "true"])  # warm caches on both paths
            timed(["podman", "exec", container, "true"])
            for _ in range(args.execs):
                ours.append(timed([*kubectl, "exec", "box", "--", "true"]))
                baseline.append(timed(["podman", "exec", container, "true"]))
            forward = subprocess.Popen([*kubectl, "port-forward", "pod/box", "18765:8080"],
                                       stdout=subprocess.PIPE, text=True)
            assert forward.stdout is not None
            forward.stdout.readline()
            through, straight = [], []
            daemon, client = psutil.Process(cluster.proc.pid), psutil.Process(forward.pid)
            busy = {"daemon": 0.0, "kubectl": 0.0}
            forwarding = 0.0
            for _ in range(args.transfers):
                before = _cpu(daemon), _cpu(client)
                seconds, size = fetch("http://127.0.0.1:18765/big")
                busy["daemon"] += _cpu(daemon) - before[0]
                busy["kubectl"] += _cpu(client) - before[1]
                forwarding += seconds
                assert size == args.mb * 1000 * 1000, size
                through.append(size / seconds / 1e6)
                seconds, size = fetch(direct)
                straight.append(size / seconds / 1e6)
        finally:
            if forward is not None:
                forward.kill()
                forward.wait(10)
            cluster.stop()
    exec_ratio = statistics.median(ours) / statistics.median(baseline)
    pf_ratio = statistics.median(through) / statistics.median(straight)
    rows = [
        ["`kubectl exec box -- true`", f"{statistics.median(ours) * 1000:.0f} ms",
         f"{max(ours) * 1000:.0f} ms", str(len(ours))],
        ["`podman exec CONTAINER true` (baseline)",
         f"{statistics.median(baseline) * 1000:.0f} ms", f"{max(baseline) * 1000:.0f} ms",
         str(len(baseline))],
    ]
    flows = [
        [f"`kubectl port-forward` ({args.mb} MB GET)", f"{statistics.median(through):.0f}",
         f"{min(through):.0f}", str(len(through))],
        [f"straight to the pod IP ({args.mb} MB GET, baseline)",
         f"{statistics.median(straight):.0f}", f"{min(straight):.0f}", str(len(straight))],
    ]
    # kubectl's CPU per byte is its own: what it alone would need at the target.
    kubectl_at_target = busy["kubectl"] / forwarding * 0.5 * statistics.median(straight) / \
        statistics.median(through)
    body = "\n".join([
        "## Exec and port-forward (`bench/streams_bench.py`)", "",
        f"Run: {machine()}. Daemon in its own process on Podman (1 node), the real kubectl "
        "1.32 over HTTPS; each pair alternated one by one.", "",
        table(["exec round trip", "median", "max", "runs"], rows), "",
        table(["transfer", "median MB/s", "min MB/s", "runs"], flows), "",
        f"Target exec round trip <= 1.3x `podman exec`: **{exec_ratio:.2f}x "
        f"({'met' if exec_ratio <= 1.3 else 'NOT met'})**. Target port-forward throughput "
        f">= 0.5x direct: **{pf_ratio:.2f}x ({'met' if pf_ratio >= 0.5 else 'NOT met'})**.", "",
        f"CPU while forwarding (of one core): daemon {busy['daemon'] / forwarding:.0%}, "
        f"kubectl {busy['kubectl'] / forwarding:.0%}; the direct path needs neither. On "
        f"{os.cpu_count()} cores, kubectl's own share at 0.5x of the direct rate would be "
        f"about {kubectl_at_target:.1f} cores."])
    print(body)
    record("streams_bench", body)


if __name__ == "__main__":
    main()
