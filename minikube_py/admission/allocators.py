"""The two allocators behind Services: cluster IPs and node ports.

Both are kube-apiserver's bitmap allocators (``pkg/registry/core/service/
ipallocator`` and ``portallocator``, v1.32) kept in memory:

* **Ranges.** IPs come from the service CIDR without its network and
  broadcast addresses; ports from ``--service-node-port-range`` (both ends
  included).
* **Static band.** The lowest part of each range (``min(max(16, size/16),
  256)`` IPs, ``min(max(16, size/32), 128)`` ports) is handed out only when
  asked for by value or when the rest is full, so well-known addresses such as
  ``10.96.0.10`` for cluster DNS stay free for whoever asks for them.
* **Random choice** inside a band, as Kubernetes' ``randomScanStrategyWithOffset``.
* **Errors** carry Kubernetes' messages (``provided IP is already allocated``,
  ``range is full``, the not-in-range sentences).

Thread-safe: one lock per allocator. What was allocated survives a restart
because it is rebuilt from the stored Services (:meth:`Bitmap.reset`); see
:mod:`.services`.
"""

from __future__ import annotations

import ipaddress
import random
import threading
from collections.abc import Iterable
from typing import Final

__all__ = ["AllocationError", "Bitmap", "IPRange", "PortRange"]

#: The static band's bounds: ``min(max(MIN, size/STEP), MAX)``.
_IP_BAND: Final = (16, 256, 16)
_PORT_BAND: Final = (16, 128, 32)


class AllocationError(Exception):
    """A request the allocator refuses, with Kubernetes' message."""


class Bitmap:
    """Offsets ``0 .. size-1`` of a range: which are taken (thread-safe)."""

    def __init__(self, size: int, band: int, *, rng: random.Random | None = None) -> None:
        self.size = max(0, size)
        self.band = min(max(0, band), self.size)
        self._used: set[int] = set()
        self._in_band = 0  # how many taken offsets lie in the static band
        self._lock = threading.Lock()
        self._rng = rng or random.Random()

    def _add(self, offset: int) -> None:
        self._used.add(offset)
        if offset < self.band:
            self._in_band += 1

    def take(self, offset: int) -> bool:
        """Mark ``offset`` taken; False when it already was (or is outside)."""
        with self._lock:
            if offset in self._used or not 0 <= offset < self.size:
                return False
            self._add(offset)
            return True

    def take_next(self) -> int | None:
        """A free offset, from above the static band first; ``None`` when full."""
        with self._lock:
            above = len(self._used) - self._in_band
            for low, high, used in ((self.band, self.size, above),
                                    (0, self.band, self._in_band)):
                if used >= high - low:
                    continue
                # Random probes find a free slot at once while the band is not
                # nearly full; a scan from a random start finishes the job.
                for _ in range(16):
                    offset = self._rng.randrange(low, high)
                    if offset not in self._used:
                        self._add(offset)
                        return offset
                start = self._rng.randrange(low, high)
                for i in range(high - low):
                    offset = low + (start - low + i) % (high - low)
                    if offset not in self._used:
                        self._add(offset)
                        return offset
            return None

    def release(self, offset: int) -> None:
        with self._lock:
            if offset in self._used:
                self._used.discard(offset)
                if offset < self.band:
                    self._in_band -= 1

    def reset(self, offsets: Iterable[int]) -> None:
        """Replace what is taken (the repair pass rebuilds from the store)."""
        with self._lock:
            self._used = set()
            self._in_band = 0
            for offset in offsets:
                if 0 <= offset < self.size and offset not in self._used:
                    self._add(offset)

    def taken(self) -> set[int]:
        with self._lock:
            return set(self._used)


def _band(size: int, bounds: tuple[int, int, int]) -> int:
    """``calculateRangeOffset``: 0 for tiny ranges, else ``min(max(lo, size/step), hi)``."""
    lo, hi, step = bounds
    if size <= lo:
        return 0
    return min(max(lo, size // step), hi)


class IPRange:
    """The service CIDR's allocator (IPv4)."""

    def __init__(self, cidr: str, *, rng: random.Random | None = None) -> None:
        self.network = ipaddress.IPv4Network(cidr, strict=True)
        size = self.network.num_addresses
        # Neither the network address nor the broadcast address is ever handed out.
        usable = max(0, size - 2)
        self._base = int(self.network.network_address) + 1
        self.bitmap = Bitmap(usable, _band(size, _IP_BAND), rng=rng)

    @property
    def cidr(self) -> str:
        return str(self.network)

    def offset_of(self, ip: str) -> int | None:
        """The offset of ``ip`` in the range, ``None`` when it is not inside."""
        try:
            address = ipaddress.IPv4Address(ip)
        except ValueError:
            return None
        offset = int(address) - self._base
        return offset if 0 <= offset < self.bitmap.size else None

    def allocate(self, ip: str) -> None:
        """Take ``ip``; :class:`AllocationError` with Kubernetes' message if not possible."""
        offset = self.offset_of(ip)
        if offset is None:
            raise AllocationError(f"the provided IP ({ip}) is not in the valid range. "
                                  f"The range of valid IPs is {self.cidr}")
        if not self.bitmap.take(offset):
            raise AllocationError("provided IP is already allocated")

    def allocate_next(self) -> str:
        offset = self.bitmap.take_next()
        if offset is None:
            raise AllocationError("range is full")
        return str(ipaddress.IPv4Address(self._base + offset))

    def release(self, ip: str) -> None:
        offset = self.offset_of(ip)
        if offset is not None:
            self.bitmap.release(offset)


class PortRange:
    """The node-port allocator (``--service-node-port-range``, both ends included)."""

    def __init__(self, first: int, last: int, *, rng: random.Random | None = None) -> None:
        if not 0 < first <= last <= 65535:
            raise ValueError(f"invalid node port range {first}-{last}")
        self.first, self.last = first, last
        size = last - first + 1
        self.bitmap = Bitmap(size, _band(size, _PORT_BAND), rng=rng)

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"

    def contains(self, port: int) -> bool:
        return self.first <= port <= self.last

    def allocate(self, port: int) -> None:
        if not self.contains(port):
            raise AllocationError("provided port is not in the valid range. "
                                  f"The range of valid ports is {self}")
        if not self.bitmap.take(port - self.first):
            raise AllocationError("provided port is already allocated")

    def allocate_next(self) -> int:
        offset = self.bitmap.take_next()
        if offset is None:
            raise AllocationError("range is full")
        return self.first + offset

    def release(self, port: int) -> None:
        if self.contains(port):
            self.bitmap.release(port - self.first)
