"""Footprint benchmark: an idle control plane with 3 nodes and 10 running pods.

Run: ``.venv/bin/python bench/footprint_bench.py [--seconds 60] [--settle 10] [--no-record]``

Two daemons run side by side in the same window, each a real ``minikube-py
daemon`` process with 3 nodes and a Deployment of 10 replicas
(``localhost/minikube-py/busybox:1.35`` running ``sleep 3600``):

* ``--runtime podman``: real containers. The daemon's own process is *our*
  footprint; the Podman service it started (``podman system service``, with
  its descendants) and the containers' ``conmon`` monitors are the runtime's,
  reported apart. The containers themselves (``sleep``, the infra
  containers' ``catatonit``) are the workload and are not counted.
* ``--runtime fake``: hollow nodes, everything in-process; the baseline that
  shows what the control plane costs with no runtime to talk to.

Once every pod is Running the daemons are left alone for ``--settle`` seconds,
then sampled with psutil for ``--seconds``: CPU as the process's
``cpu_times`` (user + system) delta over wall time, in % of one core; RSS
once a second (mean and max), USS once at the end. Per thread,
``/proc/PID/task/*`` gives CPU ticks and voluntary context switches (each is
the thread blocking on a timer, a lock or a socket and being woken again: the
"wakeups" that keep an idle process from sleeping); thread names come from
the daemon itself: it is
started through a few lines that run the same entry point
(``minikube_py.cli.main.main``, as ``python -m minikube_py`` does) and write
``{native thread id: name}`` to a file on SIGUSR1. Nothing else differs.

Targets (issue 8): the idle daemon uses <= 1 % of one core and <= 80 MB RSS.
Quoted, not measured here: k3s (server with a workload) 6 % of a core and
1596 MB (docs.k3s.io, Resource Profiling); minikube about 3.4 % of a core idle
(as quoted in issue 8; minikube's CPU usage benchmarks, read off a chart).
Prints the figures and records them in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from tests.hostclean import sweep

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "localhost/minikube-py/busybox:1.35"
REPLICAS = 10
NODES = 3
TARGET_CPU = 1.0  # % of one core
TARGET_RSS = 80.0  # MB
TICKS = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024

# The daemon's entry point plus a SIGUSR1 handler that names its threads (by
# native id) in a file, so /proc/PID/task/TID can be attributed to a loop.
PROBE = r"""
import json, os, signal, sys, threading
def _names(signum, frame):
    path = os.environ["FOOTPRINT_THREADS"]
    with open(path + ".tmp", "w") as f:
        json.dump({str(t.native_id): t.name for t in threading.enumerate()}, f)
    os.replace(path + ".tmp", path)
signal.signal(signal.SIGUSR1, _names)
from minikube_py.cli.main import main
sys.exit(main(sys.argv[1:]))
"""

QUOTED = [
    # (what, CPU % of one core, RSS MB, source)
    ("k3s server with a workload (quoted)", "6", "1,596",
     "docs.k3s.io/reference/resource-profiling (K3s v1.26.5, Intel 8375C)"),
    ("minikube, idle (quoted, approximate)", "~3.4", "",
     "issue 8; minikube.sigs.k8s.io/docs/benchmarks/cpuusage/linux (chart)"),
]


def deployment() -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "idle", "namespace": "default"},
            "spec": {"replicas": REPLICAS, "selector": {"matchLabels": {"app": "idle"}},
                     "template": {"metadata": {"labels": {"app": "idle"}}, "spec": {
                         "terminationGracePeriodSeconds": 0,
                         "containers": [{"name": "sleep", "image": IMAGE,
                                         "imagePullPolicy": "IfNotPresent",
                                         "command": ["sleep", "3600"]}]}}}}


@dataclass
class Daemon:
    runtime: str
    state: Path
    proc: subprocess.Popen[str]
    log: list[str] = field(default_factory=list)
    startup: float = 0.0  # seconds from spawning the process to "daemon running"

    @property
    def threads_file(self) -> Path:
        return self.state.parent / f"threads-{self.runtime}.json"

    def client(self) -> HTTPClient:
        return HTTPClient(load(self.state / "kubeconfig"))

    def thread_names(self) -> dict[int, str]:
        """{native id: thread name}, asked of the daemon now."""
        self.threads_file.unlink(missing_ok=True)
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if self.threads_file.exists():
                return {int(k): v for k, v in json.loads(self.threads_file.read_text()).items()}
            time.sleep(0.05)
        return {}

    def stop(self) -> None:
        """Delete the pods (a stopped daemon leaves its containers running, as a
        restarting kubelet does), then stop the daemon."""
        if self.proc.poll() is None:
            try:
                client = self.client()
                client.delete("deployments", "default", "idle")
                deadline = time.monotonic() + 60
                while client.list("pods", namespace="default").items and \
                        time.monotonic() < deadline:
                    time.sleep(0.5)
            except Exception as exc:  # stop the daemon anyway
                print(f"warning: {self.runtime}: cleaning up failed: {exc}", file=sys.stderr)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_daemon(state: Path, runtime: str, timeout: float = 120) -> Daemon:
    """A daemon on a free port, returned once it logs that it is running."""
    env = {**os.environ, "FOOTPRINT_THREADS": str(state.parent / f"threads-{runtime}.json")}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, "daemon", "--state-dir", str(state),
         "--listen", "127.0.0.1:0", "--nodes", str(NODES), "--runtime", runtime,
         "--log-level", "info"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    daemon = Daemon(runtime, state, proc)
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        daemon.log.append(line)
        if "daemon running" in line:
            daemon.startup = time.monotonic() - t0
            # Keep reading: a full pipe would block the daemon's logging.
            threading.Thread(target=_drain, args=(proc, daemon.log), daemon=True).start()
            return daemon
    proc.kill()
    raise SystemExit(f"the {runtime} daemon did not start:\n" + "".join(daemon.log[-30:]))


def _drain(proc: subprocess.Popen[str], log: list[str]) -> None:
    assert proc.stderr is not None
    for line in proc.stderr:
        log.append(line)
        del log[:-2000]


def wait_running(daemon: Daemon, timeout: float = 180) -> None:
    """Until all REPLICAS pods of the deployment run every container."""
    client = daemon.client()
    deadline = time.monotonic() + timeout
    running = 0
    while time.monotonic() < deadline:
        pods = client.list("pods", namespace="default", label_selector="app=idle").items
        running = sum(
            1 for p in pods
            if (p.get("status") or {}).get("phase") == "Running"
            and not (p.get("metadata") or {}).get("deletionTimestamp")
            and all("running" in (s.get("state") or {})
                    for s in (p.get("status") or {}).get("containerStatuses") or [{}]))
        if running == REPLICAS and len(pods) == REPLICAS:
            return
        time.sleep(0.5)
    raise SystemExit(f"{daemon.runtime}: only {running}/{REPLICAS} pods running after "
                     f"{timeout:.0f} s:\n" + "".join(daemon.log[-30:]))


# -- processes ---------------------------------------------------------------


def podman_service(daemon: Daemon) -> list[psutil.Process]:
    """The Podman service the daemon started, and everything below it."""
    out: list[psutil.Process] = []
    for child in psutil.Process(daemon.proc.pid).children():
        try:
            cmd = child.cmdline()
        except psutil.Error:
            continue
        if "system" in cmd and "service" in cmd:
            out.append(child)
            out += child.children(recursive=True)
    return out


def conmons(daemon: Daemon) -> list[psutil.Process]:
    """The conmon processes of this daemon's containers (infra ones included).

    conmon double-forks, so it is not the service's child: it is found by the
    container id it is given (``-c ID``), matched against the containers of
    this daemon's cluster (Podman's storage is host-wide: the service lists
    every container on the host, other clusters' too).
    """
    socket = f"unix://{daemon.state}/podman/podman.sock"
    cluster = (daemon.state / "cluster-id").read_text().strip()
    ids = set(subprocess.run(
        ["podman", "--url", socket, "ps", "-a", "--no-trunc", "--format", "{{.ID}}",
         "--filter", f"label=minikube-py.io/cluster={cluster}"],
        capture_output=True, text=True, check=True).stdout.split())
    out = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "conmon" and ids & set(proc.info["cmdline"] or ()):
            out.append(proc)
    return out


class EventCounter:
    """Counts the host's Podman events (container and pod) while it runs.

    Podman's event log is host-wide and every daemon reads all of it (and drops
    what is not its own), so other Podman activity on the machine shows up in
    the daemon's ``podman-events`` threads: this puts a number on it.
    """

    def __init__(self, cluster: str) -> None:
        self.total = 0
        self.ours = 0
        self._mark = f'"minikube-py.io/cluster":"{cluster}"'
        self._proc = subprocess.Popen(
            ["podman", "events", "--format", "json", "--filter", "type=container",
             "--filter", "type=pod"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self.total += 1
            self.ours += self._mark in line

    def stop(self) -> tuple[int, int]:
        """(events on the host, events of the given cluster) since the start."""
        self._proc.terminate()
        self._proc.wait()
        return self.total, self.ours


@dataclass
class Usage:
    """CPU and RSS of a group of processes over the window."""

    cpu_pct: float
    rss_mean: float  # MB
    rss_max: float  # MB
    uss: float  # MB at the end: memory only these processes hold (RSS counts shared pages)
    processes: int


class Group:
    """Processes sampled together: CPU from the first and last sample, RSS each time."""

    def __init__(self, procs: list[psutil.Process]) -> None:
        self.procs = procs
        self.cpu0 = self._cpu()
        self.t0 = time.monotonic()
        self.rss: list[float] = []

    def _cpu(self) -> dict[int, float]:
        out = {}
        for p in self.procs:
            try:
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
            except psutil.Error:
                pass
        return out

    def sample(self) -> None:
        total = 0
        for p in self.procs:
            with contextlib.suppress(psutil.Error):  # gone meanwhile: counts nothing
                total += p.memory_info().rss
        self.rss.append(total / MB)

    def finish(self) -> Usage:
        cpu1, wall = self._cpu(), time.monotonic() - self.t0
        used = sum(cpu1[pid] - self.cpu0[pid] for pid in cpu1 if pid in self.cpu0)
        uss = 0
        for p in self.procs:
            with contextlib.suppress(psutil.Error):
                uss += p.memory_full_info().uss
        return Usage(100 * used / wall, statistics.fmean(self.rss) if self.rss else 0.0,
                     max(self.rss, default=0.0), uss / MB, len(self.procs))


def task_stats(pid: int) -> dict[int, tuple[int, int]]:
    """{thread id: (CPU ticks, voluntary context switches)} from /proc."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            ticks = int(fields[11]) + int(fields[12])  # utime + stime
            status = (task / "status").read_text()
            vol = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M)[1])  # type: ignore[index]
        except (OSError, ValueError, TypeError):
            continue
        out[int(task.name)] = (ticks, vol)
    return out


def thread_kind(name: str) -> str:
    """Group threads by loop: node names and instance numbers become N."""
    name = re.sub(r"node-\d+", "node-N", name)
    name = re.sub(r"\(.*\)", "", name).strip()
    return re.sub(r"-\d+$", "-N", re.sub(r"^Thread-\d+", "Thread-N", name))


@dataclass
class Threads:
    """Per-thread-kind CPU % and wakeups/s over the window."""

    rows: list[tuple[str, int, float, float]]  # kind, threads, cpu %, wakeups/s
    total_wakeups: float


def thread_usage(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]],
                 names: dict[int, str], wall: float) -> Threads:
    kinds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    total = 0.0
    for tid, (ticks1, vol1) in after.items():
        ticks0, vol0 = before.get(tid, (ticks1, vol1))
        # A thread Python does not know is native (OpenBLAS's worker, for one).
        kind = thread_kind(names.get(tid, "?" if not names else "native (not Python)"))
        row = kinds[kind]
        row[0] += 1
        row[1] += 100 * (ticks1 - ticks0) / TICKS / wall
        row[2] += (vol1 - vol0) / wall
        total += (vol1 - vol0) / wall
    rows = sorted(((k, int(v[0]), v[1], v[2]) for k, v in kinds.items()),
                  key=lambda r: (-r[3], -r[2], r[0]))
    return Threads(rows, total)


# -- the run -----------------------------------------------------------------


@dataclass
class Result:
    daemon: Usage
    threads: Threads
    startup: float
    service: Usage | None = None
    conmon: Usage | None = None
    #: Podman events per second on the host during the window: all, and this daemon's.
    host_events: tuple[float, float] = (0.0, 0.0)


def measure(daemons: list[Daemon], seconds: float) -> dict[str, Result]:
    names = {d.runtime: d.thread_names() for d in daemons}
    for d in daemons:
        if not names[d.runtime]:
            print(f"warning: {d.runtime} daemon did not name its threads", file=sys.stderr)
    groups: dict[str, dict[str, Group]] = {}
    for d in daemons:
        g = {"daemon": Group([psutil.Process(d.proc.pid)])}
        if d.runtime == "podman":
            g["service"] = Group(podman_service(d))
            g["conmon"] = Group(conmons(d))
        groups[d.runtime] = g
    tasks0 = {d.runtime: task_stats(d.proc.pid) for d in daemons}
    podman = next(d for d in daemons if d.runtime == "podman")
    events = EventCounter((podman.state / "cluster-id").read_text().strip())
    start = time.monotonic()
    # RSS once a second, on whole seconds since the start (no drift).
    for tick in range(int(seconds) + 1):
        time.sleep(max(0.0, start + tick - time.monotonic()))
        for g in groups.values():
            for grp in g.values():
                grp.sample()
    wall = time.monotonic() - start
    total, ours = events.stop()
    host_events = (total / wall, ours / wall)
    out = {}
    for d in daemons:
        g = groups[d.runtime]
        threads = thread_usage(tasks0[d.runtime], task_stats(d.proc.pid), names[d.runtime], wall)
        out[d.runtime] = Result(
            g["daemon"].finish(), threads, d.startup,
            g["service"].finish() if "service" in g else None,
            g["conmon"].finish() if "conmon" in g else None, host_events)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="sampling window (default 60)")
    ap.add_argument("--settle", type=float, default=10.0,
                    help="idle seconds after all pods run, before sampling (default 10)")
    ap.add_argument("--no-record", action="store_true", help="print only; leave RESULTS.md")
    args = ap.parse_args()
    if shutil.which("podman") is None:
        raise SystemExit("podman is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        daemons: list[Daemon] = []
        try:
            for runtime in ("podman", "fake"):
                daemons.append(start_daemon(Path(tmp) / runtime / "state", runtime))
            for d in daemons:
                d.client().create(deployment())
            for d in daemons:
                wait_running(d)
            print(f"all pods running; settling {args.settle:g} s, then sampling "
                  f"{args.seconds:g} s", flush=True)
            time.sleep(args.settle)
            results = measure(daemons, args.seconds)
            load = os.getloadavg()[0]
        finally:
            for d in daemons:
                d.stop()
            # A pod the API no longer lists may still be in Podman's hands (4.3
            # takes its time removing pods), and the cluster's pod network and
            # Service rules outlive a stopped daemon by design: leave nothing.
            left = sweep(Path(tmp))
            if left:
                print(f"removed what the benchmark's clusters left: {', '.join(left)}",
                      flush=True)
    report(results, args, load)


def fmt(u: Usage | None) -> list[str]:
    if u is None:
        return ["", "", "", "", ""]
    return [f"{u.cpu_pct:.2f}", f"{u.rss_mean:.1f}", f"{u.rss_max:.1f}", f"{u.uss:.1f}",
            str(u.processes)]


def report(results: dict[str, Result], args: argparse.Namespace, load: float) -> None:
    pod, fake = results["podman"], results["fake"]
    assert pod.service is not None and pod.conmon is not None
    runtime_cpu = pod.service.cpu_pct + pod.conmon.cpu_pct
    runtime_rss = pod.service.rss_mean + pod.conmon.rss_mean
    rows = [
        ["minikube-py daemon, podman runtime (ours)", *fmt(pod.daemon),
         f"{pod.threads.total_wakeups:.0f}"],
        ["minikube-py daemon, fake runtime (ours, in-process baseline)", *fmt(fake.daemon),
         f"{fake.threads.total_wakeups:.0f}"],
        ["Podman service started by the daemon (runtime)", *fmt(pod.service), ""],
        [f"conmon of the {pod.conmon.processes} containers (runtime)", *fmt(pod.conmon), ""],
        ["podman: ours + runtime", f"{pod.daemon.cpu_pct + runtime_cpu:.2f}",
         f"{pod.daemon.rss_mean + runtime_rss:.1f}", "",
         f"{pod.daemon.uss + pod.service.uss + pod.conmon.uss:.1f}", "", ""],
    ]
    headers = ["what", "CPU % of one core", "RSS mean MB", "RSS max MB", "USS MB",
               "processes", "wakeups/s"]
    print(table(headers, rows))
    for runtime, res in results.items():
        print(f"\nthreads of the {runtime} daemon (CPU %, wakeups/s):")
        for kind, n, cpu, wake in res.threads.rows:
            print(f"  {kind:<45} x{n:<3} {cpu:6.2f} %  {wake:7.1f}/s")
    cpu_ok = pod.daemon.cpu_pct <= TARGET_CPU
    rss_ok = pod.daemon.rss_max <= TARGET_RSS
    verdict = (f"Targets for our daemon (podman runtime): CPU <= {TARGET_CPU:g} % of one core: "
               f"**{pod.daemon.cpu_pct:.2f} % ({'met' if cpu_ok else 'NOT met'})**; RSS <= "
               f"{TARGET_RSS:g} MB: **max {pod.daemon.rss_max:.1f} MB "
               f"({'met' if rss_ok else 'NOT met'})**. The runtime it drives adds "
               f"{runtime_cpu:.2f} % and {runtime_rss:.1f} MB. Start-up (process spawned -> "
               f"daemon running, images present): {pod.startup:.1f} s with Podman (includes "
               f"starting and probing the Podman service), {fake.startup:.1f} s with hollow "
               "nodes.")
    print(f"\nhost Podman events during the window: {pod.host_events[0]:.1f}/s, of which "
          f"{pod.host_events[1]:.1f}/s about this daemon's pods")
    print("\n" + verdict)
    top = [r for r in pod.threads.rows if r[3] >= 0.05 or r[2] >= 0.01][:12]
    thread_rows = [[k, str(n), f"{c:.2f}", f"{w:.1f}"] for k, n, c, w in top]
    if args.no_record:
        return
    record("footprint_bench", "\n".join([
        "## Footprint (`bench/footprint_bench.py`)",
        "",
        f"Run: {machine()}. Two daemons side by side in the same window, each with "
        f"{NODES} nodes and a Deployment of {REPLICAS} replicas ({IMAGE}, `sleep 3600`), all "
        f"Running, left alone {args.settle:g} s, then sampled {args.seconds:g} s with psutil: "
        "CPU = cpu_times delta / wall time (% of one core), RSS once a second. The Podman "
        "service the daemon started and the containers' conmon monitors are the runtime's "
        "share, reported apart; the containers themselves are the workload. USS: memory "
        "only those processes hold (RSS also counts shared library pages). Wakeups/s: "
        "voluntary context switches per second over the daemon's threads (a thread "
        "blocked on a timer, lock or socket, then woken). Host load average at the end "
        f"of the window: {load:.1f} on {os.cpu_count()} CPUs; Podman events on the host "
        f"during the window: {pod.host_events[0]:.1f}/s, of which {pod.host_events[1]:.1f}/s "
        "about this daemon's pods. Other work slows the Podman service's answers, "
        "and every daemon reads the host-wide event log and drops what is not its own "
        "(the `podman-events` threads below).",
        "",
        table(headers, rows),
        "",
        table(["reference (not measured here)", "CPU % of one core", "RSS MB", "source"],
              [list(q) for q in QUOTED]),
        "",
        verdict,
        "",
        "Where the idle daemon (podman runtime) wakes up, per kind of thread:",
        "",
        table(["thread", "count", "CPU %", "wakeups/s"], thread_rows),
    ]))


if __name__ == "__main__":
    main()
