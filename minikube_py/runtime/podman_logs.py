"""Container logs from Podman's logs API, as the runtime contract wants them.

``GET /containers/{id}/logs`` answers with Docker-multiplexed frames, one per
log entry, each starting with the entry's time (we always ask for
timestamps: they are needed for ``since`` and to reformat them the way
``kubectl logs --timestamps`` prints them). A frame without a trailing
newline is a *partial* entry (conmon splits long lines, and ``echo -n``
writes one); partial frames are joined per stream until the newline, so
every item we yield is one whole line ending in ``\\n``.

Filtering follows :class:`~.fake.FakeRuntime`: ``since_seconds`` first, then
``tail_lines``. Podman applies them the other way round when given both, so
in that case the tail is cut here. ``follow`` reads the stream in a
background thread and hands lines over through a queue, so that ``alive()``
can be checked every half second even when the container is silent; closing
the iterator (or ``alive()`` turning False) shuts the connection down, which
ends the thread. Podman itself ends a followed stream shortly after the
container exits.

Podman 4.3 stamps log lines with whole seconds, so the nanoseconds printed
with ``timestamps`` are zeros there.
"""

from __future__ import annotations

import collections
import queue
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .logformat import format_log_lines
from .podman_api import (
    FrameDecoder,
    PodmanAPI,
    close_client,
    parse_time,
    shutdown_response,
)

__all__ = ["LineAssembler", "read_logs"]

_ALIVE_CHECK_SECONDS = 0.5
_TS_PREFIX = re.compile(rb"^(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:\d\d)) ")
_END = object()


class LineAssembler:
    """Frames in, ``(time, line)`` out; joins partial frames per stream."""

    def __init__(self) -> None:
        self._decoder = FrameDecoder()
        self._partial: dict[int, tuple[float, bytearray]] = {}
        self._last_ts = 0.0

    def _split(self, payload: bytes) -> tuple[float, bytes]:
        m = _TS_PREFIX.match(payload)
        if m is None:
            return self._last_ts, payload
        ts = parse_time(m.group(1).decode())
        if ts is not None:
            self._last_ts = ts
        return self._last_ts, payload[m.end():]

    def _frames(self, frames: Iterable[tuple[int, bytes]]) -> list[tuple[float, bytes]]:
        out: list[tuple[float, bytes]] = []
        for stream, payload in frames:
            ts, text = self._split(payload)
            # A frame may hold several lines when Podman batches them (TTY or raw
            # streams); only the last piece can be partial.
            pieces = text.split(b"\n")
            for i, piece in enumerate(pieces):
                last = i == len(pieces) - 1
                if last and not piece:
                    break
                held = self._partial.pop(stream, None)
                if held is not None:
                    ts0, buf = held
                    buf.extend(piece)
                    line_ts, line = ts0, bytes(buf)
                else:
                    line_ts, line = ts, piece
                if last:  # no newline after it: wait for the rest
                    self._partial[stream] = (line_ts, bytearray(line))
                else:
                    out.append((line_ts, line + b"\n"))
        return out

    def feed(self, data: bytes) -> list[tuple[float, bytes]]:
        return self._frames(self._decoder.feed(data))

    def finish(self) -> list[tuple[float, bytes]]:
        """The rest once the stream ended; an unfinished line gets its newline."""
        out = self._frames(self._decoder.flush())
        for stream in sorted(self._partial):
            ts, buf = self._partial[stream]
            out.append((ts, bytes(buf) + b"\n"))
        self._partial.clear()
        return out


def _chunks(response: Any) -> Iterator[bytes]:
    yield from response.iter_content(chunk_size=None)


def _fetch(api: PodmanAPI, container_id: str, *, follow: bool, tail: int | None,
           since: float | None) -> tuple[Any, Any]:
    """Open the logs stream; returns (client, response)."""
    params: dict[str, str] = {"stdout": "true", "stderr": "true", "timestamps": "true",
                              "follow": "true" if follow else "false"}
    if tail is not None:
        params["tail"] = str(max(0, tail))
    if since is not None:
        params["since"] = f"{since:.9f}"
    client = api.stream_client()
    try:
        response = api.call("GET", f"/containers/{container_id}/logs", params=params,
                            stream=True, client=client)
        api.check(response, f"logs of container {container_id}")
    except BaseException:
        close_client(client)
        raise
    return client, response


def _collect(api: PodmanAPI, container_id: str, *, tail: int | None,
             since: float | None) -> list[tuple[float, bytes]]:
    client, response = _fetch(api, container_id, follow=False, tail=tail, since=since)
    try:
        lines = LineAssembler()
        out: list[tuple[float, bytes]] = []
        for chunk in _chunks(response):
            out.extend(lines.feed(chunk))
        out.extend(lines.finish())
        return out
    finally:
        shutdown_response(response)
        close_client(client)


def _follow(api: PodmanAPI, container_id: str, *, tail: int | None, since: float | None,
            skip: int, alive: Callable[[], bool] | None) -> Iterator[tuple[float, bytes]]:
    client, response = _fetch(api, container_id, follow=True, tail=tail, since=since)
    items: queue.Queue[Any] = queue.Queue()

    def reader() -> None:
        lines = LineAssembler()
        try:
            for chunk in _chunks(response):
                for item in lines.feed(chunk):
                    items.put(item)
            for item in lines.finish():
                items.put(item)
        except Exception:
            pass
        finally:
            items.put(_END)

    thread = threading.Thread(target=reader, name=f"podman-logs-{container_id[:12]}",
                              daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = items.get(timeout=_ALIVE_CHECK_SECONDS if alive is not None else None)
            except queue.Empty:
                if alive is not None and not alive():
                    return
                continue
            if item is _END:
                return
            if skip > 0:
                skip -= 1
                continue
            yield item
            if alive is not None and not alive():
                return
    finally:
        shutdown_response(response)
        close_client(client)


def read_logs(api: PodmanAPI, container_id: str, *, follow: bool, tail_lines: int | None,
              timestamps: bool, since: float | None, limit_bytes: int | None,
              alive: Callable[[], bool] | None) -> Iterator[bytes]:
    """The container's log lines (see the module docstring)."""
    if tail_lines is not None and tail_lines <= 0 and not follow:
        return
    source: Iterable[tuple[float, bytes]]
    if not follow:
        if since is not None and tail_lines is not None:
            source = collections.deque(_collect(api, container_id, tail=None, since=since),
                                       maxlen=tail_lines)
        else:
            source = _collect(api, container_id, tail=tail_lines, since=since)
    elif since is not None and tail_lines is not None:
        # Podman would tail first and filter by time after; count what the
        # time filter keeps and skip all but the last ``tail_lines`` of it.
        kept = len(_collect(api, container_id, tail=None, since=since))
        source = _follow(api, container_id, tail=None, since=since,
                         skip=max(0, kept - max(0, tail_lines)), alive=alive)
    else:
        source = _follow(api, container_id, tail=tail_lines, since=since, skip=0, alive=alive)
    yield from format_log_lines(source, timestamps=timestamps, limit_bytes=limit_bytes)

