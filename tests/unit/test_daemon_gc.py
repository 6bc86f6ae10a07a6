"""The daemon moves its start-up objects out of the cyclic collector's reach
(cli/daemon.py ``freeze_start_up``), without losing the collector for cycles
that are garbage then or made later."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from minikube_py.cli.daemon import freeze_start_up


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfreeze_after() -> Iterator[None]:
    try:
        yield
    finally:
        gc.unfreeze()  # the test process goes on as before


def test_start_up_objects_are_frozen_cycles_still_collected(unfreeze_after: None) -> None:
    kept = {"node": ["lease"]}  # alive at start-up: frozen
    garbage = Cycle()
    gone = weakref.ref(garbage)
    del garbage  # garbage at start-up: collected first, not frozen for good
    assert freeze_start_up() == gc.get_freeze_count() > 0
    assert gone() is None
    tracked = {id(o) for o in gc.get_objects()}
    assert id(kept) not in tracked and id(kept["node"]) not in tracked
    later = Cycle()  # made after start-up: the collector still sees it
    later_ref = weakref.ref(later)
    assert id(later) in {id(o) for o in gc.get_objects()}
    del later
    gc.collect()
    assert later_ref() is None
