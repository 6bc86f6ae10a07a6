"""Scale benchmark through the real path: a daemon process, hollow nodes, pods over HTTPS.

Run: ``.venv/bin/python bench/scale_bench.py [--quick] [--nodes N --pods M] [--no-record]``

Every measurement starts a fresh daemon as a user does (``python -m minikube_py
daemon --runtime fake --config NODES.yaml --state-dir DIR --listen
127.0.0.1:0``), with N hollow nodes of 4 CPU / 32Gi / 110 pods (the
scheduler_perf node template), waits for the API (kubeconfig written,
``/readyz``) and for every Node to be Ready, measures, then stops it (SIGTERM,
SIGKILL only if it hangs) and removes its state directory. Sizes: 500 nodes /
10,000 pods and 5,000 nodes / 100,000 pods; ``--quick``: 50 nodes / 500 pods.

* Throughput, twice: pods (one ``registry.k8s.io/pause:3.10`` container,
  ``IfNotPresent``, requests 100m CPU / 500Mi, namespace ``default``) are
  created over HTTPS by a separate process with ``--threads`` threads, once
  with the official client (``kubernetes``, configured from the daemon's
  kubeconfig) and once with ours (``HTTPClient``). A watch on pods in this
  process records when each pod is first seen bound (``spec.nodeName``) and
  first seen Running. Figures: creates/s, pods/s from the first create to the
  last pod bound, the time until all pods Running, and all-Running time /
  all-bound time (both from the first create). A watch on the Nodes records
  every node seen not Ready or tainted by the node lifecycle controller
  meanwhile, and the stalest node lease is listed when all pods run: whether
  the hollow kubelets' heartbeats kept up under the load (expected: none).
* Footprint, on the official client's daemon, from ``/proc/PID``: RSS and
  thread count with N idle nodes and once all pods run, and idle CPU (utime +
  stime, % of one core) over ``--idle-seconds`` (60; ``--quick``: 20) after
  ``--settle`` (75; ``--quick``: 10) seconds of rest. The rest outlasts the
  store's next look at its journal (every 60 s): the fold of the journal that
  creating the pods grew, a burst of a few seconds at 100,000 pods, belongs
  to the creating, not to holding them (later folds, at a quarter's growth
  of the state, are in). The window spans whole rounds of the hollow nodes'
  periodic work: their timer runs its duties, and the pods' periodic resyncs
  fall due, in rounds a tenth of the shorter heartbeat period apart (1 s at
  Kubernetes' defaults, 30 s at KWOK's; a 20 s window held one round or
  none), so the window is rounded up to whole rounds, worked out from
  ``--daemon-flags`` by the daemon's own flag parser and the kubelet pool's
  rule. The window holds none of the pods' periodic resyncs: on hollow
  nodes each pod's first comes 10 to 22.5 minutes after its latest sync
  (``--sync-frequency`` x 10, on the pod's own slot, kubelet/resync.py), so
  what they add to holding the pods is measured by ``bench/idle_bench.py``,
  minute by minute past every pod's first resync.
* Create latency: median and p90 of 200 sequential single creates (official
  client, one thread, after 5 unmeasured warm-up creates) on otherwise idle
  daemons with 3, 50, 500 and 5,000 hollow nodes (``--quick``: 3 and 50;
  ``--nodes N``: 3 and N). These pods name ``schedulerName: bench-none``, so
  they stay Pending: 200 pods of 100m do not fit on 3 nodes, and each create
  then measures the API path alone under the background work of N nodes.

Baseline in the same run: the bind-only ceiling. The same number of pods is
created with ``schedulerName: bench-none``, which the daemon's scheduler leaves
alone (it only queues pods whose ``schedulerName`` is its own,
``default-scheduler``; checked: none is bound when creation ends), then bound by
this process through the ``pods/binding`` subresource over HTTPS, round-robin
over the nodes, from ``--threads`` threads: pods/s from the first bind to the
last. ``create->bound / ceiling`` shows what creating and scheduling add to
binding alone.

Targets: >= 500 pods/s create->bound at 500 nodes and >= 300 pods/s at 5,000
nodes, all Running within 2x the all-bound time; 100,000 pods on 5,000 hollow
nodes with daemon RSS < 3 GB and idle CPU < 5 % of a core; create latency
(median) at 5,000 nodes within 1.5x of that at 3 nodes. Each is printed as met
/ NOT met with its figures (and the size it was measured at, when the run did
not include the target's size). Every wait has a time limit (``--min-rate``:
the slowest pods/s still waited for) and fails the run with a message instead
of hanging. Prints the figures and records them in bench/RESULTS.md (not with
``--no-record``).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import json
import math
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.client.http import HTTPClient, HTTPWatch
from minikube_py.client.kubeconfig import load
from minikube_py.controllers.nodelifecycle import DEFAULT_GRACE_PERIOD
from minikube_py.controlplane import Options
from minikube_py.controlplane.arguments import add_control_plane_arguments, options_from_args
from minikube_py.kubelet.node_lease import renew_interval
from minikube_py.kubelet.pool import default_timer_tick

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "registry.k8s.io/pause:3.10"
NAMESPACE = "default"
LABEL = "scale-bench"  # app=LABEL on the throughput and ceiling pods
NO_SCHEDULER = "bench-none"
PODS_PER_NODE_FIT = 40  # 4 CPU / 100m: the most pods a hollow node takes
LATENCY_CREATES = 200
LATENCY_WARMUP = 5
TICKS = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024
CLIENTS = {"official": "official client (kubernetes)", "ours": "our client (HTTPClient)"}

TARGET_RATE = {500: 500.0, 5000: 300.0}  # nodes -> create->bound pods/s
TARGET_RUNNING_RATIO = 2.0
TARGET_RSS_MB = 3 * 1024.0
TARGET_IDLE_CPU = 5.0  # % of one core
TARGET_FOOTPRINT_SIZE = (5000, 100_000)
TARGET_LATENCY_RATIO = 1.5
LATENCY_NODES_FULL = [3, 50, 500, 5000]
LATENCY_NODES_QUICK = [3, 50]

# Creates COUNT pods in another process, from THREADS threads, with the
# official client or ours; prints {"created", "first", "last", "cpu", "errors"}
# (time.monotonic() is CLOCK_MONOTONIC, one clock for every process on Linux;
# "cpu": the process's CPU seconds from the first create on).
CREATOR = r"""
import json, sys, threading, time
a = json.loads(sys.argv[1])
sys.path.insert(0, a["root"])
template, count, nthreads = a["template"], a["count"], a["threads"]
if a["client"] == "official":
    from kubernetes import client as k8s, config
    def new_create():
        api = k8s.CoreV1Api(config.new_client_from_config(config_file=a["kubeconfig"]))
        return lambda pod: api.create_namespaced_pod(a["namespace"], pod, _request_timeout=120)
else:
    from minikube_py.client.http import HTTPClient
    from minikube_py.client.kubeconfig import load
    from pathlib import Path
    shared = HTTPClient(load(Path(a["kubeconfig"])), timeout=120)  # a connection per thread
    def new_create():
        return lambda pod: shared.create(pod, namespace=a["namespace"])
def pod(i):
    meta = dict(template["metadata"], name=f'{a["prefix"]}-{i:06d}')
    return dict(template, metadata=meta)
starts, ends, errors = [], [], []
stop = threading.Event()
def work(t, create):
    first = last = None
    for i in range(t, count, nthreads):
        if stop.is_set():
            break
        t0 = time.monotonic()
        try:
            create(pod(i))
        except Exception as exc:
            errors.append(f"pod {i}: {type(exc).__name__}: {str(exc)[:300]}")
            stop.set()
            break
        first = t0 if first is None else first
        last = time.monotonic()
    if first is not None:
        starts.append(first)
        ends.append(last)
creates = [new_create() for _ in range(nthreads)]
cpu0 = time.process_time()  # the client's CPU for the creates, not for its imports
ts = [threading.Thread(target=work, args=(t, creates[t])) for t in range(nthreads)]
[t.start() for t in ts]
[t.join() for t in ts]
print(json.dumps({"created": count if not errors else -1, "first": min(starts, default=0.0),
                  "last": max(ends, default=0.0), "cpu": time.process_time() - cpu0,
                  "errors": errors[:5]}))
sys.exit(1 if errors else 0)
"""

# COUNT sequential creates with the official client, one thread; prints the
# latencies in ms (the warm-up creates left out).
LATENCY = r"""
import json, sys, time
a = json.loads(sys.argv[1])
from kubernetes import client as k8s, config
api = k8s.CoreV1Api(config.new_client_from_config(config_file=a["kubeconfig"]))
template, out = a["template"], []
for i in range(a["warmup"] + a["count"]):
    pod = dict(template, metadata=dict(template["metadata"], name=f"latency-{i:05d}"))
    t0 = time.perf_counter()
    api.create_namespaced_pod(a["namespace"], pod, _request_timeout=60)
    out.append((time.perf_counter() - t0) * 1000)
print(json.dumps(out[a["warmup"]:]))
"""


class BenchError(Exception):
    """The benchmark cannot go on; the message says why."""


def pod_template(*, label: str, scheduler: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{
        "name": "pause", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
        "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"labels": {"app": label}}, "spec": spec}


def node_name(i: int) -> str:
    return f"hollow-{i:05d}"


def nodes_yaml(nodes: int) -> str:
    lines = ["nodes:"]
    lines += [f'- {{name: {node_name(i)}, cpu: "4", memory: 32Gi, pods: 110}}'
              for i in range(nodes)]
    return "\n".join(lines) + "\n"


# -- processes ---------------------------------------------------------------

try:
    _LIBC: Any = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:
    _LIBC = None


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM it if this process dies (even by
    SIGKILL), so no daemon or client outlives the benchmark."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # unwind through every finally: daemons stopped, dirs removed


@dataclass
class Daemon:
    nodes: int
    workdir: Path
    #: More daemon flags (``--daemon-flags``), after the benchmark's own.
    flags: tuple[str, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    startup: float = 0.0

    @property
    def state(self) -> Path:
        return self.workdir / "state"

    @property
    def log_path(self) -> Path:
        return self.workdir / "daemon.stderr"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return "\n".join("    " + line for line in text)

    def check(self) -> None:
        """Raise if the daemon has exited."""
        if self.proc is not None and self.proc.poll() is not None:
            raise BenchError(f"the daemon ({self.nodes} nodes) exited with code "
                             f"{self.proc.returncode}; its last log lines:\n{self.log_tail()}")

    def client(self, timeout: float = 120.0) -> HTTPClient:
        return HTTPClient(load(self.state / "kubeconfig"), timeout=timeout)

    def start(self) -> None:
        self.workdir.mkdir(parents=True)
        config = self.workdir / "nodes.yaml"
        config.write_text(nodes_yaml(self.nodes))
        t0 = time.monotonic()
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "minikube_py", "daemon", "--runtime", "fake",
                 "--config", str(config), "--state-dir", str(self.state),
                 "--listen", "127.0.0.1:0", "--log-level", "warning", *self.flags],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                preexec_fn=_die_with_parent)
        limit = 60 + self.nodes / 50
        deadline = time.monotonic() + limit
        while True:
            self.check()
            if (self.state / "kubeconfig").exists():
                try:
                    self.client(timeout=10).request("GET", "/readyz")
                    break
                except Exception:  # not listening or not ready yet
                    pass
            if time.monotonic() > deadline:
                raise BenchError(f"the daemon ({self.nodes} nodes) was not ready after "
                                 f"{limit:.0f} s; its last log lines:\n{self.log_tail()}")
            time.sleep(0.1)
        client = self.client()
        limit = 60 + self.nodes / 20
        deadline = time.monotonic() + limit
        ready = 0
        while True:
            self.check()
            items = client.list("nodes").items
            ready = sum(1 for n in items if any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in (n.get("status") or {}).get("conditions") or []))
            if ready >= self.nodes:
                break
            if time.monotonic() > deadline:
                raise BenchError(f"only {ready}/{self.nodes} nodes Ready {limit:.0f} s after "
                                 f"the API was; last log lines:\n{self.log_tail()}")
            time.sleep(0.5)
        self.startup = time.monotonic() - t0

    def stop(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                print(f"warning: the daemon ({self.nodes} nodes, pid {proc.pid}) did not stop "
                      "within 120 s of SIGTERM; killing it", file=sys.stderr)
                proc.kill()
                proc.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextlib.contextmanager
def daemon(nodes: int, tmp: Path, what: str, flags: tuple[str, ...] = ()) -> Iterator[Daemon]:
    """A started daemon with ``nodes`` Ready nodes (``flags``: more daemon
    flags); always stopped and removed."""
    d = Daemon(nodes, Path(tempfile.mkdtemp(prefix=f"{nodes}-", dir=tmp)) / "d", flags)
    print(f"[{what}] starting a daemon with {nodes:,} hollow nodes", flush=True)
    try:
        d.start()
        print(f"[{what}] daemon pid {d.pid} ready, {nodes:,} nodes Ready in "
              f"{d.startup:.1f} s", flush=True)
        yield d
    finally:
        d.stop()
        shutil.rmtree(d.workdir.parent, ignore_errors=True)


def wait_until(what: str, done: Callable[[], bool], limit: float, d: Daemon,
               progress: Callable[[], str] = lambda: "",
               extra_check: Callable[[], None] = lambda: None) -> None:
    """Poll ``done`` until true; fail on timeout or if the daemon dies."""
    start = time.monotonic()
    said = start
    while not done():
        d.check()
        extra_check()
        now = time.monotonic()
        if now - start > limit:
            raise BenchError(f"timed out after {limit:.0f} s waiting for {what}"
                             + (f" ({progress()})" if progress() else ""))
        if now - said >= 30:
            said = now
            print(f"    ... {what}: {progress()} after {now - start:.0f} s", flush=True)
        time.sleep(0.2)


def run_script(script: str, args: dict[str, Any], d: Daemon) -> subprocess.Popen[str]:
    """Start ``script`` in another process, its output in files next to the
    daemon's (a pipe nobody reads could fill up); finish_script waits for it."""
    with (d.workdir / "script.out").open("w") as out, \
            (d.workdir / "script.err").open("w") as err:
        return subprocess.Popen([sys.executable, "-c", script, json.dumps(args)],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True,
                                cwd=ROOT, preexec_fn=_die_with_parent)


def finish_script(proc: subprocess.Popen[str], limit: float, d: Daemon, what: str,
                  progress: Callable[[], str] = lambda: "") -> Any:
    """Wait for a script started by run_script; its stdout's JSON."""
    try:
        wait_until(what, lambda: proc.poll() is not None, limit, d, progress)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out = (d.workdir / "script.out").read_text(errors="replace")
    err = (d.workdir / "script.err").read_text(errors="replace")
    try:
        result = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise BenchError(f"{what} failed (exit code {proc.returncode}):\n{err[-3000:]}") \
            from None
    if proc.returncode != 0:
        errors = result.get("errors") if isinstance(result, dict) else None
        raise BenchError(f"{what} failed: {errors}\n{err[-2000:]}")
    return result


def create_args(d: Daemon, client: str, count: int, threads: int,
                template: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {"root": str(ROOT), "kubeconfig": str(d.state / "kubeconfig"), "client": client,
            "count": count, "threads": threads, "template": template, "prefix": prefix,
            "namespace": NAMESPACE}


# -- /proc -------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, float]:
    """RSS and peak RSS (MB) and thread count of a process."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024 / MB
        elif key == "Threads":
            out[key] = float(value)
    return out


def cpu_split(pid: int) -> tuple[float, float, int]:
    """(user s, system s, context switches of every thread) of a process so far.

    The switches count how often its threads handed the CPU (and Python's GIL)
    over: a cost that user time alone does not show."""
    user, system = _times(pid)
    switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # a thread that ended meanwhile
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches += int(line.split()[1])
    return user, system, switches


def _times(pid: int) -> tuple[float, float]:
    """(utime, stime) of a process so far, in seconds, from /proc/PID/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    return sum(_times(pid))


# -- the watch ---------------------------------------------------------------


class PodTracker:
    """Watches the benchmark's pods; the time each was first seen bound, and Running."""

    def __init__(self, client: HTTPClient, total: int) -> None:
        self.client = client
        self.total = total
        self.bound: dict[str, float] = {}
        self.running: dict[str, float] = {}
        self.events = 0
        self.relists = 0
        self.error: str | None = None
        self._stop = threading.Event()
        listed = client.list("pods", namespace=NAMESPACE, label_selector=f"app={LABEL}")
        self._observe_all(listed.items)
        # The watch is open (the server answered) before the first pod is created.
        self._watch: HTTPWatch = client.watch("pods", namespace=NAMESPACE,
                                              label_selector=f"app={LABEL}",
                                              resource_version=listed.resource_version)
        self._thread = threading.Thread(target=self._run, daemon=True, name="scale-bench-watch")
        self._thread.start()

    def progress(self) -> str:
        return (f"{len(self.bound):,}/{self.total:,} bound, "
                f"{len(self.running):,}/{self.total:,} Running")

    def check(self) -> None:
        if self.error:
            raise BenchError(self.error)

    def _observe(self, obj: dict[str, Any], now: float) -> None:
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            return
        if (obj.get("spec") or {}).get("nodeName") and name not in self.bound:
            self.bound[name] = now
        if (obj.get("status") or {}).get("phase") == "Running" and name not in self.running:
            self.running[name] = now
            self.bound.setdefault(name, now)

    def _observe_all(self, items: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        for obj in items:
            self._observe(obj, now)

    def _run(self) -> None:
        last = "the watch ended"
        while not self._stop.is_set():
            watch = self._watch
            try:
                while not self._stop.is_set():
                    ev = watch.next(timeout=0.5)
                    if ev is None:
                        if watch.stopped:
                            break
                        continue
                    self.events += 1
                    if ev.type in ("ADDED", "MODIFIED"):
                        self._observe(ev.object, time.monotonic())
            except Exception as exc:  # the watch broke: list again below
                last = f"{type(exc).__name__}: {exc}"
            if self._stop.is_set():
                return
            # The watch ended (or expired): catch up with a list, then watch again.
            # Pods seen first by the list count from now: late, never early.
            self.relists += 1
            if self.relists > 20:
                self.error = f"the pod watch broke more than 20 times (last: {last})"
                return
            try:
                listed = self.client.list("pods", namespace=NAMESPACE,
                                          label_selector=f"app={LABEL}")
                self._observe_all(listed.items)
                self._watch = self.client.watch("pods", namespace=NAMESPACE,
                                                label_selector=f"app={LABEL}",
                                                resource_version=listed.resource_version)
            except Exception as exc:  # the daemon may be gone: the main thread notices
                last = f"{type(exc).__name__}: {exc}"
                time.sleep(1)

    def stop(self) -> None:
        self._stop.set()
        self._watch.stop()
        self._thread.join(timeout=10)


class NodeTracker:
    """Watches the Nodes while pods are created: every node seen not Ready or
    tainted by the node lifecycle controller (its lease went stale under the
    load: the kubelet's heartbeats fell behind). Node objects change rarely
    (status on change, usage annotations within a budget), so the watch costs
    the daemon little. :meth:`lease_age_max` lists the leases once."""

    TAINTS = ("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready")

    def __init__(self, client: HTTPClient) -> None:
        self.client = client
        self.not_ready: set[str] = set()
        self.error: str | None = None
        self._stop = threading.Event()
        listed = client.list("nodes")
        for obj in listed.items:
            self._observe(obj)
        self._watch: HTTPWatch = client.watch("nodes",
                                              resource_version=listed.resource_version)
        self._thread = threading.Thread(target=self._run, daemon=True, name="scale-bench-nodes")
        self._thread.start()

    def _observe(self, node: dict[str, Any]) -> None:
        ready = [c for c in (node.get("status") or {}).get("conditions") or []
                 if c.get("type") == "Ready"]
        tainted = any(t.get("key") in self.TAINTS
                      for t in (node.get("spec") or {}).get("taints") or [])
        if tainted or not ready or ready[0].get("status") != "True":
            self.not_ready.add(str((node.get("metadata") or {}).get("name")))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ev = self._watch.next(timeout=0.5)
            except Exception as exc:  # the run is reported as failed (check)
                self.error = f"the node watch broke: {type(exc).__name__}: {exc}"
                return
            if ev is None:
                if self._watch.stopped:
                    return
                continue
            if ev.type in ("ADDED", "MODIFIED"):
                self._observe(ev.object)

    def lease_age_max(self) -> float:
        """Seconds since the stalest node lease was renewed (the daemon's clock is
        this machine's)."""
        now = datetime.datetime.now(datetime.UTC)
        ages = [0.0]
        for lease in self.client.list("leases", namespace="kube-node-lease").items:
            renewed = (lease.get("spec") or {}).get("renewTime")
            if renewed:
                at = datetime.datetime.fromisoformat(str(renewed).replace("Z", "+00:00"))
                ages.append((now - at).total_seconds())
        return max(ages)

    def stop(self) -> None:
        self._stop.set()
        self._watch.stop()
        self._thread.join(timeout=10)


# -- phases ------------------------------------------------------------------


@dataclass
class Throughput:
    client: str
    created: int
    create_rate: float  # creates/s in the creating process
    bound_rate: float  # pods/s, first create -> last pod seen bound
    t_bound: float  # s from the first create to the last pod seen bound
    t_running: float  # s from the first create to the last pod seen Running
    client_cpu_ms: float  # creator CPU per pod (client cost)
    relists: int
    # The daemon's, per pod, from the first create to all Running (finished
    # threads' switches are not counted: a lower bound).
    daemon_user_ms: float = 0.0
    daemon_sys_ms: float = 0.0
    daemon_switches: float = 0.0
    # Nodes seen not Ready or tainted from the first create to all Running, and
    # the stalest node lease then (s): whether the heartbeats kept up.
    nodes_not_ready: int = 0
    lease_age_max: float = 0.0

    @property
    def ratio(self) -> float:
        return self.t_running / self.t_bound if self.t_bound else float("inf")


@dataclass
class Footprint:
    startup: float = 0.0  # s from spawning the daemon to every Node Ready
    rss_idle_nodes: float = 0.0  # MB, nodes Ready, no pods
    threads_idle_nodes: int = 0
    rss_running: float = 0.0  # MB, all pods Running
    threads_running: int = 0
    rss_peak: float = 0.0  # MB, VmHWM at the end of the idle window
    idle_cpu: float = 0.0  # % of one core over the idle window
    idle_window: float = 0.0


@dataclass
class SizeResult:
    nodes: int
    pods: int
    runs: list[Throughput] = field(default_factory=list)
    ceiling: float = 0.0
    footprint: Footprint = field(default_factory=Footprint)


def limit_for(pods: int, args: argparse.Namespace) -> float:
    """Seconds to wait for ``pods`` pods to go through a step."""
    return 120 + pods / float(args.min_rate)


def throughput(d: Daemon, client: str, pods: int, args: argparse.Namespace,
               what: str, footprint: Footprint | None) -> Throughput:
    if footprint is not None:
        status = proc_status(d.pid)
        footprint.startup = d.startup
        footprint.rss_idle_nodes = status["VmRSS"]
        footprint.threads_idle_nodes = int(status["Threads"])
    tracker = PodTracker(d.client(), pods)
    nodes = NodeTracker(d.client())
    limit = limit_for(pods, args)
    user0, sys0, switches0 = cpu_split(d.pid)
    try:
        print(f"[{what}] creating {pods:,} pods, {args.threads} threads", flush=True)
        proc = run_script(CREATOR, create_args(d, client, pods, args.threads,
                                               pod_template(label=LABEL), "pod"), d)
        created = finish_script(proc, limit, d,
                                f"{CLIENTS[client]} creating {pods:,} pods",
                                tracker.progress)
        wait_until(f"all {pods:,} pods bound", lambda: len(tracker.bound) >= pods,
                   limit, d, tracker.progress, tracker.check)
        wait_until(f"all {pods:,} pods Running", lambda: len(tracker.running) >= pods,
                   limit, d, tracker.progress, tracker.check)
    finally:
        tracker.stop()
        nodes.stop()
    if nodes.error:
        raise BenchError(nodes.error)
    user1, sys1, switches1 = cpu_split(d.pid)
    lease_age = nodes.lease_age_max()
    first = float(created["first"])
    t_bound = max(tracker.bound.values()) - first
    t_running = max(tracker.running.values()) - first
    result = Throughput(client, pods, pods / (float(created["last"]) - first),
                        pods / t_bound, t_bound, t_running,
                        1000 * float(created["cpu"]) / pods, tracker.relists,
                        1000 * (user1 - user0) / pods, 1000 * (sys1 - sys0) / pods,
                        (switches1 - switches0) / pods, len(nodes.not_ready), lease_age)
    print(f"[{what}] {result.create_rate:,.0f} creates/s; {result.bound_rate:,.1f} pods/s "
          f"create->bound (all bound at {t_bound:.1f} s); all Running at {t_running:.1f} s "
          f"({result.ratio:.2f}x); {tracker.events:,} watch events; daemon per pod: "
          f"{result.daemon_user_ms:.2f} ms user, {result.daemon_sys_ms:.2f} ms system, "
          f"{result.daemon_switches:.0f} context switches; {result.nodes_not_ready:,} nodes "
          f"seen not Ready, stalest node lease {result.lease_age_max:.1f} s", flush=True)
    if footprint is not None:
        status = proc_status(d.pid)
        footprint.rss_running = status["VmRSS"]
        footprint.threads_running = int(status["Threads"])
        print(f"[{what}] all Running: RSS {footprint.rss_running:,.0f} MB, "
              f"{footprint.threads_running:,} threads; settling {args.settle:g} s, then "
              f"{args.idle_seconds:g} s of idle CPU", flush=True)
        idle(d, args, footprint, what)
    return result


def idle(d: Daemon, args: argparse.Namespace, footprint: Footprint, what: str) -> None:
    """Idle CPU over the window, after the settle time; the peak RSS at its end."""
    end = time.monotonic() + args.settle
    while time.monotonic() < end:
        d.check()
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))
    t0, cpu0 = time.monotonic(), cpu_seconds(d.pid)
    end = t0 + args.idle_seconds
    while time.monotonic() < end:
        d.check()
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))
    wall = time.monotonic() - t0
    footprint.idle_cpu = 100 * (cpu_seconds(d.pid) - cpu0) / wall
    footprint.idle_window = wall
    footprint.rss_peak = proc_status(d.pid)["VmHWM"]
    print(f"[{what}] idle CPU {footprint.idle_cpu:.2f} % of one core over {wall:.0f} s; "
          f"peak RSS {footprint.rss_peak:,.0f} MB", flush=True)


def ceiling(d: Daemon, pods: int, args: argparse.Namespace, what: str) -> float:
    """Bind-only ceiling: pods nobody schedules, bound by us round-robin."""
    limit = limit_for(pods, args)
    print(f"[{what}] creating {pods:,} pods with schedulerName {NO_SCHEDULER}", flush=True)
    proc = run_script(CREATOR, create_args(d, "ours", pods, args.threads,
                                           pod_template(label=LABEL, scheduler=NO_SCHEDULER),
                                           "pod"), d)
    finish_script(proc, limit, d, f"our client to create {pods:,} unscheduled pods")
    client = d.client()
    listed = client.list("pods", namespace=NAMESPACE, label_selector=f"app={LABEL}").items
    bound = [p["metadata"]["name"] for p in listed if (p.get("spec") or {}).get("nodeName")]
    if len(listed) != pods or bound:
        raise BenchError(f"expected {pods:,} unbound pods with schedulerName {NO_SCHEDULER}, "
                         f"found {len(listed):,} of which {len(bound):,} bound (e.g. "
                         f"{bound[:3]}): the daemon's scheduler did not leave them alone")
    names = sorted(p["metadata"]["name"] for p in listed)
    starts: list[float] = []
    ends: list[float] = []
    errors: list[str] = []
    done = [0] * args.threads
    stop = threading.Event()

    def work(t: int) -> None:
        first = last = None
        for i in range(t, len(names), args.threads):
            if stop.is_set():
                break
            t0 = time.monotonic()
            try:
                client.bind(NAMESPACE, names[i], node_name(i % d.nodes))
            except Exception as exc:
                errors.append(f"binding {names[i]}: {type(exc).__name__}: {str(exc)[:300]}")
                stop.set()
                break
            first = t0 if first is None else first
            last = time.monotonic()
            done[t] += 1
        if first is not None and last is not None:
            starts.append(first)
            ends.append(last)

    print(f"[{what}] binding them round-robin over {d.nodes:,} nodes, {args.threads} threads",
          flush=True)
    threads = [threading.Thread(target=work, args=(t,), daemon=True, name=f"bind-{t}")
               for t in range(args.threads)]
    for t in threads:
        t.start()
    try:
        wait_until(f"{pods:,} binds", lambda: not any(t.is_alive() for t in threads), limit, d,
                   lambda: f"{sum(done):,}/{pods:,} bound")
    finally:
        stop.set()
    if errors:
        raise BenchError(errors[0])
    rate = pods / (max(ends) - min(starts))
    print(f"[{what}] bind-only ceiling: {rate:,.1f} pods/s", flush=True)
    return rate


def latency(d: Daemon, args: argparse.Namespace) -> list[float]:
    proc = run_script(LATENCY, {"kubeconfig": str(d.state / "kubeconfig"),
                                "template": pod_template(label="scale-latency",
                                                         scheduler=NO_SCHEDULER),
                                "count": LATENCY_CREATES, "warmup": LATENCY_WARMUP,
                                "namespace": NAMESPACE}, d)
    values: list[float] = finish_script(proc, 120 + LATENCY_CREATES, d,
                                        f"{LATENCY_CREATES} sequential creates")
    return values


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run_size(nodes: int, pods: int, args: argparse.Namespace, tmp: Path) -> SizeResult:
    out = SizeResult(nodes, pods)
    size = f"{nodes:,} nodes / {pods:,} pods"
    for client in ("official", "ours"):
        what = f"{size}, {CLIENTS[client]}"
        with daemon(nodes, tmp, what, args.daemon_flags) as d:
            out.runs.append(throughput(d, client, pods, args, what,
                                       out.footprint if client == "official" else None))
    what = f"{size}, bind-only ceiling"
    with daemon(nodes, tmp, what, args.daemon_flags) as d:
        out.ceiling = ceiling(d, pods, args, what)
    return out


# -- report ------------------------------------------------------------------


def ok(flag: bool) -> str:
    return "met" if flag else "NOT met"


def daemon_options(daemon_flags: Sequence[str]) -> Options:
    """What the daemons' flags ask for, read by the daemon's own flag parser
    (so ``--flag=value`` and ``--flag value`` alike); ValueError naming a
    control-plane flag the daemon would refuse, before any daemon starts. Its
    other flags (``--log-level``, ...) are left to the daemon."""
    parser = argparse.ArgumentParser(prog="daemon", add_help=False, exit_on_error=False)
    add_control_plane_arguments(parser)
    try:
        parsed, _ = parser.parse_known_args(list(daemon_flags))
    except (argparse.ArgumentError, SystemExit) as exc:
        raise ValueError(f"--daemon-flags {shlex.join(daemon_flags)!r}: {exc}") from None
    return options_from_args(parsed)


def hollow_tick(options: Options) -> float:
    """Seconds between the hollow nodes' timer rounds (and their pods' resyncs)
    in a daemon started with ``options``: the kubelet pool's own rule."""
    return default_timer_tick(options.heartbeat_interval, renew_interval(options.lease_duration))


def whole_rounds(seconds: float, tick: float) -> float:
    """``seconds`` rounded up to a whole number of ``tick``s (at least one)."""
    return round(max(1, math.ceil(seconds / tick - 1e-9)) * tick, 9)


def verdicts(sizes: list[SizeResult], lat: dict[int, list[float]],
             grace: float = DEFAULT_GRACE_PERIOD) -> list[str]:
    out = []
    for s in sizes:
        target = TARGET_RATE.get(s.nodes)
        for r in s.runs:
            who = f"{s.nodes:,} nodes / {s.pods:,} pods, {CLIENTS[r.client]}"
            if target is not None:
                out.append(f"{who}: create->bound {r.bound_rate:,.1f} pods/s, target >= "
                           f"{target:,.0f}: {ok(r.bound_rate >= target)}")
            else:
                out.append(f"{who}: create->bound {r.bound_rate:,.1f} pods/s (the targets, "
                           f">= 500 at 500 nodes and >= 300 at 5,000, are not set for "
                           f"{s.nodes:,} nodes)")
            out.append(f"{who}: nodes seen not Ready while pods were created "
                       f"{r.nodes_not_ready:,} (stalest lease {r.lease_age_max:.1f} s, "
                       f"grace {grace:g} s), expected 0: {ok(r.nodes_not_ready == 0)}")
            out.append(f"{who}: all Running at {r.t_running:.1f} s = {r.ratio:.2f}x the "
                       f"all-bound time {r.t_bound:.1f} s, target <= "
                       f"{TARGET_RUNNING_RATIO:g}x: {ok(r.ratio <= TARGET_RUNNING_RATIO)}")
    for s in sizes:
        f = s.footprint
        at = "" if (s.nodes, s.pods) == TARGET_FOOTPRINT_SIZE else (
            f" (target set for 100,000 pods on 5,000 nodes; measured at {s.pods:,} pods on "
            f"{s.nodes:,} nodes)")
        out.append(f"daemon RSS with all pods Running {f.rss_running:,.0f} MB (peak "
                   f"{f.rss_peak:,.0f} MB), target < {TARGET_RSS_MB:,.0f} MB: "
                   f"{ok(max(f.rss_running, f.rss_peak) < TARGET_RSS_MB)}{at}")
        out.append(f"daemon idle CPU {f.idle_cpu:.2f} % of one core, target < "
                   f"{TARGET_IDLE_CPU:g} %: {ok(f.idle_cpu < TARGET_IDLE_CPU)}{at}")
    if 3 in lat and len(lat) > 1:
        top = max(lat)
        base, big = statistics.median(lat[3]), statistics.median(lat[top])
        at = "" if top == 5000 else f" (target set for 5,000 nodes; measured at {top:,})"
        out.append(f"create latency median at {top:,} nodes {big:.2f} ms = {big / base:.2f}x "
                   f"that at 3 nodes ({base:.2f} ms), target <= {TARGET_LATENCY_RATIO:g}x: "
                   f"{ok(big / base <= TARGET_LATENCY_RATIO)}{at}")
    return out


def report(sizes: list[SizeResult], lat: dict[int, list[float]],
           args: argparse.Namespace, label: str) -> None:
    rows = []
    for s in sizes:
        for r in s.runs:
            rows.append([f"{s.nodes:,}", f"{s.pods:,}", CLIENTS[r.client], f"{r.create_rate:,.0f}",
                         f"{r.bound_rate:,.1f}", f"{r.t_bound:,.1f}", f"{r.t_running:,.1f}",
                         f"{r.ratio:.2f}", f"{s.ceiling:,.1f}",
                         f"{r.bound_rate / s.ceiling:.2f}" if s.ceiling else "",
                         f"{r.client_cpu_ms:.2f}",
                         f"{r.daemon_user_ms:.2f} / {r.daemon_sys_ms:.2f}",
                         f"{r.daemon_switches:.0f}",
                         f"{r.nodes_not_ready:,} / {r.lease_age_max:.1f}"])
    throughput_table = table(
        ["nodes", "pods", "client", "creates/s", "create->bound pods/s", "all bound s",
         "all Running s", "Running / bound", "bind-only ceiling pods/s",
         "create->bound / ceiling", "client CPU ms/pod", "daemon CPU ms/pod user / system",
         "daemon context switches/pod", "nodes seen not Ready / stalest lease s"], rows)
    foot_table = table(
        ["nodes", "pods", "start-up s", "RSS, nodes only MB", "threads, nodes only",
         "RSS, all Running MB", "threads, all Running", "peak RSS MB",
         "idle CPU % of a core"],
        [[f"{s.nodes:,}", f"{s.pods:,}", f"{s.footprint.startup:.1f}",
          f"{s.footprint.rss_idle_nodes:,.0f}", f"{s.footprint.threads_idle_nodes:,}",
          f"{s.footprint.rss_running:,.0f}", f"{s.footprint.threads_running:,}",
          f"{s.footprint.rss_peak:,.0f}", f"{s.footprint.idle_cpu:.2f}"] for s in sizes])
    lat_table = table(
        ["nodes", "median ms", "p90 ms", "max ms", "creates"],
        [[f"{n:,}", f"{statistics.median(v):.2f}", f"{pct(v, 90):.2f}", f"{max(v):.1f}",
          str(len(v))] for n, v in sorted(lat.items())])
    lines = verdicts(sizes, lat, args.grace)
    print()
    for part in (throughput_table, foot_table, lat_table):
        if part.count("\n") > 1:
            print(part + "\n")
    print("Targets:")
    for line in lines:
        print("  " + line)
    if args.no_record:
        return
    record("scale_bench", "\n".join([
        "## Scale through the real path (`bench/scale_bench.py`)" + label,
        "",
        f"Run: {machine()}. A fresh `minikube-py daemon --runtime fake` process per "
        "measurement, hollow nodes of 4 CPU / 32Gi / 110 pods from a `--config` file; pods "
        f"({IMAGE}, 100m / 500Mi) created over HTTPS by another process with {args.threads} "
        "threads, with the official `kubernetes` client or ours; a watch in the benchmark "
        "process times when each pod is first seen bound and Running (both from the first "
        "create). Baseline in the same run: the bind-only ceiling, the same number of pods "
        f"created with `schedulerName: {NO_SCHEDULER}` (ignored by the daemon's scheduler) "
        "and bound by the benchmark through `pods/binding`, round-robin, "
        f"{args.threads} threads.",
        "",
        throughput_table,
        "",
        f"Daemon footprint from /proc (official client's daemon): RSS and threads with the "
        f"nodes only and with all pods Running; idle CPU (utime + stime) over "
        f"{args.idle_seconds:g} s after {args.settle:g} s of rest.",
        "",
        foot_table,
        "",
        f"Create latency: {LATENCY_CREATES} sequential creates (official client, one thread, "
        f"after {LATENCY_WARMUP} warm-up creates), pods left unscheduled, otherwise idle "
        "daemons.",
        "",
        lat_table,
        "",
        "Targets: " + "; ".join(lines) + ".",
    ]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="50 nodes / 500 pods; latency at 3 and 50 nodes")
    ap.add_argument("--nodes", type=int, help="run this one size (with --pods)")
    ap.add_argument("--pods", type=int, help="run this one size (with --nodes)")
    ap.add_argument("--latency-nodes", default=None, metavar="N,N,...",
                    help="node counts for the create latency ('none' to skip; default "
                         "3,50,500,5000; --quick 3,50; --nodes N: 3,N)")
    ap.add_argument("--threads", type=int, default=4,
                    help="creating and binding threads (default 4)")
    ap.add_argument("--settle", type=float, default=None,
                    help="rest before the idle CPU window, s (default 75: past the "
                         "store's next look at its journal, every 60 s; --quick: 10, "
                         "its journal's fold is a matter of milliseconds)")
    ap.add_argument("--idle-seconds", type=float, default=None,
                    help="idle CPU window, s (default 60; --quick: 20), rounded up to whole "
                         "rounds of the hollow nodes' periodic work (a round every 1 s at "
                         "Kubernetes' heartbeats, 30 s at KWOK's)")
    ap.add_argument("--min-rate", type=float, default=5.0,
                    help="time limits: give up on a step slower than this many pods/s "
                         "(plus 120 s; default 5)")
    ap.add_argument("--no-record", action="store_true", help="print only; leave RESULTS.md")
    ap.add_argument("--daemon-flags", default="", metavar="FLAGS",
                    help="more flags for every daemon, e.g. KWOK's heartbeats: "
                         "'--node-lease-duration-seconds 1200 --node-monitor-grace-period 3600'")
    args = ap.parse_args()
    args.daemon_flags = tuple(shlex.split(args.daemon_flags))
    try:
        options = daemon_options(args.daemon_flags)
    except ValueError as exc:
        ap.error(str(exc))
    args.grace = options.node_grace_period
    tick = hollow_tick(options)
    if args.idle_seconds is None:
        args.idle_seconds = 20.0 if args.quick else 60.0
    if args.settle is None:
        args.settle = 10.0 if args.quick else 75.0
    if args.idle_seconds <= 0 or args.settle < 0:
        ap.error("--idle-seconds must be positive and --settle not negative")
    window = whole_rounds(args.idle_seconds, tick)
    if window != args.idle_seconds:
        print(f"scale_bench: idle window {args.idle_seconds:g} s rounded up to {window:g} s: "
              f"whole rounds of the hollow nodes' timer, one every {tick:g} s with these "
              "heartbeats", flush=True)
        args.idle_seconds = window
    if (args.nodes is None) != (args.pods is None):
        ap.error("--nodes and --pods go together")
    if args.nodes is not None:
        sizes = [(args.nodes, args.pods)]
        latency_nodes = sorted({3, args.nodes})
        label = f" — {args.nodes:,} nodes / {args.pods:,} pods only"
    elif args.quick:
        sizes, latency_nodes, label = [(50, 500)], LATENCY_NODES_QUICK, " — quick run"
    else:
        sizes, latency_nodes, label = [(500, 10_000), (5000, 100_000)], LATENCY_NODES_FULL, ""
    if args.daemon_flags:
        label += f" — daemon flags: {shlex.join(args.daemon_flags)}"
    if args.latency_nodes is not None:
        latency_nodes = ([] if args.latency_nodes.strip() == "none" else
                         sorted({int(n) for n in args.latency_nodes.split(",")}))
    for nodes, pods in sizes:
        if nodes < 1 or pods < 2:
            ap.error(f"{nodes} nodes / {pods} pods: need at least 1 node and 2 pods")
        if pods > nodes * PODS_PER_NODE_FIT:
            ap.error(f"{pods:,} pods of 100m do not fit on {nodes:,} nodes of 4 CPU "
                     f"(at most {nodes * PODS_PER_NODE_FIT:,})")
    if args.threads < 1 or args.min_rate <= 0:
        ap.error("--threads and --min-rate must be positive")
    signal.signal(signal.SIGTERM, _on_sigterm)
    tmp = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    results: list[SizeResult] = []
    lat: dict[int, list[float]] = {}
    try:
        for nodes in latency_nodes:
            with daemon(nodes, tmp, f"latency, {nodes:,} nodes", args.daemon_flags) as d:
                lat[nodes] = latency(d, args)
                print(f"[latency, {nodes:,} nodes] median {statistics.median(lat[nodes]):.2f} "
                      f"ms, p90 {pct(lat[nodes], 90):.2f} ms", flush=True)
        for nodes, pods in sizes:
            results.append(run_size(nodes, pods, args, tmp))
    except BenchError as exc:
        raise SystemExit(f"scale_bench: FAILED: {exc}") from None
    except KeyboardInterrupt:
        raise SystemExit("scale_bench: interrupted; daemons stopped") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(results, lat, args, label)


if __name__ == "__main__":
    main()
