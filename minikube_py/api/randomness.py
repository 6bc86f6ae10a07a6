"""Object uids and generated-name suffixes, drawn from a buffer of random bytes.

Every create takes a uid (``uuid.uuid4``: one ``getrandom`` system call) and
every ``generateName`` five suffix characters (``secrets.choice``: a system
call per character, more with rejections). Each such call releases the
interpreter lock and takes it again, which a busy daemon pays with a thread
switch: about fifteen per pod along the chain (its uid, a generated name,
its four Events' uids, its service-account token's id). :class:`RandomPool`
reads the kernel's random bytes 4 KiB at a time instead and hands them out
under a lock.

Contracts:

* :func:`new_uid` is an RFC 4122 version 4 UUID in its canonical text form,
  as ``str(uuid.uuid4())``; its 122 random bits come from ``os.urandom``.
* :func:`name_suffix` is ``n`` characters drawn uniformly from
  :data:`NAME_ALPHABET` (Kubernetes' ``utilrand.String`` alphabet: no vowels,
  so no words, nothing confusable), by rejection: no character is likelier.
* A forked child starts with an empty buffer, so parent and child never hand
  out the same bytes.
"""

from __future__ import annotations

import os
import threading

__all__ = ["NAME_ALPHABET", "RandomPool", "name_suffix", "new_uid", "uid_text"]

#: ``utilrand.String``'s alphabet.
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
#: Bytes below this map uniformly onto the alphabet (the largest multiple of 27
#: that fits in a byte); the rest are drawn again.
_UNIFORM_BELOW = 256 - 256 % len(NAME_ALPHABET)
_DRAW = 4096


class RandomPool:
    """Random bytes from ``os.urandom``, read :data:`_DRAW` bytes at a time.

    Thread-safe; emptied in a forked child (see the module contract).
    """

    def __init__(self, draw: int = _DRAW) -> None:
        self._draw = draw
        self._lock = threading.Lock()
        self._buffer = b""
        self._pos = 0

    def take(self, n: int) -> bytes:
        """``n`` bytes no one else was given."""
        with self._lock:
            if self._pos + n > len(self._buffer):
                self._buffer = os.urandom(max(self._draw, n))
                self._pos = 0
            chunk = self._buffer[self._pos:self._pos + n]
            self._pos += n
            return chunk

    def reset(self) -> None:
        """Forget the buffered bytes (a forked child must not reuse them).

        Runs in a forked child, where no other thread exists: another thread
        of the parent may have held the lock at the fork, and its copy would
        stay locked for good, so the child gets a new lock instead of taking it.
        """
        self._lock = threading.Lock()
        self._buffer = b""
        self._pos = 0


_POOL = RandomPool()
os.register_at_fork(after_in_child=_POOL.reset)


def new_uid() -> str:
    """A fresh version 4 UUID as text (see the module contract)."""
    return uid_text(_POOL.take(16))


def uid_text(random16: bytes) -> str:
    """``str(uuid.UUID(bytes=random16, version=4))``, in a quarter of its time
    (every create takes one): the version and variant bits set on the bytes,
    then their hex in the 8-4-4-4-12 form."""
    b = bytearray(random16)
    if len(b) != 16:
        raise ValueError("a UUID takes 16 bytes")
    b[6] = (b[6] & 0x0F) | 0x40  # version 4
    b[8] = (b[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def name_suffix(n: int = 5) -> str:
    """``n`` uniform characters of :data:`NAME_ALPHABET`."""
    out: list[str] = []
    while len(out) < n:
        for byte in _POOL.take(n - len(out) + 2):  # a couple spare for rejections
            if byte < _UNIFORM_BELOW:
                out.append(NAME_ALPHABET[byte % len(NAME_ALPHABET)])
                if len(out) == n:
                    break
    return "".join(out)
