"""The Service data plane's loop: kube-proxy for one cluster.

Watches Services and EndpointSlices (shared informers), and after every change
rebuilds the cluster's whole nftables table (:mod:`.proxy`) and applies it as
one transaction. As kube-proxy:

* **Level-triggered and coalesced.** Handlers only mark the state dirty and
  wake the loop; one sync covers every change that arrived meanwhile, at most
  one sync per ``min_sync_interval`` (kube-proxy's ``minSyncPeriod``), and no
  sync at all when the built ruleset equals the one last applied.
* **Failures are retried** with a back-off (1 s doubling to 30 s); the
  previous ruleset stays in force meanwhile (an nft transaction is all or
  nothing) and the error is logged once per distinct message.
* **Nothing before the caches are full**: the first sync waits for both
  informers, so a restart never applies a ruleset with Services missing.
* **The table outlives the daemon**: stop leaves it in place, so pods keep
  reaching Services while the daemon restarts (kill -9 included); the next
  start rebuilds it from the API and replaces it atomically.
* ``route_localnet`` on the cluster's bridge (for 127.0.0.1 NodePorts and
  load-balancer addresses) is set as soon as the bridge exists: the loop
  looks again every ``bridge_check_interval`` seconds until it does, and
  then and every few minutes checks it is still set (a bridge made anew
  starts without it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..client.informer import Handlers
from ..client.shared import SharedInformers
from .proxy import Nft, NftError, ProxyState, build_ruleset, from_objects

__all__ = ["Proxier", "bridge_netfilter_active"]

log = logging.getLogger(__name__)

_BACKOFF_FIRST = 1.0
_BACKOFF_CAP = 30.0
_BRIDGE_NF = "/proc/sys/net/bridge/bridge-nf-call-iptables"


def bridge_netfilter_active(path: str = _BRIDGE_NF) -> bool:
    """Whether bridged IPv4 traffic passes through netfilter (br_netfilter
    loaded and on). Without it, replies between two pods on one bridge never
    meet conntrack, so service traffic must be masqueraded to come back."""
    try:
        with open(path) as f:
            return f.read().strip() == "1"
    except OSError:
        return False


class Proxier:
    """One cluster's Service rules (see the module docstring)."""

    def __init__(self, informers: SharedInformers, nft: Nft, state: ProxyState, *,
                 min_sync_interval: float = 0.1, bridge_check_interval: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.nft = nft
        self.state = state
        self.min_sync_interval = min_sync_interval
        self.bridge_check_interval = bridge_check_interval
        self._clock = clock
        self.services = informers.get("services")
        self.slices = informers.get("endpointslices")
        handlers = Handlers(on_add=self._dirty, on_update=lambda _o, _n: self._dirty(None),
                            on_delete=self._dirty)
        self.services.add_handlers(handlers)
        self.slices.add_handlers(handlers)
        self._cond = threading.Condition()
        self._is_dirty = True
        self._stop = False
        self._thread: threading.Thread | None = None
        self._last: dict[str, Any] | None = None
        self._last_error = ""
        #: Successful applies so far (tests and the benchmark read it).
        self.syncs = 0
        self._synced_event = threading.Event()

    def _dirty(self, _obj: Any) -> None:
        with self._cond:
            self._is_dirty = True
            self._cond.notify()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="proxier", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait_synced(self, timeout: float | None = None) -> bool:
        """True once the first ruleset is in the kernel."""
        return self._synced_event.wait(timeout)

    # ------------------------------------------------------------------ loop

    def _run(self) -> None:
        for informer in (self.services, self.slices):
            while not informer.wait_synced(0.5):
                if self._stop:
                    return
        backoff = 0.0
        last_sync = -1e9
        localnet_checked = -1e9
        localnet_ok = False
        while True:
            with self._cond:
                now = self._clock()
                localnet_due = localnet_checked + (self.bridge_check_interval if not localnet_ok
                                                   else 300.0)
                wake = localnet_due
                if self._is_dirty:
                    wake = min(wake, max(last_sync + self.min_sync_interval, now + backoff))
                if not self._stop and wake > now:
                    self._cond.wait(wake - now)
                if self._stop:
                    return
                now = self._clock()
                sync_now = self._is_dirty and now >= last_sync + self.min_sync_interval
                if sync_now:
                    self._is_dirty = False
            if self._clock() >= localnet_due:
                localnet_ok = self.nft.set_route_localnet(self.state.bridge)
                localnet_checked = self._clock()
            if not sync_now:
                continue
            last_sync = self._clock()
            if self._sync():
                backoff = 0.0
            else:
                backoff = min(_BACKOFF_CAP, backoff * 2 or _BACKOFF_FIRST)
                self._dirty(None)

    def _sync(self) -> bool:
        started = time.monotonic()
        state = replace(self.state, services=from_objects(self.services.list(),
                                                          self.slices.list()))
        document = build_ruleset(state)
        if document == self._last:
            return True
        try:
            self.nft.apply(document)
        except (NftError, OSError) as exc:
            message = str(exc).strip()
            if message != self._last_error:
                log.error("applying the Service rules of table %s failed (retrying): %s",
                          self.state.table, message)
                self._last_error = message
            return False
        self._last, self._last_error = document, ""
        self.syncs += 1
        self._synced_event.set()
        log.debug("Service rules synced: %d service ports in %.1f ms", len(state.services),
                  (time.monotonic() - started) * 1000)
        return True
