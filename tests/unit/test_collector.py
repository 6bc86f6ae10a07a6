"""The daemon keeps its long-lived objects out of the cyclic collector's walks
(cli/collector.py): the start-up frozen (``freeze_start_up``), and what middle
and full collections keep (``FreezeSurvivors``), without losing the collector
for cycles that are garbage then or made later."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from minikube_py.cli.collector import FreezeSurvivors, freeze_start_up


class Cycle:
    def __init__(self) -> None:
        self.me = self


class Plain:
    """An instance the collector tracks, in no cycle."""


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
def freezer() -> Iterator[FreezeSurvivors]:
    policy = FreezeSurvivors()
    policy.install()
    try:
        yield policy
    finally:
        policy.uninstall()
    assert policy._on_collection not in gc.callbacks


@pytest.mark.parametrize("generation", [1, 2])
def test_what_a_middle_or_full_collection_keeps_is_frozen(
        frozen_start: int, freezer: FreezeSurvivors, generation: int) -> None:
    gc.collect()  # what the fixtures left: frozen, so only what follows is counted
    freezes = freezer.freezes
    grown = [[i] for i in range(3_000)]
    garbage = Cycle()
    gone = weakref.ref(garbage)
    del garbage
    gc.collect(generation)
    assert freezer.freezes == freezes + 1
    assert gone() is None  # garbage at the collection: collected, not frozen
    tracked = tracked_ids()
    assert id(grown) not in tracked and id(grown[-1]) not in tracked
    assert gc.get_freeze_count() >= frozen_start + len(grown)
    later = Cycle()  # made after the freeze: still collected
    later_ref = weakref.ref(later)
    del later
    gc.collect()
    assert later_ref() is None


def test_a_young_collection_freezes_nothing(
        frozen_start: int, freezer: FreezeSurvivors) -> None:
    gc.collect()
    freezes = freezer.freezes
    made = [[i] for i in range(3_000)]
    gc.collect(0)
    assert freezer.freezes == freezes
    assert id(made[-1]) in tracked_ids()


def test_frozen_objects_are_still_freed_by_their_reference_counts(
        frozen_start: int, freezer: FreezeSurvivors) -> None:
    holder = [Plain()]
    freed = weakref.ref(holder[0])
    gc.collect(1)
    assert id(holder) not in tracked_ids()  # frozen with what it holds
    holder.pop()  # no cycle: freed at once, frozen or not
    assert freed() is None


def test_a_freeze_never_counts_every_frozen_object(
        frozen_start: int, freezer: FreezeSurvivors, monkeypatch: pytest.MonkeyPatch) -> None:
    """``gc.get_freeze_count`` walks every frozen object (0.35-0.5 s with 100,000
    pods): the hook must not call it at each freeze, even for a log line."""
    counted: list[int] = []
    real = gc.get_freeze_count

    def counting() -> int:
        counted.append(1)
        return real()

    monkeypatch.setattr(gc, "get_freeze_count", counting)
    grown = [[i] for i in range(3_000)]
    gc.collect()
    assert freezer.freezes >= 1
    assert counted == []
    assert freezer.frozen >= len(grown)
