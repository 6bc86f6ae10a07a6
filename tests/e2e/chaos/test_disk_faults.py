"""A full disk and a read-only state directory under a running daemon.

The state directory lives on a filesystem of its own, so the host is never
harmed: a small tmpfs for "disk full", a loop-mounted ext4 image for "read-only"
(a busy filesystem cannot be remounted read-only by ``mount -o remount,ro``:
the kernel refuses while files are open for writing, as the daemon's journal
is; so the kernel is made to do what it does on a failing disk, an
``errors=remount-ro`` emergency remount, through ext4's ``trigger_fs_error``).
The hollow-node runtime is used: these faults are about the store, and Podman's
own state must not be on the small filesystem.

Promises checked:

* a write the store cannot persist is refused with a Status naming the cause and
  the journal file (kubectl prints it), and is not applied, then or after a
  restart;
* reads keep working and the daemon keeps running; every write acknowledged
  before, during and after the fault is there, and survives a restart;
* disk full: once space returns, writes succeed again without a restart and the
  controllers catch up;
* read-only: stopping the daemon does not hang, a new daemon on the read-only
  directory refuses to start with a clear error, and once the filesystem is
  writable again a daemon starts with everything acknowledged.

Every mount is undone at the end, even on failure.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Daemon, start_daemon, stop_daemon
from tests.waiting import wait_for

from .conftest import POLL, settle, sleeper

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(os.geteuid() != 0, reason="mounting a filesystem needs root"),
]

#: Writes tried on the full filesystem before one must be refused: the journal's
#: last page may still have room for a few records.
FULL_ATTEMPTS = 40


def _mounted(path: Path) -> bool:
    return subprocess.run(["findmnt", "-n", str(path)], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    """Unmount ``path`` (lazily if it is still busy); fails the test if it stays."""
    if not _mounted(path):
        return
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)
    assert not _mounted(path), f"{path} is still mounted"


@contextlib.contextmanager
def _daemons() -> Iterator[list[Daemon]]:
    """Daemons started in the block; any still running at the end is stopped
    (SIGKILL if SIGTERM does not do it) before the filesystem goes away."""
    started: list[Daemon] = []
    try:
        yield started
    finally:
        for d in started:
            if d.proc.poll() is None:
                with contextlib.suppress(AssertionError):
                    stop_daemon(d)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 24 MiB tmpfs, unmounted at the end."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", str(mnt)],
                   check=True, capture_output=True)
    try:
        yield mnt
    finally:
        _umount(mnt)


@pytest.fixture
def ext4(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A loop-mounted 64 MiB ext4 image (no journal, ``errors=remount-ro``):
    (mount point, image); unmounted at the end (``-o loop`` frees the loop device)."""
    image, mnt = tmp_path / "disk.img", tmp_path / "ext4"
    mnt.mkdir()
    with image.open("wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", str(image)], check=True,
                   capture_output=True)
    _mount_ext4(image, mnt)
    try:
        yield mnt, image
    finally:
        _umount(mnt)
        image.unlink(missing_ok=True)


def _mount_ext4(image: Path, mnt: Path) -> None:
    subprocess.run(["mount", "-o", "loop,errors=remount-ro", str(image), str(mnt)],
                   check=True, capture_output=True)


def _fill(directory: Path) -> int:
    """Fill the filesystem of ``directory`` with a file until it is full; bytes written."""
    total = 0
    free = os.statvfs(directory).f_bavail * os.statvfs(directory).f_frsize
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (1 << 20, 4096, 512):  # big steps, then the last pages
            block = b"\0" * chunk
            for _ in range(free // chunk + 2):  # bounded: no more than the free space
                try:
                    total += os.write(fd, block)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    finally:
        os.close(fd)
    return total


def _create_ns(d: Daemon, name: str) -> subprocess.CompletedProcess[str]:
    return d.kubectl("create", "namespace", name, check=False, timeout=30)


def _namespaces(d: Daemon) -> set[str]:
    return {n["metadata"]["name"] for n in d.get_json("namespaces")["items"]}


def _refused_write(d: Daemon, acked: list[str], prefix: str) -> tuple[str, str]:
    """Create namespaces until one is refused; (its name, kubectl's error)."""
    for i in range(FULL_ATTEMPTS):
        name = f"{prefix}-{i}"
        result = _create_ns(d, name)
        if result.returncode == 0:
            acked.append(name)  # the journal's last page still had room for it
            continue
        return name, result.stderr.strip()
    raise AssertionError(f"{FULL_ATTEMPTS} writes were all accepted on a full filesystem")


def test_disk_full_refuses_writes_keeps_acknowledged_and_recovers(tmpfs: Path) -> None:
    state = tmpfs / "state"
    with _daemons() as started:
        d = start_daemon(state, "--nodes", "2")
        started.append(d)
        acked = [f"before-{i}" for i in range(5)]
        for name in acked:
            assert _create_ns(d, name).returncode == 0
        d.kubectl("apply", "-f", "-", input=sleeper("web", replicas=2))
        wait_for(lambda: len(_running(d, "web")) == 2, "2 pods running", 60, interval=POLL)

        filled = _fill(tmpfs)
        refused, error = _refused_write(d, acked, "full")
        print(f"filled {filled >> 20} MiB; {len(acked) - 5} write(s) fitted in the journal's "
              f"last page; then: {error}")
        assert "No space left on device" in error, error
        assert f"{state}/journal." in error, error  # names the file, so the disk
        assert "InternalError" in error or "Internal error" in error, error
        # Still refused (not a one-off), the daemon still serves reads, and nothing
        # acknowledged is missing.
        again = _create_ns(d, "full-again")
        assert again.returncode != 0 and "No space left on device" in again.stderr
        assert d.proc.poll() is None, "the daemon died on a full disk"
        names = _namespaces(d)
        assert set(acked) <= names and refused not in names and "full-again" not in names
        scale = d.kubectl("scale", "deployment", "web", "--replicas=3", check=False)
        assert scale.returncode != 0 and "No space left on device" in scale.stderr
        # The next heartbeat fails and is logged, but daemon.log cannot be written
        # either: that is said once, not with a traceback per record.
        wait_for(lambda: "daemon.log: No space left on device" in "".join(d.log),
                 "the daemon to notice daemon.log is unwritable", 30, interval=POLL)
        assert "--- Logging error ---" not in "".join(d.log), "".join(d.log)[-3000:]
        assert d.proc.poll() is None

        # Space returns: writes succeed again, no restart, and the controllers and
        # kubelets, whose writes failed meanwhile, catch up.
        (tmpfs / "filler").unlink()
        assert wait_for(lambda: _create_ns(d, "after-0").returncode == 0,
                        "a write to succeed once space returned", 30, interval=POLL)
        acked.append("after-0")
        d.kubectl("scale", "deployment", "web", "--replicas=3")
        wait_for(lambda: len(_running(d, "web")) == 3, "the scale-up to run", 90, interval=POLL)
        assert set(acked) <= _namespaces(d)

        # Everything acknowledged is durable: a restart replays it, and the refused
        # writes were never applied.
        assert stop_daemon(d) == 0
        assert "daemon.log: writable again" in "".join(d.log)  # its first record since
        d = start_daemon(state, "--nodes", "2")
        started.append(d)
        names = _namespaces(d)
        assert set(acked) <= names, set(acked) - names
        assert refused not in names and "full-again" not in names
        settle(lambda: [] if len(_running(d, "web")) == 3 else ["not 3 pods"],
               "3 pods after the restart", 60)


def _running(d: Daemon, app: str) -> list[str]:
    pods = d.get_json("pods", "-l", f"app={app}")["items"]
    return [p["metadata"]["name"] for p in pods if not p["metadata"].get("deletionTimestamp")
            and (p.get("status") or {}).get("phase") == "Running"]


def _force_read_only(mnt: Path) -> None:
    """Make the kernel remount ``mnt`` read-only as on a disk error (the files the
    daemon holds open for writing forbid ``mount -o remount,ro``)."""
    source = subprocess.run(["findmnt", "-no", "SOURCE", str(mnt)], capture_output=True,
                            text=True, check=True).stdout.strip()
    trigger = Path("/sys/fs/ext4") / Path(source).name / "trigger_fs_error"
    if not trigger.exists():
        pytest.skip(f"{trigger} does not exist (kernel without ext4's error trigger)")
    busy = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True)
    if busy.returncode != 0:  # the expected case while the daemon writes there
        trigger.write_text("minikube-py chaos test: forced read-only\n")
    wait_for(lambda: _read_only(mnt), f"{mnt} to be read-only", 10)


def _read_only(mnt: Path) -> bool:
    """Whether creating a file there fails with EROFS (recent kernels show the
    emergency remount as an ``emergency_ro`` flag, not as ``ro``)."""
    try:
        fd = os.open(mnt / "probe", os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError as exc:
        return exc.errno == errno.EROFS
    os.close(fd)
    os.unlink(mnt / "probe")
    return False


def test_read_only_state_dir_refuses_writes_and_loses_nothing(
        ext4: tuple[Path, Path]) -> None:
    mnt, image = ext4
    state = mnt / "state"
    with _daemons() as started:
        # --fsync: the kernel's emergency remount drops dirty pages, as a power loss
        # does, and only --fsync promises that acknowledged writes survive that.
        d = start_daemon(state, "--nodes", "2", "--fsync")
        started.append(d)
        acked = [f"before-{i}" for i in range(5)]
        for name in acked:
            assert _create_ns(d, name).returncode == 0

        _force_read_only(mnt)
        refused, error = _refused_write(d, acked, "ro")
        assert "Read-only file system" in error, error
        assert f"{state}/journal." in error, error
        assert d.proc.poll() is None, "the daemon died on a read-only state directory"
        names = _namespaces(d)
        assert set(acked) <= names and refused not in names

        # Stopping must not hang; the journal already holds every acknowledged write.
        d.proc.terminate()
        try:
            code = d.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError("the daemon hung stopping on a read-only state dir") from None
        assert code == 0, "".join(d.log[-30:])

        # A new daemon on the read-only directory: a clear refusal, promptly.
        ro = subprocess.run([sys.executable, "-m", "minikube_py", "daemon", "--runtime",
                             "fake", "--state-dir", str(state), "--listen", "127.0.0.1:0"],
                            capture_output=True, text=True, timeout=60)
        assert ro.returncode != 0
        assert "Read-only file system" in ro.stderr, ro.stderr[-2000:]
        assert "Traceback" not in ro.stderr, ro.stderr[-2000:]

    # The disk is repaired (fsck, mounted again): a daemon finds every
    # acknowledged write, none of the refused ones, and accepts writes.
    _umount(mnt)
    fsck = subprocess.run(["e2fsck", "-f", "-y", str(image)], capture_output=True, text=True)
    assert fsck.returncode in (0, 1), fsck.stdout + fsck.stderr  # 1: errors corrected
    _mount_ext4(image, mnt)
    with _daemons() as started:
        d = start_daemon(state, "--nodes", "2", "--fsync")
        started.append(d)
        names = _namespaces(d)
        assert set(acked) <= names, set(acked) - names
        assert refused not in names
        assert _create_ns(d, "after-0").returncode == 0
        assert json.loads(d.kubectl("get", "namespace", "after-0", "-o", "json").stdout)
