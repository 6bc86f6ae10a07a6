"""Connecting to a port inside a pod's network namespace (``kubectl port-forward``).

The kubelet forwards a port by dialling ``localhost:PORT`` *inside the pod's
network namespace*, so a server that listens only on the pod's loopback is
reachable too. Linux lets one thread enter another network namespace
(``setns(2)`` with ``CLONE_NEWNET`` changes only the calling thread), and a
socket stays in the namespace it was created in. So a short-lived helper
thread enters the namespace of the pod's infra process, creates and connects
the socket there, and ends; the socket is then used from anywhere. The
daemon's own threads never change namespace.

The error text follows the kubelet's (CRI's ``portForward``): ``failed to
connect to localhost:80 inside namespace "<ns>", IPv4: dial tcp4
127.0.0.1:80: connect: connection refused IPv6 dial tcp6 [::1]:80: connect:
connection refused``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import socket
import threading

from .base import ContainerRuntimeError

__all__ = ["connect_in_netns"]

_CLONE_NEWNET = 0x40000000
_CONNECT_TIMEOUT = 10.0

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, _CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _dial(family: int, host: str, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(_CONNECT_TIMEOUT)
    try:
        sock.connect((host, port))
    except OSError:
        sock.close()
        raise
    sock.settimeout(None)
    return sock


def _go_error(kind: str, host: str, port: int, exc: OSError) -> str:
    reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
    if exc.errno == errno.ECONNREFUSED:
        reason = "connection refused"
    shown = f"[{host}]" if ":" in host else host
    return f"dial {kind} {shown}:{port}: connect: {reason}"


def connect_in_netns(pid: int, port: int) -> socket.socket:
    """A TCP connection to ``localhost:port`` in the network namespace of
    process ``pid`` (IPv4 first, then IPv6, as the kubelet tries)."""
    ns_path = f"/proc/{pid}/ns/net"
    result: dict[str, object] = {}

    def work() -> None:
        try:
            own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        except OSError as exc:
            result["error"] = f"cannot read this thread's network namespace: {exc}"
            return
        try:
            try:
                target = os.open(ns_path, os.O_RDONLY)
            except OSError as exc:
                result["error"] = f"the pod's network namespace {ns_path} is gone: {exc}"
                return
            try:
                _setns(target)
            except OSError as exc:
                result["error"] = f"cannot enter the network namespace {ns_path}: {exc}"
                return
            finally:
                os.close(target)
            errors: list[str] = []
            try:
                for family, host, kind in ((socket.AF_INET, "127.0.0.1", "tcp4"),
                                           (socket.AF_INET6, "::1", "tcp6")):
                    try:
                        result["socket"] = _dial(family, host, port)
                        return
                    except OSError as exc:
                        errors.append(_go_error(kind, host, port, exc))
                result["error"] = (f'failed to connect to localhost:{port} inside namespace '
                                   f'"{ns_path}", IPv4: {errors[0]} IPv6 {errors[1]}')
            finally:
                # Back home; a thread that cannot return must not run anything else,
                # and it does not: it ends here.
                try:
                    _setns(own)
                except OSError:
                    result.setdefault("error", "cannot leave the pod's network namespace")
        finally:
            os.close(own)

    thread = threading.Thread(target=work, name=f"netns-dial-{pid}", daemon=True)
    thread.start()
    thread.join()
    sock = result.get("socket")
    if isinstance(sock, socket.socket):
        return sock
    raise ContainerRuntimeError(str(result.get("error") or "port-forward failed"))
