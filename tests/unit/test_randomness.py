"""Uids and generated-name suffixes from the buffered random pool
(minikube_py/api/randomness.py): their form, their uniformity by rejection,
few system calls, and no bytes shared with a forked child."""

from __future__ import annotations

import os
import re
import uuid

import pytest

from minikube_py.api import randomness
from minikube_py.api.randomness import (
    NAME_ALPHABET,
    RandomPool,
    name_suffix,
    new_uid,
    uid_text,
)


def test_uid_is_a_canonical_version_4_uuid():
    uids = [new_uid() for _ in range(2000)]
    assert len(set(uids)) == len(uids)
    for text in uids[:200]:
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # canonical lower-case 8-4-4-4-12 form
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122


@pytest.mark.parametrize("raw", [bytes(16), b"\xff" * 16, bytes(range(16)),
                                 *(os.urandom(16) for _ in range(200))])
def test_uid_text_is_what_the_uuid_module_makes_of_the_bytes(raw: bytes):
    assert uid_text(raw) == str(uuid.UUID(bytes=raw, version=4))


def test_uid_text_takes_sixteen_bytes():
    with pytest.raises(ValueError, match="16 bytes"):
        uid_text(bytes(15))


def test_uids_draw_from_the_kernel_a_buffer_at_a_time(monkeypatch):
    calls: list[int] = []
    real = os.urandom

    def urandom(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(randomness.os, "urandom", urandom)
    monkeypatch.setattr(randomness, "_POOL", RandomPool(draw=4096))
    for _ in range(1000):
        new_uid()
    assert calls == [4096] * 4  # 16,000 bytes: four draws, not a thousand


@pytest.mark.parametrize(
    ("draw", "expected"),
    [
        # byte -> character: byte % 27 for bytes below 243 (9 * 27), the rest skipped
        (bytes([0, 1, 26, 27, 242]), "bc9b9"),
        (bytes([243, 255, 0, 250, 1, 2, 3, 4]), "bcdfg"),  # rejections drawn again
        (bytes([255] * 7 + [5, 6, 7, 8, 9]), "hjklm"),
    ],
)
def test_name_suffix_maps_bytes_uniformly_by_rejection(monkeypatch, draw, expected):
    stream = iter(draw + bytes(64))
    pool = RandomPool(draw=1)
    monkeypatch.setattr(randomness.os, "urandom", lambda n: bytes(next(stream) for _ in range(n)))
    monkeypatch.setattr(randomness, "_POOL", pool)
    assert name_suffix() == expected


def test_name_suffix_uses_only_the_alphabet_and_all_of_it():
    suffixes = [name_suffix() for _ in range(3000)]
    assert all(re.fullmatch(f"[{NAME_ALPHABET}]{{5}}", s) for s in suffixes)
    counts = {c: 0 for c in NAME_ALPHABET}
    for s in suffixes:
        for c in s:
            counts[c] += 1
    # 15,000 characters over 27: about 556 each; uniform draws stay well within
    # these bounds, a biased mapping (byte % 27 over all 256 bytes: +11 %) may not.
    assert min(counts.values()) > 400 and max(counts.values()) < 720, counts


def test_a_forked_child_never_reuses_the_parents_bytes():
    new_uid()  # the parent holds a buffer with bytes left in it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.write(write, randomness._POOL.take(64))
        finally:
            os._exit(0)
    os.close(write)
    child = b""
    while chunk := os.read(read, 64):
        child += chunk
    os.close(read)
    os.waitpid(pid, 0)
    assert len(child) == 64
    assert child != randomness._POOL.take(64)


def test_a_fork_while_another_thread_holds_the_pool_does_not_hang_the_child():
    """A thread of the parent holding the pool's lock at the fork must not
    leave the child's copy locked (subprocess runs the at-fork handlers when
    given a preexec_fn)."""
    import select
    import threading

    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with randomness._POOL._lock:
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(5)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.write(write, new_uid().encode())
            finally:
                os._exit(0)
        os.close(write)
        ready, _, _ = select.select([read], [], [], 5.0)
        got = os.read(read, 64) if ready else b""
        os.close(read)
        if not got:
            os.kill(pid, 9)
        os.waitpid(pid, 0)
        assert uuid.UUID(got.decode()).version == 4, "the child hung on the pool's lock"
    finally:
        release.set()
        holder.join()
