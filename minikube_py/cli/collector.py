"""The daemon and Python's cyclic garbage collector.

Each full collection of the cyclic collector walks every container object
the process tracks (dicts, lists, instances), and it runs whenever the
objects promoted to the oldest generation since the last one exceed a
quarter of those it kept then. A daemon holding many API objects has millions
of them, nearly all plain dicts and lists without reference cycles (freed by
their reference counts, never by the collector), so its full collections
find nothing and hold the interpreter lock — the whole daemon — for as long
as the walk takes. Measured with 5,000 hollow nodes and 10,000 pods idle
(the daemon as a process): 0.5-0.9 s every 70-80 s, 700,000 objects walked,
0 collected, every time; a tenth of a second of walk per 100,000 objects.

So the daemon moves what it keeps out of the collector's generations
(``gc.freeze``): once at start-up (:func:`freeze_start_up`), and again at the
end of every collection of the middle or the oldest generation
(:class:`FreezeSurvivors`): an object that outlives the young collections is
walked about twice and then never again. The cost: a reference cycle among
frozen objects that becomes garbage later is never collected. The objects of
the API have no cycles (every full collection measured above collected
nothing, connections closed meanwhile included, and a run of 3,000 pods on
500 hollow nodes left no cyclic garbage among what it froze); a cycle that
outlives a middle collection (about 7,000 tracked objects made, a few tens
of milliseconds when pods are created, longer idle) and is garbage later
stays.
"""

from __future__ import annotations

import gc
import logging
from typing import Any

__all__ = ["FreezeSurvivors", "freeze_start_up"]

log = logging.getLogger(__name__)


def freeze_start_up() -> int:
    """Move every object alive now out of the cyclic collector's generations
    (``gc.freeze``); returns how many.

    Called once the control plane has started: what it built then (its
    modules, the hollow nodes' kubelets and their Node and Lease objects, the
    state read from disk) lives as long as the daemon, and the collector's full
    collections walked all of it again and again. Measured with 5,000 hollow
    nodes idle (in process, 40 s): one full collection a minute at 436 ms,
    1.5 % of a core in collections, against 0.4 % with the start-up frozen.
    The collector still runs for what is made later; what is garbage now is
    collected first. Process-wide, so only the daemon (the process's owner)
    calls it."""
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.debug("%d start-up objects moved out of the cyclic collector's generations", frozen)
    return frozen


class FreezeSurvivors:
    """At the end of every collection of the middle or the oldest generation,
    freeze what it kept.

    Such a collection has just walked every object it keeps (the middle
    collection: what survived the young collections since the last one; the
    full collection: everything not frozen), and its survivors now make up
    the oldest generation, all of it (the previous middle or full collection
    froze what was there before). So each object that lives that long is
    walked by the collector about twice (a young and a middle collection) and
    never again, and nothing is frozen that was garbage when walked. Objects
    frozen and later unreferenced are freed by their reference counts as
    before; a reference cycle frozen and garbage later is never collected
    (see the module notes).

    The collector's own rule walks the oldest generation again and again as
    it grows. Measured (in process, 500 hollow nodes, 3,000-5,000 pods, a
    ``gc.callbacks`` probe): 460-545 us a pod in collections with the
    previous rule (freeze at a full collection that kept 100,000 objects:
    each long-lived object walked 3-5 times in full collections before it
    was frozen), 180-250 with this one; no cyclic garbage was found in
    either (``gc.unfreeze(); gc.collect()`` at the end found none).
    Process-wide: :meth:`install` once, in the process's owner (the daemon).
    """

    def __init__(self) -> None:
        self.freezes = 0  # how many times this froze (for tests and logs)
        self.frozen = 0  # objects this froze, counted as they were frozen

    def install(self) -> None:
        if self._on_collection not in gc.callbacks:
            gc.callbacks.append(self._on_collection)

    def uninstall(self) -> None:
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation", 0) < 1:
            return
        try:
            # Only this collection's survivors are there: counting them costs a
            # small part of the walk that just ended.
            kept = len(gc.get_objects(generation=2))
            if not kept:
                return
            gc.freeze()  # merges the generations' lists: no walk
            self.freezes += 1
            self.frozen += kept
            # Never gc.get_freeze_count() here: it counts the frozen objects one
            # by one (a linked list), 0.35-0.5 s with 100,000 pods, at every
            # freeze (a stall watchdog caught the daemon in it).
        except Exception:  # never raise inside the collector; the next one tries again
            log.exception("freezing after a collection failed")
