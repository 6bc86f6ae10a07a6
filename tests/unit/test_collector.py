"""The daemon keeps its long-lived objects out of the cyclic collector's walks
(cli/collector.py): the start-up frozen (``freeze_start_up``), and what full
collections keep frozen once it has grown (``FreezeOnGrowth``), without losing
the collector for cycles that are garbage then or made later."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from minikube_py.cli.collector import FreezeOnGrowth, freeze_start_up


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfreeze_after() -> Iterator[None]:
    try:
        yield
    finally:
        gc.unfreeze()  # the test process goes on as before


@pytest.fixture
def frozen_start(unfreeze_after: None) -> int:
    """The test process's objects frozen, as the daemon's start-up is."""
    return freeze_start_up()


def tracked_ids() -> set[int]:
    return {id(o) for o in gc.get_objects()}


def test_start_up_objects_are_frozen_cycles_still_collected(unfreeze_after: None) -> None:
    kept = {"node": ["lease"]}  # alive at start-up: frozen
    garbage = Cycle()
    gone = weakref.ref(garbage)
    del garbage  # garbage at start-up: collected first, not frozen for good
    assert freeze_start_up() == gc.get_freeze_count() > 0
    assert gone() is None
    tracked = tracked_ids()
    assert id(kept) not in tracked and id(kept["node"]) not in tracked
    later = Cycle()  # made after start-up: the collector still sees it
    later_ref = weakref.ref(later)
    assert id(later) in tracked_ids()
    del later
    gc.collect()
    assert later_ref() is None


@pytest.fixture
def freezer() -> Iterator[FreezeOnGrowth]:
    policy = FreezeOnGrowth(minimum=2_000)
    policy.install()
    try:
        yield policy
    finally:
        policy.uninstall()
    assert policy._on_collection not in gc.callbacks


def test_what_a_full_collection_keeps_is_frozen_once_it_has_grown(
        frozen_start: int, freezer: FreezeOnGrowth) -> None:
    grown = [[i] for i in range(3_000)]  # over the minimum
    garbage = Cycle()
    gone = weakref.ref(garbage)
    del garbage
    gc.collect()
    assert freezer.freezes == 1
    assert gone() is None  # garbage at the collection: collected, not frozen
    tracked = tracked_ids()
    assert id(grown) not in tracked and id(grown[-1]) not in tracked
    assert gc.get_freeze_count() >= frozen_start + len(grown)
    later = Cycle()  # made after the freeze: still collected
    later_ref = weakref.ref(later)
    del later
    gc.collect()
    assert later_ref() is None


@pytest.mark.parametrize("count,generation,why", [
    (1_000, 2, "below the minimum"),
    (3_000, 0, "a young collection"),
    (3_000, 1, "a middle collection"),
])
def test_nothing_is_frozen_when_little_was_kept_or_the_collection_was_young(
        frozen_start: int, freezer: FreezeOnGrowth, count: int, generation: int,
        why: str) -> None:
    made = [[i] for i in range(count)]
    gc.collect(generation)
    assert freezer.freezes == 0, why
    assert id(made[-1]) in tracked_ids()
    assert gc.get_freeze_count() <= frozen_start  # frozen objects may die, none added


def test_the_policy_refuses_meaningless_settings() -> None:
    with pytest.raises(ValueError):
        FreezeOnGrowth(minimum=0)


def test_a_freeze_never_counts_every_frozen_object(
        frozen_start: int, freezer: FreezeOnGrowth, monkeypatch: pytest.MonkeyPatch) -> None:
    """``gc.get_freeze_count`` walks every frozen object (0.35-0.5 s with 100,000
    pods): the hook must not call it at each freeze, even for a log line."""
    counted: list[int] = []
    real = gc.get_freeze_count

    def counting() -> int:
        counted.append(1)
        return real()

    monkeypatch.setattr(gc, "get_freeze_count", counting)
    grown = [[i] for i in range(3_000)]  # over the minimum
    gc.collect()
    assert freezer.freezes == 1
    assert counted == []
    assert freezer.frozen >= len(grown)
