"""The scheduling framework: extension points, profiles, and one scheduling cycle.

This mirrors kube-scheduler v1.32's ``pkg/scheduler/framework`` and
``schedule_one.go``:

* One small :class:`typing.Protocol` per extension point (PreFilter, Filter,
  PostFilter, PreScore, Score with NormalizeScore). A plugin joins a point by
  implementing its method; rejections are :class:`~.status.Status` values.
* Filter and Score work on **batches of nodes** (NumPy arrays of snapshot
  slots) instead of one node at a time; that is the only departure from the
  Go interfaces, and it is what makes a 5,000-node cycle take well under a
  millisecond. A Filter returns one reason id per node (0 = passed); the
  framework applies plugins in profile order to the nodes still passing, so
  every rejected node carries the verdict of the *first* plugin that
  rejected it, exactly as ``RunFilterPlugins`` does.
* :meth:`Framework.schedule` runs PreFilter -> (the pod's nominated node
  first) -> Filter over nodes in node-tree order starting at a rotating index,
  stopping once ``numFeasibleNodesToFind`` feasible nodes are found ->
  PreScore -> Score -> NormalizeScore -> weights -> sum -> pick the highest
  total, ties broken uniformly at random with the caller's ``rng``. When
  nothing fits it runs PostFilter (DefaultPreemption) and builds Kubernetes'
  FitError message. A single feasible node is chosen without scoring, as
  ``schedulePod`` does.
* The framework never calls the API and never starts threads; ``schedule`` is
  deterministic given the snapshot, the rotating start index and the rng.

Plugins are built from a registry (name -> factory) according to a
:class:`Profile`; :func:`default_profile` is kube-scheduler's default.

Where this differs from kube-scheduler (on purpose, all deterministic):

* The node search is the *sequential* equivalent of Go's parallel one: nodes
  are processed in rotated node-tree order until the feasible node after the
  quota is found. Where Go iterates a map (nodes named by a PreFilterResult,
  preemption candidates, full ties between preemption candidates), this uses
  node-tree order (from the random offset, for preemption).
* Nominated pods (``Snapshot.nominate``) are seen by NodeResourcesFit and
  NodePorts only; kube-scheduler also runs the affinity and spreading filters
  a second time with them added.
* Preemption dry runs recompute PreFilter state instead of the incremental
  AddPod/RemovePod extensions (same result), search candidates one by one,
  and know no PodDisruptionBudgets or extenders.
* On success ``ScheduleResult.message`` is the ``Scheduled`` event text
  (``Successfully assigned ns/name to node``); when preemption nominates a
  node the message is the FitError without a preemption sentence, as in
  Kubernetes, and the victims are in ``ScheduleResult.preemption``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from minikube_py.api.labels import Selector

from .decision import (
    ERROR,
    NOMINATED,
    SCHEDULED,
    UNSCHEDULABLE,
    Decision,
    Preemption,
    ScorerColumn,
    Victim,
)
from .gil import distinct, zeros
from .podinfo import PodInfo
from .snapshot import Slots, Snapshot
from .status import PASS, REASONS, Code, ReasonTable, Status

__all__ = [
    "DEFAULT_FILTERS",
    "DEFAULT_POST_FILTERS",
    "DEFAULT_SCORES",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "Code",
    "CycleState",
    "Decision",
    "Diagnosis",
    "FilterPlugin",
    "Framework",
    "Handle",
    "PluginArgsError",
    "PostFilterPlugin",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "Preemption",
    "Profile",
    "REASONS",
    "ReasonTable",
    "ScheduleResult",
    "ScorePlugin",
    "Status",
    "Victim",
    "default_profile",
    "fit_error_message",
    "num_feasible_nodes_to_find",
]

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]

MAX_NODE_SCORE: Final = 100
MIN_NODE_SCORE: Final = 0
MIN_FEASIBLE_NODES_TO_FIND: Final = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5

#: kube-scheduler v1.32's default profile, in its multi-point order.
DEFAULT_FILTERS: Final = (
    "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
    "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
)
DEFAULT_SCORES: Final = (
    ("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
    ("PodTopologySpread", 2), ("InterPodAffinity", 2),
    ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1),
)
DEFAULT_POST_FILTERS: Final = ("DefaultPreemption",)


#: Nodes filtered at a time (see ``Framework._search``).
FILTER_CHUNK: Final = 500


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """``numFeasibleNodesToFind``: all nodes below 100; otherwise the given
    percentage, or adaptively ``max(5, 50 - n/125)`` percent, never below 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all_nodes * pct // 100
    if num < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num


class CycleState:
    """Per-cycle scratch space shared by the plugins of one attempt."""

    __slots__ = ("_data", "controller_selector", "now_ns", "rng", "skip_filter", "skip_score")

    def __init__(self, rng: random.Random | None = None, now_ns: int = 0) -> None:
        self._data: dict[str, object] = {}
        #: Selector of the pod's controller, for default topology spreading.
        self.controller_selector: Callable[[Mapping[str, Any]], Selector | None] | None = None
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()
        self.rng = rng or random.Random(0)
        self.now_ns = now_ns

    def write(self, key: str, value: object) -> None:
        self._data[key] = value

    def read(self, key: str) -> object:
        """The value written under ``key``; KeyError when PreFilter/PreScore did not run."""
        return self._data[key]

    def get(self, key: str) -> object | None:
        return self._data.get(key)


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin restricts the cycle to (None: all nodes)."""

    node_names: frozenset[str] | None = None


@dataclass(frozen=True)
class Handle:
    """What plugin factories may use besides their args.

    ``controller_selector(pod)`` returns the label selector of the pod's
    controller (its ReplicaSet, Deployment, Service...) or None; it feeds
    PodTopologySpread's system-default constraints, which do nothing without
    it (kube-scheduler's ``helper.DefaultSelector``).
    """

    controller_selector: Callable[[Mapping[str, Any]], Selector | None] | None = None
    clock: Callable[[], float] = time.time


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]: ...


@runtime_checkable
class FilterPlugin(Protocol):
    name: str

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot,
               slots: Slots) -> U16 | None:
        """Reason id per slot (0 = passes), or None when every node passes."""
        ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: str

    def post_filter(self, state: CycleState, pod: PodInfo, snap: Snapshot,
                    diagnosis: Diagnosis, fw: Framework) -> tuple[Preemption | None, Status]: ...


@runtime_checkable
class PreScorePlugin(Protocol):
    name: str

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot,
                  slots: Slots) -> Status: ...


@runtime_checkable
class ScorePlugin(Protocol):
    name: str

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64: ...

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        """NormalizeScore; return ``scores`` unchanged when there is none."""
        ...


Factory = Callable[[Mapping[str, Any], Handle], object]


class PluginArgsError(ValueError):
    """Invalid plugin args: ``errors`` are ``(field path, message)`` pairs,
    paths relative to the args object (``scoringStrategy.resources[0].weight``)."""

    def __init__(self, errors: Sequence[tuple[str, str]]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(f"{path}: {msg}" if path else msg for path, msg in errors))


@dataclass(frozen=True)
class Profile:
    """Enabled plugins per extension point, score weights and plugin args.

    PreFilter runs for the enabled filter plugins that have one, PreScore for
    the enabled score plugins that have one (as in the default multi-point
    profile). ``plugin_args`` holds ``pluginConfig`` args by plugin name; the
    NodeResourcesFit scoring strategy lives there (see :attr:`scoring_strategy`).
    """

    scheduler_name: str = "default-scheduler"
    filters: tuple[str, ...] = DEFAULT_FILTERS
    scores: tuple[tuple[str, int], ...] = DEFAULT_SCORES
    post_filters: tuple[str, ...] = DEFAULT_POST_FILTERS
    plugin_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None

    @property
    def scoring_strategy(self) -> Mapping[str, Any]:
        args = self.plugin_args.get("NodeResourcesFit") or {}
        strategy = args.get("scoringStrategy")
        return strategy if isinstance(strategy, Mapping) else {"type": "LeastAllocated"}


def default_profile() -> Profile:
    """kube-scheduler's default profile (weights TaintToleration 3, NodeAffinity 2,
    PodTopologySpread 2, InterPodAffinity 2, the rest 1)."""
    return Profile()


@dataclass
class Diagnosis:
    """What the filters said (kube-scheduler's ``Diagnosis`` + ``NodeToStatus``).

    ``slots[i]`` got ``status[i]`` (reason ids, 0 = passed); every other node
    has the ``absent`` verdict.
    """

    num_all_nodes: int
    slots: Slots
    status: U16
    absent: int
    prefilter_message: str = ""
    unschedulable_plugins: set[str] = field(default_factory=set)

    def status_of(self, slot: int) -> int:
        hits = np.flatnonzero(self.slots == slot)
        return int(self.status[hits[0]]) if len(hits) else self.absent

    def slots_with_code(self, code: Code, order: Slots) -> Slots:
        """``NodesForStatusCode``, in node-tree order (kube-scheduler iterates a map)."""
        table = np.array([int(REASONS.get(i).code) for i in range(len(REASONS))], np.int8)
        rejected = self.status != PASS
        explicit = self.slots[rejected]
        picked = explicit[table[self.status[rejected]] == int(code)]
        absent_code = REASONS.get(self.absent).code if self.absent != PASS else Code.SUCCESS
        if absent_code is code:
            others = order[~np.isin(order, explicit)]
            picked = np.concatenate((picked, others))
        out: Slots = order[np.isin(order, picked)]
        return out


def fit_error_message(num_all_nodes: int, slots_status: U16, absent: int, *,
                      prefilter_message: str = "", postfilter_message: str = "") -> str:
    """``FitError.Error()``: ``0/N nodes are available: <count reason>, ...``.

    Reasons are counted per node, formatted ``"<count> <reason>"`` and sorted
    as strings (so "10 x" sorts before "2 y", as in Go). Nodes without an
    explicit verdict count under ``absent``. The PostFilter message follows.
    """
    msg = f"0/{num_all_nodes} nodes are available:"
    if prefilter_message:
        msg += f" {prefilter_message}."
    else:
        counts: dict[str, int] = {}
        rejected = slots_status[slots_status != PASS]
        if len(rejected):
            ids, per_id = np.unique(rejected, return_counts=True)
            for rid, n in zip(ids.tolist(), per_id.tolist(), strict=True):
                for reason in REASONS.get(rid).reasons:
                    counts[reason] = counts.get(reason, 0) + n
        missing = num_all_nodes - len(rejected)
        if missing > 0 and absent != PASS:
            for reason in REASONS.get(absent).reasons:
                counts[reason] = counts.get(reason, 0) + missing
        parts = sorted(f"{n} {reason}" for reason, n in counts.items())
        if parts:
            msg += f" {', '.join(parts)}."
    if postfilter_message:
        # Since 1.30 Kubernetes no longer doubles the period after the
        # preemption sentence.
        msg += f" {postfilter_message.removesuffix('.')}."
    return msg


@dataclass(frozen=True)
class ScheduleResult:
    """The outcome of :meth:`Framework.schedule`.

    ``node`` is set when the pod fits. Otherwise ``message`` is Kubernetes'
    FitError text, ``unschedulable_plugins`` the plugins that rejected, and
    ``preemption`` DefaultPreemption's nomination (when it found one; the
    caller deletes the victims and nominates the pod). ``error`` is set when a
    plugin failed unexpectedly (kube-scheduler's Error status).
    """

    node: str | None
    decision: Decision
    message: str
    unschedulable_plugins: frozenset[str] = frozenset()
    preemption: Preemption | None = None
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    error: str | None = None


def _compact(raw: I64) -> npt.NDArray[np.int16] | npt.NDArray[np.int32]:
    """Raw scores in the narrowest of int16/int32 that holds them (decisions are kept)."""
    if len(raw) == 0 or (raw.min() >= -(2**15) and raw.max() < 2**15):
        return raw.astype(np.int16)
    return np.clip(raw, -(2**31), 2**31 - 1).astype(np.int32)


def in_tree_registry() -> dict[str, Factory]:
    # Imported here: the plugins import this module for the protocols.
    from .plugins import in_tree_registry as registry

    return registry()


class Framework:
    """Runs scheduling cycles for one :class:`Profile`.

    Keeps only the rotating start index between cycles (kube-scheduler's
    ``nextStartNodeIndex``); everything else lives in the snapshot.
    """

    def __init__(self, profile: Profile | None = None, *,
                 registry: Mapping[str, Factory] | None = None,
                 controller_selector: Callable[[Mapping[str, Any]], Selector | None]
                 | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.profile = profile or default_profile()
        self.handle = Handle(controller_selector=controller_selector, clock=clock)
        reg = dict(registry) if registry is not None else in_tree_registry()
        self._clock = clock
        self._plugins: dict[str, object] = {}
        names = [*self.profile.filters, *(n for n, _ in self.profile.scores),
                 *self.profile.post_filters]
        for name in names:
            if name in self._plugins:
                continue
            factory = reg.get(name)
            if factory is None:
                raise ValueError(f'plugin "{name}" does not exist')
            self._plugins[name] = factory(self.profile.plugin_args.get(name) or {}, self.handle)
        self.prefilters: list[PreFilterPlugin] = []
        self.filters: list[FilterPlugin] = []
        for name in self.profile.filters:
            plugin = self._plugins[name]
            if not isinstance(plugin, FilterPlugin):
                raise ValueError(f'plugin "{name}" does not extend filter plugin')
            self.filters.append(plugin)
            if isinstance(plugin, PreFilterPlugin):
                self.prefilters.append(plugin)
        self.prescores: list[PreScorePlugin] = []
        self.scores: list[tuple[ScorePlugin, int]] = []
        for name, weight in self.profile.scores:
            plugin = self._plugins[name]
            if not isinstance(plugin, ScorePlugin):
                raise ValueError(f'plugin "{name}" does not extend score plugin')
            self.scores.append((plugin, weight))
            if isinstance(plugin, PreScorePlugin):
                self.prescores.append(plugin)
        self.post_filters: list[PostFilterPlugin] = []
        for name in self.profile.post_filters:
            plugin = self._plugins[name]
            if not isinstance(plugin, PostFilterPlugin):
                raise ValueError(f'plugin "{name}" does not extend postFilter plugin')
            self.post_filters.append(plugin)
        self.next_start_node_index = 0

    def plugin(self, name: str) -> object:
        return self._plugins[name]

    # --------------------------------------------------------------- cycle

    def schedule(self, pod: Mapping[str, Any] | PodInfo, snapshot: Snapshot, *,
                 rng: random.Random,
                 controller_selector: Callable[[Mapping[str, Any]], Selector | None]
                 | None = None) -> ScheduleResult:
        """One scheduling attempt for ``pod`` against ``snapshot``.

        Pure with respect to the snapshot (preemption dry-runs restore it);
        the caller assumes/binds on success and handles a nomination.
        ``controller_selector``, when given, overrides the framework's for this
        call (see :class:`Handle`).
        """
        info = pod if isinstance(pod, PodInfo) else PodInfo(pod)
        now = self._clock()
        try:
            return self._schedule(info, snapshot, rng, now, controller_selector)
        except Exception as exc:  # a plugin bug must not kill the scheduling loop
            message = f"{type(exc).__name__}: {exc}"
            decision = Decision(info.key, info.uid, now, ERROR, None, message,
                                snapshot.names_by_slot(), snapshot.num_nodes)
            return ScheduleResult(None, decision, message, error=message)

    def _schedule(self, info: PodInfo, snap: Snapshot, rng: random.Random, now: float,
                  controller_selector: Callable[[Mapping[str, Any]], Selector | None]
                  | None) -> ScheduleResult:
        names = snap.names_by_slot()
        n_all = snap.num_nodes
        if n_all == 0:
            msg = "no nodes available to schedule pods"
            decision = Decision(info.key, info.uid, now, UNSCHEDULABLE, None, msg, names, 0)
            return ScheduleResult(None, decision, msg)
        state = CycleState(rng, int(now * 1e9))
        state.controller_selector = controller_selector or self.handle.controller_selector
        order = snap.order()

        # PreFilter.
        restrict: frozenset[str] | None = None
        with_nodes: list[str] = []
        for plugin in self.prefilters:
            res, st = plugin.pre_filter(state, info, snap)
            if st.is_skip:
                state.skip_filter.add(plugin.name)
                continue
            if not st.ok:
                if st.code is Code.ERROR:
                    raise RuntimeError(f'running PreFilter plugin "{plugin.name}": {st.message}')
                st = st.with_plugin(plugin.name)
                return self._unschedulable(
                    info, snap, state, now, order, Diagnosis(
                        n_all, np.zeros(0, np.intp), np.zeros(0, np.uint16),
                        REASONS.intern_status(st), st.message, {plugin.name}))
            if res is not None and res.node_names is not None:
                with_nodes.append(plugin.name)
                restrict = res.node_names if restrict is None else restrict & res.node_names
                if not restrict:
                    plugins = sorted(with_nodes)
                    text = (f"node(s) didn't satisfy plugin {plugins[0]}" if len(plugins) == 1
                            else f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] "
                                 "simultaneously")
                    rid = REASONS.intern("", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, text)
                    return self._unschedulable(
                        info, snap, state, now, order, Diagnosis(
                            n_all, np.zeros(0, np.intp), np.zeros(0, np.uint16), rid, text,
                            set(with_nodes)))

        universe = order
        absent = PASS
        if restrict is not None:
            wanted = [s for s in (snap.slot_of(n) for n in restrict) if s >= 0]
            universe = order[np.isin(order, np.array(wanted, np.intp))]
            absent = REASONS.intern("", Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    f"node(s) didn't satisfy plugin(s) "
                                    f"[{' '.join(sorted(with_nodes))}]")

        # The nominated node (set by an earlier preemption) is tried first.
        if info.nominated_node_name:
            slot = snap.slot_of(info.nominated_node_name)
            if slot >= 0:
                one = np.array([slot], np.intp)
                # findNodesThatPassFilters over a one-node list resets the
                # rotating index to 0 (n % 1), as in kube-scheduler.
                self.next_start_node_index = 0
                if self.run_filters(state, info, snap, one)[0] == PASS:
                    return self._scheduled(info, snap, now, one, 0, 1,
                                           np.zeros(1, np.uint16), one, (),
                                           set(with_nodes), n_all)

        n = len(universe)
        to_find = num_feasible_nodes_to_find(self.profile.percentage_of_nodes_to_score, n)
        start = self.next_start_node_index % n if n else 0
        if not self.filters:
            idx = (np.arange(min(to_find, n)) + start) % max(n, 1)
            feasible = universe[idx]
            status = zeros(len(feasible), np.uint16)
            processed = len(feasible)
        else:
            rotated = np.concatenate((universe[start:], universe[:start])) if start else universe
            status, feasible_pos, processed = self._search(state, info, snap, rotated, to_find)
            feasible = rotated[feasible_pos]
            if n:
                self.next_start_node_index = (start + processed) % n
        unsched_plugins = set(with_nodes)
        if len(feasible) == 0:
            evaluated = (np.concatenate((universe[start:], universe[:start]))
                         if start else universe)[:processed]
            for rid in distinct(status):
                if rid != PASS:
                    unsched_plugins.add(REASONS.get(rid).plugin)
            diag = Diagnosis(n_all, evaluated, status, absent, "", unsched_plugins)
            return self._unschedulable(info, snap, state, now, universe, diag, start=start)
        if len(feasible) == 1:
            return self._scheduled(info, snap, now, universe, start, processed, status,
                                   feasible, (), unsched_plugins, n_all, absent=absent)

        # PreScore + Score.
        for prescorer in self.prescores:
            st = prescorer.pre_score(state, info, snap, feasible)
            if st.is_skip:
                state.skip_score.add(prescorer.name)
            elif not st.ok:
                raise RuntimeError(f'running PreScore plugin "{prescorer.name}": {st.message}')
        columns: list[ScorerColumn] = []
        total = zeros(len(feasible), np.int64)
        for scorer, weight in self.scores:
            if scorer.name in state.skip_score:
                columns.append(ScorerColumn(scorer.name, weight, None, None))
                continue
            raw = scorer.score(state, info, snap, feasible)
            norm = scorer.normalize(state, info, snap, feasible, raw.copy())
            if len(norm) and (norm.min() < MIN_NODE_SCORE or norm.max() > MAX_NODE_SCORE):
                bad = int(norm[(norm < MIN_NODE_SCORE) | (norm > MAX_NODE_SCORE)][0])
                raise RuntimeError(f"plugin {scorer.name} returns an invalid score {bad}, "
                                   f"it should in the range of [{MIN_NODE_SCORE}, "
                                   f"{MAX_NODE_SCORE}] after normalizing")
            total += norm * weight
            columns.append(ScorerColumn(scorer.name, weight, _compact(raw),
                                        norm.astype(np.int8)))
        if not self.scores:
            total[:] = 1
        best = np.flatnonzero(total == total.max())
        pick = int(best[rng.randrange(len(best))]) if len(best) > 1 else int(best[0])
        chosen = feasible[pick:pick + 1]
        return self._scheduled(info, snap, now, universe, start, processed, status, feasible,
                               tuple(columns), unsched_plugins, n_all, chosen=chosen,
                               absent=absent)

    def _search(self, state: CycleState, pod: PodInfo, snap: Snapshot, rotated: Slots,
                to_find: int) -> tuple[U16, npt.NDArray[np.intp], int]:
        """The sequential equivalent of the parallel search: the filters over
        ``rotated``, stopping where the next feasible node would exceed the
        quota ``to_find``. Returns the verdicts of the nodes processed, the
        positions of the (at most ``to_find``) feasible ones, and how many
        were processed.

        Verdicts are per node, so the nodes go through the filters in chunks
        of :data:`FILTER_CHUNK` and the search stops at the first chunk that
        completes the quota: at 5,000 nodes about 1,000 nodes are filtered,
        not all of them, and no element-wise pass over a chunk's nodes is
        longer than the 500 elements past which NumPy releases the
        interpreter lock (see :mod:`.gil`).
        """
        n = len(rotated)
        statuses: list[U16] = []
        found: list[npt.NDArray[np.intp]] = []
        count = done = 0
        while done < n:
            part = rotated[done:done + FILTER_CHUNK]
            status = self.run_filters(state, pod, snap, part)
            pos = np.flatnonzero(status == PASS)
            if count + len(pos) > to_find:
                cut = int(pos[to_find - count])
                statuses.append(status[:cut])
                found.append(pos[:to_find - count] + done)
                done += cut
                break
            statuses.append(status)
            found.append(pos + done if done else pos)
            count += len(pos)
            done += len(part)
        if len(statuses) == 1:
            return statuses[0], found[0], done
        if not statuses:  # no node to filter
            return np.zeros(0, np.uint16), np.zeros(0, np.intp), 0
        return np.concatenate(statuses), np.concatenate(found), done

    def run_filters(self, state: CycleState, pod: PodInfo, snap: Snapshot,
                    slots: Slots) -> U16:
        """Filter plugins in profile order; each sees only the nodes still passing."""
        status = zeros(len(slots), np.uint16)
        cur = slots
        pos: npt.NDArray[np.intp] | None = None
        for plugin in self.filters:
            if plugin.name in state.skip_filter:
                continue
            if len(cur) == 0:
                break
            verdict = plugin.filter(state, pod, snap, cur)
            if verdict is None:
                continue
            failed = verdict != PASS
            if not failed.any():
                continue
            keep = ~failed
            if pos is None:
                status[failed] = verdict[failed]
                pos = np.flatnonzero(keep)
            else:
                status[pos[failed]] = verdict[failed]
                pos = pos[keep]
            cur = cur[keep]
        return status

    def evaluate_node(self, pod: PodInfo, snap: Snapshot, slot: int,
                      like: CycleState | None = None) -> int:
        """PreFilter + Filter for one node against the snapshot as it is now.

        Used by preemption dry-runs after pods were detached; recomputing the
        PreFilter state equals kube-scheduler's incremental AddPod/RemovePod.
        Returns the reason id (0 when the pod fits).
        """
        state = CycleState(like.rng if like else None,
                           like.now_ns if like else int(self._clock() * 1e9))
        state.controller_selector = (like.controller_selector if like
                                     else self.handle.controller_selector)
        for plugin in self.prefilters:
            _, st = plugin.pre_filter(state, pod, snap)
            if st.is_skip:
                state.skip_filter.add(plugin.name)
            elif not st.ok:
                return REASONS.intern_status(st.with_plugin(plugin.name))
        return int(self.run_filters(state, pod, snap, np.array([slot], np.intp))[0])

    # ---------------------------------------------------------------- results

    def _scheduled(self, info: PodInfo, snap: Snapshot, now: float, order: Slots, start: int,
                   count: int, status: U16, feasible: Slots, columns: tuple[ScorerColumn, ...],
                   unsched: set[str], n_all: int, *, chosen: Slots | None = None,
                   absent: int = PASS) -> ScheduleResult:
        slot = int((chosen if chosen is not None else feasible)[0])
        node = snap.name_of(slot)
        msg = f"Successfully assigned {info.key} to {node}"
        decision = Decision(info.key, info.uid, now, SCHEDULED, node, msg, snap.names_by_slot(),
                            n_all, order, start, count, status[:count], absent, columns,
                            unschedulable_plugins=frozenset(unsched))
        return ScheduleResult(node, decision, msg, frozenset(unsched), None, count,
                              len(feasible))

    def _unschedulable(self, info: PodInfo, snap: Snapshot, state: CycleState, now: float,
                       order: Slots, diag: Diagnosis, *, start: int = 0) -> ScheduleResult:
        n_all = diag.num_all_nodes
        fit_msg = fit_error_message(n_all, diag.status, diag.absent,
                                    prefilter_message=diag.prefilter_message)
        preemption: Preemption | None = None
        reasons: list[str] = []
        for plugin in self.post_filters:
            outcome, st = plugin.post_filter(state, info, snap, diag, self)
            if st.ok:
                preemption = outcome
                reasons = []
                break
            if st.code is Code.ERROR:
                raise RuntimeError(f'running PostFilter plugin "{plugin.name}": {st.message}')
            reasons.extend(st.reasons)
            if st.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                break
        post_msg = ", ".join(reasons)
        message = fit_error_message(n_all, diag.status, diag.absent,
                                    prefilter_message=diag.prefilter_message,
                                    postfilter_message=post_msg) if post_msg else fit_msg
        outcome_label = NOMINATED if preemption is not None else UNSCHEDULABLE
        plugins = frozenset(diag.unschedulable_plugins)
        decision = Decision(info.key, info.uid, now, outcome_label, None, message,
                            snap.names_by_slot(), n_all, order, start, len(diag.status),
                            diag.status, diag.absent, (), preemption, post_msg, plugins)
        return ScheduleResult(None, decision, message, plugins, preemption, len(diag.status), 0)

