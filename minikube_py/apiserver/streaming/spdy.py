"""SPDY/3.1 framing for port-forwarding: frames, header compression, a server session.

kubectl's port-forward speaks SPDY/3.1 (draft-mbelshe-httpbis-spdy-00 with
the 3.1 session window), through the Go library moby/spdystream and its
framer. There is no maintained Python SPDY library, so this module keeps to
what that conversation needs, sans-I/O (bytes in, bytes and events out):

* **Frames** (section 2.2): a control frame is ``1 | version(15) |
  type(16) | flags(8) | length(24)`` then its fields; a data frame is
  ``0 | stream-id(31) | flags(8) | length(24)`` then the data. Types:
  SYN_STREAM 1, SYN_REPLY 2, RST_STREAM 3, SETTINGS 4, PING 6, GOAWAY 7,
  HEADERS 8, WINDOW_UPDATE 9; others are ignored, as the spec says.
* **Header blocks** (2.6.10): a 32-bit count, then for each header a 32-bit
  length and the (lower-case) name, a 32-bit length and the values joined by
  NUL; compressed with zlib and the SPDY/3 dictionary, one compression
  context per direction for the whole session, each block ending with a
  sync flush (what Go's framer and spdystream do).
* **Flow control**: spdystream implements none. It never sends
  WINDOW_UPDATE, never waits for one before writing, and drops the ones it
  receives (its ``Serve`` loop has no case for them). A server that held
  data back once a 64 KiB window was spent would stall every transfer, so
  this session sends data as it comes and sends no window updates; received
  SETTINGS and WINDOW_UPDATE frames are accepted and ignored. :meth:`
  ServerSession.pending` is therefore always 0.
* **The session** (server side): client streams have odd, increasing ids
  (a SYN_STREAM breaking that is answered RST_STREAM PROTOCOL_ERROR, as
  spdystream's ``checkStreamFrame`` does); client PINGs (odd ids) are
  echoed; GOAWAY ends the session.

How kubelets use it for port-forwarding (``cri/streaming/portforward/
httpstream.go``) lives in :mod:`.spdyforward`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "HEADER_DICTIONARY",
    "DataFrame",
    "DataReceived",
    "FrameDecoder",
    "FrameEncoder",
    "GoAway",
    "Headers",
    "Ping",
    "RstStream",
    "ServerSession",
    "SessionClosed",
    "Settings",
    "SpdyProtocolError",
    "StreamEnded",
    "StreamOpened",
    "StreamReset",
    "SynReply",
    "SynStream",
    "WindowUpdate",
]

VERSION = 3
#: Frames larger than this are refused (the 24-bit length allows 16 MiB - 1).
MAX_FRAME = 16 * 1024 * 1024 - 1
#: Data is sent in frames of at most this many bytes.
DATA_CHUNK = 32 * 1024

SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = \
    1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
FLAG_UNIDIRECTIONAL = 0x02
FLAG_CLEAR_SETTINGS = 0x01
#: RST_STREAM status codes (2.4.2).
PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, CANCEL = 1, 2, 3, 5


def _dictionary() -> bytes:
    """The SPDY/3 header compression dictionary (2.6.10.1), 1423 bytes: the
    length-prefixed words, then the status lines, dates and types as raw text."""
    words = ("options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
             "accept-encoding", "accept-language", "accept-ranges", "age", "allow",
             "authorization", "cache-control", "connection", "content-base", "content-encoding",
             "content-language", "content-length", "content-location", "content-md5",
             "content-range", "content-type", "date", "etag", "expect", "expires", "from",
             "host", "if-match", "if-modified-since", "if-none-match", "if-range",
             "if-unmodified-since", "last-modified", "location", "max-forwards", "pragma",
             "proxy-authenticate", "proxy-authorization", "range", "referer", "retry-after",
             "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary",
             "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
             "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin")
    tail = ("100101201202205206300302303304305306307402405406407408409410411412413414415416417"
            "502504505203 Non-Authoritative Information204 No Content301 Moved Permanently"
            "400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server "
            "Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug "
            "Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,"
            "image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
            "text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset="
            "iso-8859-1,utf-,*,enq=0.")
    return b"".join(struct.pack(">I", len(w)) + w.encode() for w in words) + tail.encode()


HEADER_DICTIONARY = _dictionary()

HeaderMap = Mapping[str, list[str]]


class SpdyProtocolError(ValueError):
    """The peer sent something that is not SPDY/3.1."""


# ---------------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class DataFrame:
    stream_id: int
    data: bytes
    fin: bool = False


@dataclass(frozen=True, slots=True)
class SynStream:
    stream_id: int
    headers: HeaderMap
    associated_id: int = 0
    priority: int = 0
    fin: bool = False
    unidirectional: bool = False


@dataclass(frozen=True, slots=True)
class SynReply:
    stream_id: int
    headers: HeaderMap
    fin: bool = False


@dataclass(frozen=True, slots=True)
class RstStream:
    stream_id: int
    status: int


@dataclass(frozen=True, slots=True)
class Settings:
    entries: dict[int, int] = field(default_factory=dict)
    clear: bool = False


@dataclass(frozen=True, slots=True)
class Ping:
    ping_id: int


@dataclass(frozen=True, slots=True)
class GoAway:
    last_good_stream_id: int
    status: int = 0


@dataclass(frozen=True, slots=True)
class Headers:
    stream_id: int
    headers: HeaderMap
    fin: bool = False


@dataclass(frozen=True, slots=True)
class WindowUpdate:
    stream_id: int
    delta: int


Frame = (DataFrame | SynStream | SynReply | RstStream | Settings | Ping | GoAway | Headers
         | WindowUpdate)


def encode_header_block(headers: HeaderMap) -> bytes:
    """The uncompressed block: count, then (name, NUL-joined values) pairs."""
    out = [struct.pack(">I", len(headers))]
    for name, values in headers.items():
        key = name.lower().encode()
        value = b"\x00".join(v.encode() for v in values)
        out.append(struct.pack(">I", len(key)) + key + struct.pack(">I", len(value)) + value)
    return b"".join(out)


def decode_header_block(raw: bytes) -> dict[str, list[str]]:
    def take(pos: int, what: str) -> tuple[bytes, int]:
        if pos + 4 > len(raw):
            raise SpdyProtocolError(f"header block truncated in the length of {what}")
        (size,) = struct.unpack_from(">I", raw, pos)
        end = pos + 4 + size
        if end > len(raw):
            raise SpdyProtocolError(f"header block truncated in {what} ({size} bytes announced)")
        return raw[pos + 4:end], end

    if len(raw) < 4:
        raise SpdyProtocolError("header block truncated before its count")
    (count,) = struct.unpack_from(">I", raw, 0)
    pos = 4
    headers: dict[str, list[str]] = {}
    for i in range(count):
        name, pos = take(pos, f"header name {i}")
        value, pos = take(pos, f"the value of header {name.decode(errors='replace')!r}")
        if not name:
            raise SpdyProtocolError(f"header {i} has an empty name")
        headers.setdefault(name.decode(errors="replace").lower(), []).extend(
            v.decode(errors="replace") for v in value.split(b"\x00"))
    return headers


def _control(kind: int, flags: int, payload: bytes) -> bytes:
    return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload


class FrameEncoder:
    """Frames to bytes; owns the outbound header compression context."""

    def __init__(self) -> None:
        self._zlib = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15,
                                      zdict=HEADER_DICTIONARY)

    def _block(self, headers: HeaderMap) -> bytes:
        raw = encode_header_block(headers)
        return self._zlib.compress(raw) + self._zlib.flush(zlib.Z_SYNC_FLUSH)

    def encode(self, frame: Frame) -> bytes:
        if isinstance(frame, DataFrame):
            if len(frame.data) > MAX_FRAME:
                raise ValueError(f"a data frame holds at most {MAX_FRAME} bytes")
            flags = FLAG_FIN if frame.fin else 0
            return struct.pack(">II", frame.stream_id & 0x7FFFFFFF,
                               (flags << 24) | len(frame.data)) + frame.data
        if isinstance(frame, SynStream):
            flags = (FLAG_FIN if frame.fin else 0) | \
                (FLAG_UNIDIRECTIONAL if frame.unidirectional else 0)
            head = struct.pack(">IIBB", frame.stream_id, frame.associated_id,
                               (frame.priority & 0x7) << 5, 0)
            return _control(SYN_STREAM, flags, head + self._block(frame.headers))
        if isinstance(frame, SynReply):
            return _control(SYN_REPLY, FLAG_FIN if frame.fin else 0,
                            struct.pack(">I", frame.stream_id) + self._block(frame.headers))
        if isinstance(frame, Headers):
            return _control(HEADERS, FLAG_FIN if frame.fin else 0,
                            struct.pack(">I", frame.stream_id) + self._block(frame.headers))
        if isinstance(frame, RstStream):
            return _control(RST_STREAM, 0, struct.pack(">II", frame.stream_id, frame.status))
        if isinstance(frame, Settings):
            body = struct.pack(">I", len(frame.entries)) + b"".join(
                struct.pack(">II", key & 0xFFFFFF, value)
                for key, value in sorted(frame.entries.items()))
            return _control(SETTINGS, FLAG_CLEAR_SETTINGS if frame.clear else 0, body)
        if isinstance(frame, Ping):
            return _control(PING, 0, struct.pack(">I", frame.ping_id))
        if isinstance(frame, GoAway):
            return _control(GOAWAY, 0, struct.pack(">II", frame.last_good_stream_id,
                                                   frame.status))
        return _control(WINDOW_UPDATE, 0, struct.pack(">II", frame.stream_id, frame.delta))


class FrameDecoder:
    """Bytes to frames, fed incrementally; owns the inbound decompression context."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._zlib = zlib.decompressobj(zdict=HEADER_DICTIONARY)

    def _block(self, data: bytes) -> dict[str, list[str]]:
        try:
            raw = self._zlib.decompress(data)
        except zlib.error as exc:
            raise SpdyProtocolError(f"the header block does not decompress: {exc}") from None
        return decode_header_block(raw)

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer.extend(data)
        frames: list[Frame] = []
        while len(self._buffer) >= 8:
            first, second = struct.unpack_from(">II", self._buffer, 0)
            length = second & 0xFFFFFF
            flags = second >> 24
            if len(self._buffer) < 8 + length:
                break
            payload = bytes(self._buffer[8:8 + length])
            del self._buffer[:8 + length]
            if not first & 0x80000000:
                frames.append(DataFrame(first & 0x7FFFFFFF, payload, bool(flags & FLAG_FIN)))
                continue
            version, kind = (first >> 16) & 0x7FFF, first & 0xFFFF
            if version != VERSION:
                raise SpdyProtocolError(f"SPDY version {version} is not served (only 3)")
            frame = self._control(kind, flags, payload)
            if frame is not None:
                frames.append(frame)
        return frames

    def _control(self, kind: int, flags: int, payload: bytes) -> Frame | None:
        def need(size: int, name: str) -> None:
            if len(payload) < size:
                raise SpdyProtocolError(f"{name} frame too short: {len(payload)} bytes, at "
                                        f"least {size} needed")

        fin = bool(flags & FLAG_FIN)
        if kind == SYN_STREAM:
            need(10, "SYN_STREAM")
            stream_id, assoc = struct.unpack_from(">II", payload, 0)
            return SynStream(stream_id & 0x7FFFFFFF, self._block(payload[10:]),
                             assoc & 0x7FFFFFFF, payload[8] >> 5, fin,
                             bool(flags & FLAG_UNIDIRECTIONAL))
        if kind in (SYN_REPLY, HEADERS):
            need(4, "SYN_REPLY" if kind == SYN_REPLY else "HEADERS")
            (stream_id,) = struct.unpack_from(">I", payload, 0)
            headers = self._block(payload[4:])
            if kind == SYN_REPLY:
                return SynReply(stream_id & 0x7FFFFFFF, headers, fin)
            return Headers(stream_id & 0x7FFFFFFF, headers, fin)
        if kind == RST_STREAM:
            need(8, "RST_STREAM")
            stream_id, status = struct.unpack_from(">II", payload, 0)
            return RstStream(stream_id & 0x7FFFFFFF, status)
        if kind == SETTINGS:
            need(4, "SETTINGS")
            (count,) = struct.unpack_from(">I", payload, 0)
            need(4 + 8 * count, "SETTINGS")
            entries = {}
            for i in range(count):
                key, value = struct.unpack_from(">II", payload, 4 + 8 * i)
                entries[key & 0xFFFFFF] = value
            return Settings(entries, bool(flags & FLAG_CLEAR_SETTINGS))
        if kind == PING:
            need(4, "PING")
            return Ping(struct.unpack_from(">I", payload, 0)[0])
        if kind == GOAWAY:
            need(4, "GOAWAY")
            last = struct.unpack_from(">I", payload, 0)[0] & 0x7FFFFFFF
            status = struct.unpack_from(">I", payload, 4)[0] if len(payload) >= 8 else 0
            return GoAway(last, status)
        if kind == WINDOW_UPDATE:
            need(8, "WINDOW_UPDATE")
            stream_id, delta = struct.unpack_from(">II", payload, 0)
            return WindowUpdate(stream_id & 0x7FFFFFFF, delta & 0x7FFFFFFF)
        return None  # unknown control frames are ignored (2.2.1)


# ---------------------------------------------------------------------- session


@dataclass(frozen=True, slots=True)
class StreamOpened:
    stream_id: int
    headers: HeaderMap


@dataclass(frozen=True, slots=True)
class DataReceived:
    stream_id: int
    data: bytes


@dataclass(frozen=True, slots=True)
class StreamEnded:
    """The peer will send no more on this stream (its FIN)."""

    stream_id: int


@dataclass(frozen=True, slots=True)
class StreamReset:
    stream_id: int
    status: int


@dataclass(frozen=True, slots=True)
class SessionClosed:
    reason: str


Event = StreamOpened | DataReceived | StreamEnded | StreamReset | SessionClosed


class ServerSession:
    """The server side of one SPDY session (see the module docstring)."""

    def __init__(self) -> None:
        self._decoder = FrameDecoder()
        self._encoder = FrameEncoder()
        self._out = bytearray()
        self._last_client_stream = 0
        self._open: set[int] = set()          # streams either side may still use
        self._local_done: set[int] = set()    # we sent FIN or RST
        self._remote_done: set[int] = set()   # the peer sent FIN or RST
        self.closed = False

    # -------------------------------------------------------------- receiving

    def receive(self, data: bytes) -> list[Event]:
        """Events from ``data``; raises SpdyProtocolError for what is not SPDY."""
        events: list[Event] = []
        for frame in self._decoder.feed(data):
            if isinstance(frame, SynStream):
                sid = frame.stream_id
                if sid % 2 == 0 or sid <= self._last_client_stream:
                    self._out += self._encoder.encode(RstStream(sid, PROTOCOL_ERROR))
                    continue
                self._last_client_stream = sid
                self._open.add(sid)
                events.append(StreamOpened(sid, frame.headers))
                if frame.fin or frame.unidirectional:
                    self._remote_done.add(sid)
                    events.append(StreamEnded(sid))
            elif isinstance(frame, DataFrame):
                if frame.stream_id not in self._open or frame.stream_id in self._remote_done:
                    continue  # a stream already gone: dropped, as spdystream does
                if frame.data:
                    events.append(DataReceived(frame.stream_id, frame.data))
                if frame.fin:
                    self._remote_done.add(frame.stream_id)
                    events.append(StreamEnded(frame.stream_id))
                    self._forget(frame.stream_id)
            elif isinstance(frame, Headers):
                if frame.fin and frame.stream_id in self._open:
                    self._remote_done.add(frame.stream_id)
                    events.append(StreamEnded(frame.stream_id))
                    self._forget(frame.stream_id)
            elif isinstance(frame, RstStream):
                if frame.stream_id in self._open:
                    self._open.discard(frame.stream_id)
                    self._local_done.discard(frame.stream_id)
                    self._remote_done.discard(frame.stream_id)
                    events.append(StreamReset(frame.stream_id, frame.status))
            elif isinstance(frame, Ping):
                if frame.ping_id % 2 == 1:  # the client's: echo it
                    self._out += self._encoder.encode(frame)
            elif isinstance(frame, GoAway):
                self.closed = True
                events.append(SessionClosed(f"the client went away (GOAWAY status "
                                            f"{frame.status})"))
            # SETTINGS, WINDOW_UPDATE, SYN_REPLY (we open no streams): nothing to do.
        return events

    def _forget(self, stream_id: int) -> None:
        if stream_id in self._local_done and stream_id in self._remote_done:
            self._open.discard(stream_id)
            self._local_done.discard(stream_id)
            self._remote_done.discard(stream_id)

    # -------------------------------------------------------------- sending

    def reply(self, stream_id: int, headers: HeaderMap | None = None, *,
              fin: bool = False) -> None:
        self._out += self._encoder.encode(SynReply(stream_id, headers or {}, fin))
        if fin:
            self._local_done.add(stream_id)
            self._forget(stream_id)

    def send_data(self, stream_id: int, data: bytes, *, fin: bool = False) -> None:
        if stream_id not in self._open or stream_id in self._local_done:
            return  # reset or finished: what was meant for it goes nowhere
        view = memoryview(data)
        while len(view) > DATA_CHUNK:
            self._out += self._encoder.encode(DataFrame(stream_id, bytes(view[:DATA_CHUNK])))
            view = view[DATA_CHUNK:]
        if view or fin:
            self._out += self._encoder.encode(DataFrame(stream_id, bytes(view), fin))
        if fin:
            self._local_done.add(stream_id)
            self._forget(stream_id)

    def end_stream(self, stream_id: int) -> None:
        """An empty DATA frame with FIN (what spdystream's ``Close`` sends)."""
        self.send_data(stream_id, b"", fin=True)

    def reset(self, stream_id: int, status: int = CANCEL) -> None:
        if stream_id in self._open:
            self._out += self._encoder.encode(RstStream(stream_id, status))
            self._open.discard(stream_id)
            self._local_done.discard(stream_id)
            self._remote_done.discard(stream_id)

    def go_away(self, status: int = 0) -> None:
        if not self.closed:
            self.closed = True
            self._out += self._encoder.encode(GoAway(self._last_client_stream, status))

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def pending(self, stream_id: int) -> int:
        """Bytes held back by flow control: none (spdystream does no flow control)."""
        return 0
