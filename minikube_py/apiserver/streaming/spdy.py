"""SPDY/3.1 framing for port-forwarding: frames, header compression, a server session.

kubectl's ``port-forward`` speaks SPDY/3.1 (draft-mbelshe-httpbis-spdy-00
plus the 3.1 session window) through the Go library moby/spdystream, either
after ``Upgrade: SPDY/3.1`` or tunnelled in binary WebSocket messages
(``SPDY/3.1+portforward.k8s.io``; the messages are just a byte stream). There
is no maintained Python SPDY library, so this module does what that
conversation needs and nothing else: it is sans-I/O (bytes in, events and
bytes out; no sockets, threads or clocks).

Contract
  * :class:`FrameDecoder` turns bytes (fed in any pieces) into frames and
    raises :class:`SpdyProtocolError` (a ``ValueError``) naming what is wrong
    with input that is not SPDY/3; after that it refuses further input, as
    the shared zlib context is lost.
  * :class:`FrameEncoder` turns frames into bytes.
  * :class:`ServerSession` is one connection's server side: :meth:`~ServerSession.
    receive` gives events, the other methods queue frames for
    :meth:`~ServerSession.data_to_send`. It raises only what the decoder raises.

Wire format (spec section 2)
  A control frame is ``1 | version(15)=3 | type(16) | flags(8) | length(24)``
  then its fields; a data frame ``0 | stream-id(31) | flags(8) | length(24)``
  then the data. Header blocks are a 32-bit count, then per header a 32-bit
  length and a lower-case name, a 32-bit length and the values joined by NUL,
  all zlib-compressed with the SPDY/3 dictionary in *one* context per
  direction for the whole session, each block ending in a sync flush.

What spdystream does (moby/spdystream ``connection.go``, ``stream.go``,
``spdy/read.go``, ``spdy/write.go``, ``spdy/dictionary.go``, ``spdy/types.go``)
  * **No flow control at all.** It never sends WINDOW_UPDATE or SETTINGS,
    ``Stream.Write`` sends one DATA frame per call without looking at any
    window, and received SETTINGS/WINDOW_UPDATE frames fall through
    ``Serve``'s switch to "unhandled frame type" and are dropped. Back-pressure
    is TCP's: a frame worker blocks until the stream's reader takes the data.
    So this session never holds data back (a server stopping at the default
    64 KiB window would stall every transfer, as nothing would ever reopen
    it), sends no WINDOW_UPDATE, and ignores SETTINGS and WINDOW_UPDATE;
    :meth:`ServerSession.pending` is always 0.
  * Its framer accepts DATA frames up to 2**24 - 1 bytes (``MaxDataLength``),
    refuses stream id 0 on SYN_STREAM/SYN_REPLY/HEADERS/RST_STREAM/DATA and
    treats unknown control types as fatal; it compresses at level 9 with
    ``Flush()`` (a sync flush) after every block.
  * A server accepts a SYN_STREAM whose id is at least the next expected one
    (``validateStreamId``) and answers any other with RST_STREAM
    PROTOCOL_ERROR; after a GOAWAY new SYN_STREAMs are ignored.
  * PINGs whose id parity differs from its own (a server's are even) are
    echoed; kubectl pings every 5 s (10 s through the WebSocket tunnel).
  * ``Stream.Close`` is an empty DATA frame with FIN, ``Stream.Reset`` an
    RST_STREAM CANCEL; DATA for an unknown or finished stream is dropped
    without a reply; ``Connection.Close`` sends GOAWAY status OK.

How kubectl and the kubelet use it (client-go ``tools/portforward/
portforward.go``, kubelet ``cri/streaming/portforward/httpstream.go``,
apimachinery ``util/httpstream/spdy/connection.go``)
  Per local connection kubectl opens two streams with headers ``streamtype``
  (``error`` then ``data``), ``port`` and ``requestid`` (Go's canonical
  ``Streamtype``/``Port``/``Requestid``, lower-cased on the wire), waiting up
  to 30 s for each SYN_REPLY. It FINs the error stream at once (it only
  reads it) and FINs the data stream when its local side ends; when the
  remote side ends it RSTs the data stream (CANCEL). The kubelet replies
  with an empty header block and no FIN, refuses a bad stream with
  RST_STREAM CANCEL, writes a failure as text on the error stream
  (``error forwarding port P to pod NAME, uid UID: ...``, which kubectl
  prints as ``an error occurred forwarding L -> P: ...`` and then closes the
  whole connection), and FINs both streams when forwarding ends. That
  policy lives in :mod:`.spdyforward`; this module only frames it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "HEADER_DICTIONARY", "DataFrame", "DataReceived", "Frame", "FrameDecoder",
    "FrameEncoder", "GoAway", "Headers", "Ping", "RstStream", "ServerSession", "SessionClosed",
    "Settings", "SpdyProtocolError", "StreamEnded", "StreamOpened", "StreamReset", "SynReply",
    "SynStream", "WindowUpdate",
]

VERSION = 3
#: The largest frame the 24-bit length allows (spdystream's ``MaxDataLength``).
MAX_FRAME_SIZE = (1 << 24) - 1
#: The largest decompressed header block accepted: kubectl's are ~60 bytes,
#: and the limit keeps a small compressed block from inflating without bound.
MAX_HEADER_BLOCK = 1 << 20
#: Outgoing data is cut into frames of at most this many bytes (measured with
#: kubectl in bench/streams_bench.py: faster than 1 MiB frames).
DATA_CHUNK = 32 * 1024

# Control frame types (2.6); 5 (NOOP) and 10 (CREDENTIAL) are gone in 3.1.
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = (
    1, 2, 3, 4, 6, 7, 8, 9)
FLAG_FIN = 0x01
FLAG_UNIDIRECTIONAL = 0x02
FLAG_CLEAR_SETTINGS = 0x01
#: RST_STREAM status codes (2.4.2).
(PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, UNSUPPORTED_VERSION, CANCEL,
 INTERNAL_ERROR, FLOW_CONTROL_ERROR, STREAM_IN_USE, STREAM_ALREADY_CLOSED) = range(1, 10)
FRAME_TOO_LARGE = 11
#: GOAWAY status codes (2.6.6).
GOAWAY_OK, GOAWAY_PROTOCOL_ERROR, GOAWAY_INTERNAL_ERROR = 0, 1, 2
#: SETTINGS id of the initial per-stream window (2.6.4), for readers of frames.
SETTINGS_INITIAL_WINDOW_SIZE = 7

_HEAD = struct.Struct(">II")
_U32 = struct.Struct(">I")


def _dictionary() -> bytes:
    """The SPDY/3 header dictionary (2.6.10.1), 1423 bytes: length-prefixed
    words, then status codes, phrases, dates and types as raw text. Checked
    byte for byte against spdystream's ``spdy/dictionary.go`` (SHA-256 in the
    tests): a single differing byte makes every header block undecodable."""
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
    return b"".join(_U32.pack(len(w)) + w.encode() for w in words) + tail.encode()


HEADER_DICTIONARY = _dictionary()

#: Header blocks: lower-case names to their values (a name may carry several).
HeaderMap = dict[str, list[str]]


class SpdyProtocolError(ValueError):
    """The peer sent something that is not SPDY/3.1; the session is over."""


# ---------------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class DataFrame:
    stream_id: int
    data: bytes
    fin: bool = False


@dataclass(frozen=True, slots=True)
class SynStream:
    stream_id: int
    associated_id: int = 0
    priority: int = 0  # 0 (highest) to 7
    headers: HeaderMap = field(default_factory=dict)
    fin: bool = False
    unidirectional: bool = False  # the recipient may not send on it


@dataclass(frozen=True, slots=True)
class SynReply:
    stream_id: int
    headers: HeaderMap = field(default_factory=dict)
    fin: bool = False


@dataclass(frozen=True, slots=True)
class RstStream:
    stream_id: int
    status: int


@dataclass(frozen=True, slots=True)
class Settings:
    """Ids to values; the per-entry PERSIST flags are dropped when reading
    (nobody here persists settings) and sent as 0."""

    entries: dict[int, int] = field(default_factory=dict)
    clear: bool = False


@dataclass(frozen=True, slots=True)
class Ping:
    ping_id: int


@dataclass(frozen=True, slots=True)
class GoAway:
    last_good_stream_id: int
    status: int = GOAWAY_OK


@dataclass(frozen=True, slots=True)
class Headers:
    stream_id: int
    headers: HeaderMap = field(default_factory=dict)
    fin: bool = False


@dataclass(frozen=True, slots=True)
class WindowUpdate:
    stream_id: int  # 0: the session window (3.1)
    delta: int


Frame = (DataFrame | SynStream | SynReply | RstStream | Settings | Ping | GoAway | Headers
         | WindowUpdate)


def encode_header_block(headers: Mapping[str, Sequence[str]]) -> bytes:
    """The uncompressed block: a count, then (name, NUL-joined values) pairs."""
    out = [_U32.pack(len(headers))]
    for name, values in headers.items():
        key = name.lower().encode()
        value = b"\x00".join(v.encode() for v in values)
        out.append(_U32.pack(len(key)) + key + _U32.pack(len(value)) + value)
    return b"".join(out)


def decode_header_block(raw: bytes) -> HeaderMap:
    """The inverse of :func:`encode_header_block`. Upper-case names are
    lower-cased and repeated names merged rather than refused (spdystream
    refuses them, but nothing is gained by ending a session over them)."""
    def take(pos: int, what: str) -> tuple[bytes, int]:
        if pos + 4 > len(raw):
            raise SpdyProtocolError(f"header block truncated in the length of {what}")
        (size,) = _U32.unpack_from(raw, pos)
        end = pos + 4 + size
        if end > len(raw):
            raise SpdyProtocolError(f"header block truncated in {what} ({size} bytes announced, "
                                    f"{len(raw) - pos - 4} there)")
        return raw[pos + 4:end], end

    if len(raw) < 4:
        raise SpdyProtocolError("header block truncated before its count")
    (count,) = _U32.unpack_from(raw, 0)
    pos = 4
    headers: HeaderMap = {}
    for i in range(count):
        name, pos = take(pos, f"header name {i}")
        if not name:
            raise SpdyProtocolError(f"header {i} has an empty name")
        key = name.decode(errors="replace").lower()
        value, pos = take(pos, f"the value of header {key!r}")
        headers.setdefault(key, []).extend(
            v.decode(errors="replace") for v in value.split(b"\x00"))
    if pos != len(raw):
        raise SpdyProtocolError(f"header block has {len(raw) - pos} bytes after its "
                                f"{count} headers")
    return headers


def _control(kind: int, flags: int, payload: bytes) -> bytes:
    if len(payload) > MAX_FRAME_SIZE:
        raise ValueError(f"a control frame holds at most {MAX_FRAME_SIZE} bytes")
    return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload


def _data_head(stream_id: int, size: int, fin: bool) -> bytes:
    return _HEAD.pack(stream_id & 0x7FFFFFFF, ((FLAG_FIN if fin else 0) << 24) | size)


class FrameEncoder:
    """Frames to bytes; owns the outbound header compression context."""

    def __init__(self) -> None:
        self._zlib = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15,
                                      zdict=HEADER_DICTIONARY)

    def _block(self, headers: Mapping[str, Sequence[str]]) -> bytes:
        # A sync flush ends each block on a byte boundary without ending the
        # stream: the peer's one decompressor carries on with the next block.
        raw = encode_header_block(headers)
        return self._zlib.compress(raw) + self._zlib.flush(zlib.Z_SYNC_FLUSH)

    def encode(self, frame: Frame) -> bytes:
        if isinstance(frame, DataFrame):
            if len(frame.data) > MAX_FRAME_SIZE:
                raise ValueError(f"a data frame holds at most {MAX_FRAME_SIZE} bytes")
            return _data_head(frame.stream_id, len(frame.data), frame.fin) + frame.data
        fin = FLAG_FIN if getattr(frame, "fin", False) else 0
        if isinstance(frame, SynStream):
            flags = fin | (FLAG_UNIDIRECTIONAL if frame.unidirectional else 0)
            head = struct.pack(">IIBB", frame.stream_id, frame.associated_id,
                               (frame.priority & 0x7) << 5, 0)  # slot: unused in 3.1
            return _control(SYN_STREAM, flags, head + self._block(frame.headers))
        if isinstance(frame, SynReply | Headers):
            kind = SYN_REPLY if isinstance(frame, SynReply) else HEADERS
            return _control(kind, fin, _U32.pack(frame.stream_id) + self._block(frame.headers))
        if isinstance(frame, RstStream):
            return _control(RST_STREAM, 0, _HEAD.pack(frame.stream_id, frame.status))
        if isinstance(frame, Settings):
            body = _U32.pack(len(frame.entries)) + b"".join(
                _HEAD.pack(key & 0xFFFFFF, value) for key, value in sorted(frame.entries.items()))
            return _control(SETTINGS, FLAG_CLEAR_SETTINGS if frame.clear else 0, body)
        if isinstance(frame, Ping):
            return _control(PING, 0, _U32.pack(frame.ping_id))
        if isinstance(frame, GoAway):
            return _control(GOAWAY, 0, _HEAD.pack(frame.last_good_stream_id, frame.status))
        return _control(WINDOW_UPDATE, 0, _HEAD.pack(frame.stream_id, frame.delta & 0x7FFFFFFF))


_NAMES = {SYN_STREAM: "SYN_STREAM", SYN_REPLY: "SYN_REPLY", RST_STREAM: "RST_STREAM",
          SETTINGS: "SETTINGS", PING: "PING", GOAWAY: "GOAWAY", HEADERS: "HEADERS",
          WINDOW_UPDATE: "WINDOW_UPDATE"}


class FrameDecoder:
    """Bytes to frames, fed incrementally; owns the inbound decompression context."""

    def __init__(self, *, max_frame_size: int = MAX_FRAME_SIZE,
                 max_header_block: int = MAX_HEADER_BLOCK) -> None:
        self.max_frame_size = max_frame_size
        self.max_header_block = max_header_block
        self._buffer = bytearray()
        self._zlib = zlib.decompressobj(zdict=HEADER_DICTIONARY)
        self._failed: SpdyProtocolError | None = None

    def feed(self, data: bytes) -> list[Frame]:
        """The frames ``data`` completes; a partial frame waits for more."""
        if self._failed is not None:
            raise SpdyProtocolError(f"the stream was already broken: {self._failed}")
        self._buffer += data
        frames: list[Frame] = []
        pos = 0
        try:
            while len(self._buffer) - pos >= 8:
                first, second = _HEAD.unpack_from(self._buffer, pos)
                length, flags = second & 0xFFFFFF, second >> 24
                control = bool(first & 0x80000000)
                if control and (first >> 16) & 0x7FFF != VERSION:
                    raise SpdyProtocolError(f"SPDY version {(first >> 16) & 0x7FFF} is not "
                                            f"served (only {VERSION})")
                if length > self.max_frame_size:  # refused before it is buffered
                    raise SpdyProtocolError(f"frame of {length} bytes is over the limit of "
                                            f"{self.max_frame_size}")
                if len(self._buffer) - pos < 8 + length:
                    break
                payload = bytes(self._buffer[pos + 8:pos + 8 + length])
                pos += 8 + length
                if not control:
                    if not first:
                        raise SpdyProtocolError("DATA frame on stream 0")
                    frames.append(DataFrame(first, payload, bool(flags & FLAG_FIN)))
                    continue
                frame = self._control(first & 0xFFFF, flags, payload)
                if frame is not None:
                    frames.append(frame)
        except SpdyProtocolError as exc:
            self._failed = exc
            raise
        finally:
            del self._buffer[:pos]
        return frames

    def _block(self, data: bytes, kind: str) -> HeaderMap:
        try:
            raw = self._zlib.decompress(data, self.max_header_block + 1)
        except zlib.error as exc:
            raise SpdyProtocolError(f"{kind} header block does not decompress with the SPDY/3 "
                                    f"dictionary: {exc}") from None
        if len(raw) > self.max_header_block:
            raise SpdyProtocolError(f"{kind} header block decompresses to more than "
                                    f"{self.max_header_block} bytes")
        if self._zlib.unused_data:
            raise SpdyProtocolError(f"{kind} header block ends the compressed stream")
        return decode_header_block(raw)

    def _control(self, kind: int, flags: int, payload: bytes) -> Frame | None:
        name = _NAMES.get(kind, str(kind))

        def need(size: int) -> None:
            if len(payload) < size:
                raise SpdyProtocolError(f"{name} frame too short: {len(payload)} bytes, at "
                                        f"least {size} needed")

        def stream(value: int) -> int:
            value &= 0x7FFFFFFF
            if not value:
                raise SpdyProtocolError(f"{name} frame on stream 0")
            return value

        fin = bool(flags & FLAG_FIN)
        if kind == SYN_STREAM:
            need(10)
            sid, assoc = _HEAD.unpack_from(payload, 0)
            return SynStream(stream(sid), assoc & 0x7FFFFFFF, payload[8] >> 5,
                             self._block(payload[10:], name), fin,
                             bool(flags & FLAG_UNIDIRECTIONAL))
        if kind in (SYN_REPLY, HEADERS):
            need(4)
            sid = stream(_U32.unpack_from(payload, 0)[0])
            headers = self._block(payload[4:], name)
            return SynReply(sid, headers, fin) if kind == SYN_REPLY else Headers(sid, headers, fin)
        if kind == RST_STREAM:
            need(8)
            sid, status = _HEAD.unpack_from(payload, 0)
            return RstStream(stream(sid), status)
        if kind == SETTINGS:
            need(4)
            (count,) = _U32.unpack_from(payload, 0)
            need(4 + 8 * count)
            entries = {}
            for i in range(count):
                key, value = _HEAD.unpack_from(payload, 4 + 8 * i)
                entries[key & 0xFFFFFF] = value  # the top byte holds the entry's flags
            return Settings(entries, bool(flags & FLAG_CLEAR_SETTINGS))
        if kind == PING:
            need(4)
            return Ping(_U32.unpack_from(payload, 0)[0])
        if kind == GOAWAY:
            need(8)
            last, status = _HEAD.unpack_from(payload, 0)
            return GoAway(last & 0x7FFFFFFF, status)
        if kind == WINDOW_UPDATE:
            need(8)
            sid, delta = _HEAD.unpack_from(payload, 0)
            return WindowUpdate(sid & 0x7FFFFFFF, delta & 0x7FFFFFFF)
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
    """The peer sent GOAWAY: it opens no more streams (open ones may finish)."""

    reason: str


Event = StreamOpened | DataReceived | StreamEnded | StreamReset | SessionClosed


class ServerSession:
    """The server side of one SPDY session (see the module docstring).

    A stream is open from the client's SYN_STREAM until both sides have sent
    FIN, or either has sent RST_STREAM. Data for a stream this side has
    finished, or that the peer reset, has no receiver any more: it is not
    framed (spdystream would drop it on arrival). The relay learns of the
    reset from its :class:`StreamReset` event and closes its pod
    connection, so nothing keeps being read for it."""

    def __init__(self, *, data_frame_size: int = DATA_CHUNK,
                 max_frame_size: int = MAX_FRAME_SIZE) -> None:
        if not 0 < data_frame_size <= MAX_FRAME_SIZE:
            raise ValueError(f"data_frame_size must be 1..{MAX_FRAME_SIZE}")
        self.data_frame_size = data_frame_size
        self._decoder = FrameDecoder(max_frame_size=max_frame_size)
        self._encoder = FrameEncoder()
        self._out: list[bytes] = []
        self._last_client_stream = 0
        self._open: set[int] = set()
        self._replied: set[int] = set()
        self._local_done: set[int] = set()   # we sent FIN (or may not send at all)
        self._remote_done: set[int] = set()  # the peer sent FIN
        self.goaway_received = False
        self.goaway_sent = False

    @property
    def closed(self) -> bool:
        """A GOAWAY went either way: no new streams."""
        return self.goaway_received or self.goaway_sent

    @property
    def open_streams(self) -> frozenset[int]:
        return frozenset(self._open)

    def _send(self, frame: Frame) -> None:
        self._out.append(self._encoder.encode(frame))

    # -------------------------------------------------------------- receiving

    def receive(self, data: bytes) -> list[Event]:
        """Events from ``data``; raises SpdyProtocolError for what is not SPDY."""
        events: list[Event] = []
        for frame in self._decoder.feed(data):
            if isinstance(frame, SynStream):
                self._syn_stream(frame, events)
            elif isinstance(frame, DataFrame):
                sid = frame.stream_id
                if sid not in self._open or sid in self._remote_done:
                    continue  # gone or finished: dropped without a word, as spdystream does
                if frame.data:
                    events.append(DataReceived(sid, frame.data))
                if frame.fin:
                    self._remote_finished(sid, events)
            elif isinstance(frame, Headers):
                # kubectl sends none; only their FIN means anything here.
                if frame.fin and frame.stream_id in self._open \
                        and frame.stream_id not in self._remote_done:
                    self._remote_finished(frame.stream_id, events)
            elif isinstance(frame, RstStream):
                if frame.stream_id in self._open:
                    self._drop(frame.stream_id)
                    events.append(StreamReset(frame.stream_id, frame.status))
            elif isinstance(frame, Ping):
                if frame.ping_id % 2 == 1:  # the client's (odd): echo; even ones answer ours
                    self._send(frame)
            elif isinstance(frame, GoAway) and not self.goaway_received:
                self.goaway_received = True
                events.append(SessionClosed(f"the client went away (GOAWAY status "
                                            f"{frame.status}, last stream "
                                            f"{frame.last_good_stream_id})"))
            # SETTINGS and WINDOW_UPDATE: spdystream implements no flow control,
            # so there is no window to keep (module docstring). SYN_REPLY: this
            # side opens no streams.
        return events

    def _syn_stream(self, frame: SynStream, events: list[Event]) -> None:
        sid = frame.stream_id
        if self.goaway_sent:
            return  # after our GOAWAY new streams are ignored (2.6.6; spdystream too)
        if sid % 2 == 0 or sid <= self._last_client_stream:
            # Client streams are odd and increasing (2.3.2); spdystream answers
            # a stream id below the next expected one with this RST_STREAM.
            self._send(RstStream(sid, PROTOCOL_ERROR))
            return
        self._last_client_stream = sid
        self._open.add(sid)
        events.append(StreamOpened(sid, frame.headers))
        if frame.unidirectional:
            self._local_done.add(sid)  # we, the recipient, may not send on it
        if frame.fin:
            self._remote_finished(sid, events)

    def _remote_finished(self, stream_id: int, events: list[Event]) -> None:
        self._remote_done.add(stream_id)
        events.append(StreamEnded(stream_id))
        self._forget_if_done(stream_id)

    def _forget_if_done(self, stream_id: int) -> None:
        if stream_id in self._local_done and stream_id in self._remote_done:
            self._drop(stream_id)

    def _drop(self, stream_id: int) -> None:
        for states in (self._open, self._replied, self._local_done, self._remote_done):
            states.discard(stream_id)

    # -------------------------------------------------------------- sending

    def reply(self, stream_id: int, headers: Mapping[str, Sequence[str]] | None = None, *,
              fin: bool = False) -> None:
        """SYN_REPLY accepting the stream; once per stream (like spdystream's
        ``SendReply``), and only while it is open."""
        if stream_id not in self._open or stream_id in self._replied:
            return
        self._replied.add(stream_id)
        self._send(SynReply(stream_id, {k: list(v) for k, v in (headers or {}).items()}, fin))
        if fin:
            self._local_done.add(stream_id)
            self._forget_if_done(stream_id)

    def send_data(self, stream_id: int, data: bytes, *, fin: bool = False) -> None:
        """Queue ``data`` in frames of at most ``data_frame_size`` bytes, all of
        it at once: spdystream has no window to wait for."""
        if stream_id not in self._open or stream_id in self._local_done:
            return
        view, size = memoryview(data), self.data_frame_size
        for start in range(0, len(view), size):
            chunk = view[start:start + size]
            last = start + size >= len(view)
            self._out.append(_data_head(stream_id, len(chunk), fin and last) + chunk)
        if fin and not view:
            self._out.append(_data_head(stream_id, 0, True))
        if fin:
            self._local_done.add(stream_id)
            self._forget_if_done(stream_id)

    def end_stream(self, stream_id: int) -> None:
        """An empty DATA frame with FIN (what spdystream's ``Stream.Close`` sends)."""
        self.send_data(stream_id, b"", fin=True)

    def reset(self, stream_id: int, status: int = CANCEL) -> None:
        """RST_STREAM (spdystream's ``Stream.Reset`` sends CANCEL); the stream is gone."""
        if stream_id in self._open:
            self._send(RstStream(stream_id, status))
            self._drop(stream_id)

    def go_away(self, status: int = GOAWAY_OK) -> None:
        """GOAWAY naming the last stream accepted; later SYN_STREAMs are ignored."""
        if not self.goaway_sent:
            self.goaway_sent = True
            self._send(GoAway(self._last_client_stream, status))

    def data_to_send(self) -> bytes:
        """Everything queued for the wire, in order, and forget it."""
        out, self._out = self._out, []
        return b"".join(out)

    def pending(self, stream_id: int) -> int:
        """Bytes held back by flow control: always 0, as spdystream grants no
        windows and expects none to be kept (module docstring)."""
        return 0
