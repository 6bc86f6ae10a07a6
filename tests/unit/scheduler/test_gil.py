"""The lock-keeping array helpers give exactly what the NumPy calls they
replace gave (``np.unique``; ``argsort(~valid, kind="stable")`` with
``take_along_axis``). Why they exist (NumPy's sorts hand the interpreter lock
away) is measured in bench/RESULTS.md, not asserted here: whether a release
becomes a switch depends on the machine's load. write_held is the exception:
its test sets a long switch interval, so a kept lock leaves no room for one."""

from __future__ import annotations

import errno
import os
import resource
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minikube_py.scheduler.gil import distinct, first_two_present, write_held, zeros
from minikube_py.scheduler.plugins.resource_allocation import balanced, least_allocated
from minikube_py.scheduler.snapshot import Snapshot


@pytest.mark.parametrize("values", [
    [], [0], [3, 3, 3], [5, 1, 5, 2, 1, 9], list(range(40, 0, -3)) * 7,
    [2 ** 40, 1, 2 ** 40, -7],
])
def test_distinct_is_np_unique(values: list[int]) -> None:
    arr = np.array(values, np.int64)
    assert distinct(arr) == np.unique(arr).tolist()
    assert distinct(arr.astype(np.uint16) if min(values, default=0) >= 0
                    and max(values, default=0) < 2 ** 16 else arr) == np.unique(arr).tolist()


def _by_argsort(frac: Any, valid: Any) -> tuple[Any, Any]:
    order = np.argsort(~valid, axis=1, kind="stable")
    f0 = np.take_along_axis(frac, order[:, :1], axis=1)[:, 0]
    f1 = np.take_along_axis(frac, order[:, 1:2], axis=1)[:, 0]
    return f0, f1


@pytest.mark.parametrize("columns", [2, 3, 5])
def test_first_two_present_matches_argsort_where_two_are_present(columns: int) -> None:
    rng = np.random.default_rng(7)
    frac = rng.random((400, columns))
    valid = rng.random((400, columns)) < 0.6
    f0, f1 = first_two_present(list(frac.T), list(valid.T))
    g0, g1 = _by_argsort(frac, valid)
    count = valid.sum(axis=1)
    at_least_one, two_or_more = count >= 1, count >= 2
    assert two_or_more.any() and (count == 1).any() and (count == 0).any()
    assert np.array_equal(f0[at_least_one], g0[at_least_one])
    assert np.array_equal(f1[two_or_more], g1[two_or_more])
    # Rows short of values read 0.0 (the argsort picked some absent column).
    assert (f0[count == 0] == 0.0).all() and (f1[count < 2] == 0.0).all()


def test_balanced_scores_unchanged() -> None:
    """BalancedAllocation's scores equal the formula computed with the argsort."""
    rng = np.random.default_rng(11)
    alloc = rng.integers(0, 4, (300, 3)) * 1000
    req = rng.integers(0, 5000, (300, 3))
    valid = alloc != 0
    frac = np.minimum(np.where(valid, req / np.where(valid, alloc, 1), 0.0), 1.0)
    g0, g1 = _by_argsort(frac, valid)
    two = valid.sum(axis=1) == 2
    want = ((1 - np.where(two, np.abs((g0 - g1) / 2), 0.0)) * 100.0).astype(np.int64)
    got = balanced(req, alloc)
    assert np.array_equal(got[two], want[two])


def _balanced_2d(req: np.ndarray, alloc: np.ndarray) -> np.ndarray:
    """BalancedAllocation's formula over the whole ``[m, k]`` arrays at once
    (the standard deviation of the present fractions, argsort for two)."""
    valid = alloc != 0
    frac = np.minimum(np.where(valid, req / np.where(valid, alloc, 1), 0.0), 1.0)
    count = valid.sum(axis=1)
    g0, g1 = _by_argsort(frac, valid) if frac.shape[1] >= 2 else (frac[:, 0], frac[:, 0])
    mean = np.where(valid, frac, 0.0).sum(axis=1) / np.maximum(count, 1)
    sq = np.where(valid, (frac - mean[:, None]) ** 2, 0.0).sum(axis=1)
    std = np.where(count == 2, np.abs((g0 - g1) / 2),
                   np.where(count > 2, np.sqrt(sq / np.maximum(count, 1)), 0.0))
    return ((1 - std) * 100.0).astype(np.int64)


@pytest.mark.parametrize("columns", [1, 2, 3, 5])
def test_balanced_column_by_column_equals_the_whole_array_formula(columns: int) -> None:
    rng = np.random.default_rng(5)
    alloc = rng.integers(0, 3, (500, columns)) * 4000
    req = rng.integers(0, 9000, (500, columns))
    count = (alloc != 0).sum(axis=1)
    assert (count == min(columns, 2)).any() and (count < min(columns, 2)).any()
    got = balanced(req, alloc)
    want = _balanced_2d(req, alloc)
    # Summing in another order may differ in the last bit of a mean: allow
    # a score of 1 either way where three or more are present, none elsewhere.
    assert np.array_equal(got[count <= 2], want[count <= 2])
    assert np.abs(got - want).max() <= 1


def test_the_index_arrays_a_cycle_gathers_with_are_numpys_index_type() -> None:
    """Int32 indices are cast before a gather, and the cast hands the lock
    away (bench/RESULTS.md, nineteenth session): the slots the framework
    hands every plugin, and the taint-set ids that index look-up tables, are
    ``intp`` from the start, also after the snapshot grows."""
    snap = Snapshot()
    for i in range(300):  # past the initial capacity: the arrays are regrown
        snap.add_node({"metadata": {"name": f"n{i}"}, "spec": {"taints": [
            {"key": "k", "value": str(i % 3), "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    assert snap.order().dtype == np.intp
    assert len(snap.order()) == 300
    assert snap.taint_set_ids.dtype == np.intp
    assert len(set(snap.taint_set_ids[snap.order()].tolist())) == 3


def test_write_held_writes_and_returns_the_count_as_os_write(tmp_path: Path):
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        assert write_held(fd, b"one\n") == 4
        assert write_held(fd, b"") == 0
        assert write_held(fd, b"two\n") == 4
    finally:
        os.close(fd)
    assert (tmp_path / "f").read_bytes() == b"one\ntwo\n"


def test_a_failed_write_held_raises_oserror_with_its_errno(tmp_path: Path):
    fd = os.open(tmp_path / "f", os.O_RDONLY | os.O_CREAT)
    os.close(fd)
    with pytest.raises(OSError) as closed:
        write_held(fd, b"x")
    assert closed.value.errno == errno.EBADF
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        with pytest.raises(OSError) as read_only:
            write_held(fd, b"x")
        assert read_only.value.errno == errno.EBADF
    finally:
        os.close(fd)


def switches_beside_a_spinner(work: Callable[[], None], interval: float) -> int:
    """The voluntary context switches of this thread while it runs ``work``
    beside a thread spinning in Python, with the switch interval set to
    ``interval`` seconds (restored after): with it far longer than ``work``
    takes, the spinner asks for the lock about never, so what is counted is
    ``work`` handing the lock away, not the turns a busy machine takes."""
    stop = threading.Event()
    started = threading.Event()

    def spin() -> None:
        started.set()
        n = 0
        while not stop.is_set():
            n += 1

    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    spinner = threading.Thread(target=spin, daemon=True)
    try:
        spinner.start()
        started.wait(5)
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_nvcsw
        work()
        return resource.getrusage(resource.RUSAGE_THREAD).ru_nvcsw - before
    finally:
        stop.set()
        spinner.join(5)
        sys.setswitchinterval(previous)


def test_a_busy_thread_beside_does_not_make_write_held_wait(tmp_path: Path):
    # os.write releases the interpreter lock; with a thread spinning in Python
    # the writer then sleeps until the lock comes back, a voluntary context
    # switch at every call (checked: 149 in these 100 writes). Kept, the
    # writer sleeps only when the spinner asks for the lock, once a switch
    # interval (here 50 ms, far longer than the 100 writes take).
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    line = b"x" * 900 + b"\n"

    def writes() -> None:
        for _ in range(100):
            write_held(fd, line)

    try:
        switches = switches_beside_a_spinner(writes, 0.05)
    finally:
        os.close(fd)
    assert (tmp_path / "f").stat().st_size == 100 * len(line)
    assert switches <= 5, f"{switches} voluntary context switches in 100 writes"


@pytest.mark.parametrize(("shape", "dtype"), [
    (0, np.int64), (7, np.bool_), (230, np.int64), ((230, 2), np.int64), (500, np.uint16),
    ((500, 2), np.float64), (1234, np.int64), ((3, 0), np.float64)])
def test_zeros_is_np_zeros(shape: int | tuple[int, ...], dtype: Any) -> None:
    got, want = zeros(shape, dtype), np.zeros(shape, dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want) and got.flags["C_CONTIGUOUS"]


def test_a_busy_thread_beside_does_not_make_zeros_wait() -> None:
    # np.zeros of more than 1 KB calloc's its buffer with the interpreter lock
    # released: beside a thread spinning in Python that is a voluntary context
    # switch now and then (checked: 288-361 in these 4,000 calls).
    def calls() -> None:
        for _ in range(2000):
            zeros((230, 2), np.int64)
            zeros(1000, np.float64)

    switches = switches_beside_a_spinner(calls, 0.05)
    assert switches <= 5, f"{switches} voluntary context switches in 4,000 calls"


def test_a_busy_thread_beside_does_not_make_the_resource_scorers_wait() -> None:
    # At 5,000 nodes 500 are scored: ``[500, 2]`` arrays. A reduction over all
    # 1,000 elements at once (``alloc.all()``) hands the lock away now and then
    # (checked: 14-24 switches in these 3,000 calls); column by column it does not.
    rng = np.random.default_rng(3)
    alloc = rng.integers(1, 64, (500, 2)) * 1000
    req = alloc // 2
    least = least_allocated([1, 1])

    def calls() -> None:
        for _ in range(1500):
            balanced(req, alloc)
            least(req, alloc)

    # 200 ms: the calls take about 60 ms in all, more on a busy machine.
    switches = switches_beside_a_spinner(calls, 0.2)
    assert switches <= 5, f"{switches} voluntary context switches in 3,000 calls"
