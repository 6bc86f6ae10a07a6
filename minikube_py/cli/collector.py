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
(``gc.freeze``): once at start-up (:func:`freeze_start_up`), and again
whenever a full collection kept more than it should walk again
(:class:`FreezeOnGrowth`). Later full collections walk only what was made
since. The cost: a reference cycle among frozen objects that becomes garbage
later is never collected. The objects of the API have no cycles (every full
collection measured above collected nothing, connections closed meanwhile
included); what else was alive at a freeze and later forms cyclic garbage
stays: one freeze's worth per 100,000 objects kept past a full collection
(the daemon's growth, or long-lived objects replaced by new ones: pods of a
busy Job deleted and created again).
"""

from __future__ import annotations

import gc
import logging
from typing import Any

__all__ = ["FreezeOnGrowth", "freeze_start_up"]

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


class FreezeOnGrowth:
    """At the end of each full collection, freeze what it kept if that is at
    least ``minimum`` objects, so no full collection walks more than about
    that many objects again.

    What a full collection keeps is exactly what was alive and tracked (its
    garbage was just collected, and the younger generations were merged into
    it), so nothing that was garbage then is frozen. Below ``minimum`` a walk
    is short (about a tenth of a second per 100,000 objects here). An idle
    daemon replaces objects (lease renewals), it does not add them up, so it
    stays below and does not freeze again; growth, or long-lived objects
    replaced by new ones, freezes once per ``minimum`` objects. (A share of
    what is frozen already, as the collector's own rule, would leave walks
    growing with the daemon: with 100,000 pods frozen, a quarter more is 1.5
    million objects, 1-2 s a walk at the rate above. The run that measured it
    worse also counted the frozen objects at every full collection, so that
    comparison alone does not show it.)
    Process-wide: :meth:`install` once, in the process's owner (the daemon).
    """

    def __init__(self, *, minimum: int = 100_000) -> None:
        if minimum < 1:
            raise ValueError("minimum must be >= 1")
        self.minimum = minimum
        self.freezes = 0  # how many times this froze (for tests and logs)
        self.frozen = 0  # objects this froze, counted as they were frozen

    def install(self) -> None:
        if self._on_collection not in gc.callbacks:
            gc.callbacks.append(self._on_collection)

    def uninstall(self) -> None:
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        try:
            # The oldest generation holds every survivor now; counting it costs
            # a small part of the walk that just ended.
            kept = len(gc.get_objects(generation=2))
            if kept < self.minimum:
                return
            gc.freeze()  # merges the generations' lists: no walk
            self.freezes += 1
            self.frozen += kept
            # Never gc.get_freeze_count() here: it counts the frozen objects one
            # by one (a linked list), 0.35-0.5 s with 100,000 pods, at every
            # freeze (a stall watchdog caught the daemon in it).
            log.debug("froze the %d objects a full collection kept (%d by this hook in all)",
                      kept, self.frozen)
        except Exception:  # never raise inside the collector; the next one tries again
            log.exception("freezing after a full collection failed")
