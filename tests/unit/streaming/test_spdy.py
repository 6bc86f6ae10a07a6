"""SPDY/3.1 framing: frames written out from the spec's layouts, header blocks
(shared zlib context, the SPDY/3 dictionary), malformed input, and the server
session as kubectl's port-forward (moby/spdystream) drives it."""

from __future__ import annotations

import hashlib
import struct
import zlib

import pytest

from minikube_py.apiserver.streaming.spdy import (
    HEADER_DICTIONARY,
    DataFrame,
    DataReceived,
    Frame,
    FrameDecoder,
    FrameEncoder,
    GoAway,
    Headers,
    Ping,
    RstStream,
    ServerSession,
    SessionClosed,
    Settings,
    SpdyProtocolError,
    StreamEnded,
    StreamOpened,
    StreamReset,
    SynReply,
    SynStream,
    WindowUpdate,
)

# ------------------------------------------------------------------ known bytes

# Written out by hand from draft-mbelshe-httpbis-spdy-00 section 2: control
# frames are 0x8003 (C bit, version 3), the type, flags(8)+length(24), fields.
KNOWN: list[tuple[str, Frame]] = [
    ("80030006 00000004 00000001", Ping(1)),
    ("80030006 00000004 7ffffffe", Ping(0x7FFFFFFE)),
    ("80030003 00000008 00000003 00000005", RstStream(3, 5)),  # CANCEL
    ("80030003 00000008 00000007 00000001", RstStream(7, 1)),  # PROTOCOL_ERROR
    ("80030009 00000008 00000001 00010000", WindowUpdate(1, 0x10000)),
    ("80030009 00000008 00000000 00000400", WindowUpdate(0, 1024)),  # session window (3.1)
    ("80030004 0000000c 00000001 00000007 00010000", Settings({7: 0x10000})),
    ("80030004 01000014 00000002 00000004 00000064 00000007 00010000",
     Settings({4: 100, 7: 0x10000}, clear=True)),
    ("80030007 00000008 00000005 00000000", GoAway(5, 0)),
    ("80030007 00000008 00000009 00000002", GoAway(9, 2)),
    # Data frames: C bit 0, stream id(31), flags(8)+length(24), data.
    ("00000001 01000002 6869", DataFrame(1, b"hi", fin=True)),
    ("00000003 01000000", DataFrame(3, b"", fin=True)),
    ("7fffffff 00000003 000102", DataFrame(0x7FFFFFFF, b"\x00\x01\x02")),
]


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


@pytest.mark.parametrize(("wire", "frame"), KNOWN, ids=[f"{type(f).__name__}-{i}"
                                                         for i, (_, f) in enumerate(KNOWN)])
def test_known_frames_decode_and_encode_back(wire: str, frame: Frame) -> None:
    raw = _hex(wire)
    assert FrameDecoder().feed(raw) == [frame]
    assert FrameEncoder().encode(frame) == raw


@pytest.mark.parametrize(("wire", "frame"), [
    # A SETTINGS entry's top byte holds its flags (PERSIST_VALUE here): not part of the id.
    ("80030004 0000000c 00000001 01000007 00008000", Settings({7: 0x8000})),
    # Unknown flags on a DATA frame are ignored.
    ("00000005 02000001 41", DataFrame(5, b"A")),
])
def test_decode_only(wire: str, frame: Frame) -> None:
    assert FrameDecoder().feed(_hex(wire)) == [frame]


def test_unknown_control_frames_are_skipped() -> None:
    # Type 5 (SPDY/2's NOOP) and a made-up type 0x42, each with a payload, then a PING.
    wire = _hex("80030005 00000002 abcd" "80030042 00000000" "80030006 00000004 00000003")
    assert FrameDecoder().feed(wire) == [Ping(3)]


# ------------------------------------------------------------------ dictionary


def test_the_dictionary_is_spdystreams_byte_for_byte() -> None:
    # SHA-256 of spdystream's spdy/dictionary.go headerDictionary (1423 bytes),
    # computed from the Go source's byte list.
    assert len(HEADER_DICTIONARY) == 1423
    assert hashlib.sha256(HEADER_DICTIONARY).hexdigest() == (
        "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02")
    assert HEADER_DICTIONARY.startswith(b"\x00\x00\x00\x07options\x00\x00\x00\x04head")
    assert HEADER_DICTIONARY.endswith(b"charset=iso-8859-1,utf-,*,enq=0.")


# ------------------------------------------------------------------ header blocks


def _raw_block(headers: list[tuple[str, str]]) -> bytes:
    """The uncompressed layout of 2.6.10, built here, not by the module."""
    return struct.pack(">I", len(headers)) + b"".join(
        struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        for k, v in headers)


def _compressor() -> zlib._Compress:
    # Level 9, as spdystream's zlib.NewWriterLevelDict(..., BestCompression, dict).
    return zlib.compressobj(9, zlib.DEFLATED, 15, zdict=HEADER_DICTIONARY)


def _flushed(comp: zlib._Compress, raw: bytes) -> bytes:
    return comp.compress(raw) + comp.flush(zlib.Z_SYNC_FLUSH)


def _syn(stream_id: int, block: bytes, flags: int = 0, priority: int = 0) -> bytes:
    payload = struct.pack(">IIBB", stream_id, 0, priority << 5, 0) + block
    return struct.pack(">HHI", 0x8003, 1, (flags << 24) | len(payload)) + payload


KUBECTL_ERROR = [("streamtype", "error"), ("port", "80"), ("requestid", "0")]
KUBECTL_DATA = [("streamtype", "data"), ("port", "80"), ("requestid", "0")]


def test_independent_blocks_in_one_zlib_context_decode() -> None:
    comp = _compressor()
    first = _syn(1, _flushed(comp, _raw_block(KUBECTL_ERROR)), priority=2)
    second = _syn(3, _flushed(comp, _raw_block([*KUBECTL_DATA, ("x-multi", "a\x00b\x00c")])),
                  flags=0x01)
    assert FrameDecoder().feed(first + second) == [
        SynStream(1, priority=2, headers={"streamtype": ["error"], "port": ["80"],
                                          "requestid": ["0"]}),
        SynStream(3, headers={"streamtype": ["data"], "port": ["80"], "requestid": ["0"],
                              "x-multi": ["a", "b", "c"]}, fin=True),
    ]
    # The second block leans on the first's context: alone it is not a header block.
    with pytest.raises(SpdyProtocolError, match="does not decompress"):
        FrameDecoder().feed(second)


def test_encoder_blocks_decode_with_plain_zlib_and_the_dictionary() -> None:
    enc = FrameEncoder()
    plain = zlib.decompressobj(zdict=HEADER_DICTIONARY)
    for headers in ({"streamtype": ["data"], "port": ["8080"]}, {"a": ["1", "2"]}, {}):
        wire = enc.encode(SynReply(5, headers))
        kind, flags_len, sid = struct.unpack_from(">III", wire, 0)
        assert kind == 0x80030002 and flags_len == len(wire) - 8 and sid == 5
        expected = _raw_block([(k, "\x00".join(v)) for k, v in headers.items()])
        assert plain.decompress(wire[12:]) == expected


def test_round_trip_of_many_blocks_on_one_session() -> None:
    enc, dec = FrameEncoder(), FrameDecoder()
    frames: list[Frame] = [
        SynStream(1, associated_id=0, priority=7, headers={"streamtype": ["error"]}),
        SynStream(3, headers={"streamtype": ["data"], "port": ["80"]}, unidirectional=True),
        SynReply(3, {}),
        Headers(3, {"x-a": ["1", "2", ""], "x-b": [""]}, fin=True),
        SynReply(5, {"status": ["200 OK"], "version": ["HTTP/1.1"]}, fin=True),
    ]
    assert dec.feed(b"".join(enc.encode(f) for f in frames)) == frames


def test_upper_case_names_are_lower_cased_and_repeats_merged() -> None:
    wire = _syn(1, _flushed(_compressor(), _raw_block([("Port", "80"), ("port", "81")])))
    assert FrameDecoder().feed(wire) == [SynStream(1, headers={"port": ["80", "81"]})]
    assert _raw_block([("port", "1")]) in zlib.decompressobj(zdict=HEADER_DICTIONARY).decompress(
        FrameEncoder().encode(SynReply(1, {"Port": ["1"]}))[12:])


# ------------------------------------------------------------------ incremental


def test_byte_by_byte_gives_the_same_frames() -> None:
    comp = _compressor()
    wire = (_syn(1, _flushed(comp, _raw_block(KUBECTL_ERROR))) + _hex(KNOWN[0][0])
            + _syn(3, _flushed(comp, _raw_block(KUBECTL_DATA))) + _hex(KNOWN[10][0])
            + _hex(KNOWN[6][0]))
    whole = FrameDecoder().feed(wire)
    assert len(whole) == 5
    one = FrameDecoder()
    assert [f for b in wire for f in one.feed(bytes((b,)))] == whole
    # And in uneven pieces, with nothing until a frame is complete.
    two = FrameDecoder()
    assert two.feed(wire[:7]) == []
    assert two.feed(wire[7:40]) + two.feed(wire[40:]) == whole


# ------------------------------------------------------------------ malformed


def _block_frame(raw_block: bytes) -> str:
    return _syn(1, _flushed(_compressor(), raw_block)).hex()


@pytest.mark.parametrize(("wire", "message"), [
    ("80020006 00000004 00000001", "SPDY version 2 is not served"),
    ("80040001 00000000", "SPDY version 4 is not served"),
    ("80030006 00000002 0000", "PING frame too short: 2 bytes"),
    ("80030003 00000004 00000001", "RST_STREAM frame too short"),
    ("80030007 00000004 00000001", "GOAWAY frame too short"),
    ("80030009 00000004 00000001", "WINDOW_UPDATE frame too short"),
    ("80030004 0000000c 00000002 00000007 00010000", "SETTINGS frame too short"),
    ("80030001 00000008 00000001 00000000", "SYN_STREAM frame too short"),
    ("80030001 0000000e 00000001 00000000 0000 deadbeef", "does not decompress"),
    ("80030002 00000008 00000001 deadbeef", "SYN_REPLY header block does not decompress"),
    ("00000000 00000001 00", "DATA frame on stream 0"),
    ("80030003 00000008 00000000 00000005", "RST_STREAM frame on stream 0"),
    (_block_frame(struct.pack(">I", 2) + _raw_block([("a", "b")])[4:]),
     "truncated in the length of header name 1"),
    (_block_frame(_raw_block([("port", "80")])[:-1]), "truncated in the value of header 'port'"),
    (_block_frame(_raw_block([("", "x")])), "header 0 has an empty name"),
    (_block_frame(_raw_block([("a", "b")]) + b"xyz"), "3 bytes after its 1 headers"),
    (_block_frame(b"\x00\x00"), "truncated before its count"),
])
def test_malformed_input_is_named(wire: str, message: str) -> None:
    with pytest.raises(SpdyProtocolError, match=message):
        FrameDecoder().feed(_hex(wire))


def test_oversized_frames_are_refused_from_their_header() -> None:
    decoder = FrameDecoder(max_frame_size=1024)
    # Only the 8-byte header of a 1 MiB frame: refused before the rest arrives.
    with pytest.raises(SpdyProtocolError, match="frame of 1048576 bytes is over the limit of 1024"):
        decoder.feed(_hex("00000001 00100000"))
    # A broken decoder stays broken (its zlib context is lost).
    with pytest.raises(SpdyProtocolError, match="already broken"):
        decoder.feed(_hex(KNOWN[0][0]))


def test_a_header_block_that_inflates_too_far_is_refused() -> None:
    bomb = _block_frame(_raw_block([("x", "a" * 100_000)]))
    assert len(bytes.fromhex(bomb)) < 1000
    with pytest.raises(SpdyProtocolError, match="decompresses to more than 4096 bytes"):
        FrameDecoder(max_header_block=4096).feed(_hex(bomb))


# ------------------------------------------------------------------ session


class Client:
    """kubectl's side, with this module's encoder (checked above against the spec)."""

    def __init__(self) -> None:
        self.enc = FrameEncoder()
        self.dec = FrameDecoder()

    def __call__(self, *frames: Frame) -> bytes:
        return b"".join(self.enc.encode(f) for f in frames)

    def read(self, session: ServerSession) -> list[Frame]:
        return self.dec.feed(session.data_to_send())


def _pair(client: Client, request_id: str, error_id: int) -> bytes:
    """The two streams kubectl opens per local connection (portforward.go)."""
    def headers(kind: str) -> dict[str, list[str]]:
        return {"streamtype": [kind], "port": ["80"], "requestid": [request_id]}
    return client(SynStream(error_id, headers=headers("error")),
                  SynStream(error_id + 2, headers=headers("data")))


def test_a_kubectl_stream_pair_is_opened_replied_and_finished() -> None:
    client, session = Client(), ServerSession()
    events = session.receive(_pair(client, "0", 1))
    assert events == [
        StreamOpened(1, {"streamtype": ["error"], "port": ["80"], "requestid": ["0"]}),
        StreamOpened(3, {"streamtype": ["data"], "port": ["80"], "requestid": ["0"]}),
    ]
    assert session.data_to_send() == b""  # nothing until the server decides
    session.reply(1)
    session.reply(3)
    session.reply(3)  # once only, like spdystream's SendReply
    assert client.read(session) == [SynReply(1, {}), SynReply(3, {})]

    # kubectl FINs the error stream at once; it sends a request on the data stream.
    got = session.receive(client(DataFrame(1, b"", fin=True), DataFrame(3, b"GET / HTTP/1.0")))
    assert got == [StreamEnded(1), DataReceived(3, b"GET / HTTP/1.0")]

    session.send_data(3, b"HTTP/1.0 200 OK\r\n\r\nhello")
    session.end_stream(3)
    session.end_stream(1)
    assert client.read(session) == [DataFrame(3, b"HTTP/1.0 200 OK\r\n\r\nhello"),
                                    DataFrame(3, b"", fin=True), DataFrame(1, b"", fin=True)]
    assert session.open_streams == {3}  # the error stream is closed both ways
    # kubectl's local side ends: FIN; then it RSTs the data stream (CANCEL).
    assert session.receive(client(DataFrame(3, b"", fin=True))) == [StreamEnded(3)]
    assert session.open_streams == frozenset()
    assert session.receive(client(RstStream(3, 5))) == []  # already gone


def test_the_kubelets_error_report_and_a_reset() -> None:
    client, session = Client(), ServerSession()
    session.receive(_pair(client, "7", 5))
    session.reply(5)
    session.reply(7)
    message = b"error forwarding port 80 to pod web_default, uid u1: connection refused"
    session.send_data(5, message, fin=True)
    assert client.read(session)[-1] == DataFrame(5, message, fin=True)
    assert session.receive(client(RstStream(7, 5))) == [StreamReset(7, 5)]
    session.send_data(7, b"late")  # after a reset: dropped, not an error
    session.reset(7)
    assert session.data_to_send() == b""
    session.reset(5, 3)  # ours: REFUSED_STREAM
    assert client.read(session) == [RstStream(5, 3)]
    assert session.open_streams == frozenset()


def test_a_large_send_is_not_held_back_and_no_window_updates_are_sent() -> None:
    # spdystream keeps no windows: it never sends WINDOW_UPDATE, so a server
    # waiting for one after 64 KiB would stall for good.
    client, session = Client(), ServerSession()
    session.receive(_pair(client, "0", 1))
    session.reply(3)
    client.read(session)
    big = bytes(range(256)) * 4096  # 1 MiB
    session.send_data(3, big, fin=True)
    assert session.pending(3) == 0
    frames = client.read(session)
    assert all(isinstance(f, DataFrame) and f.stream_id == 3 for f in frames)
    data = [f for f in frames if isinstance(f, DataFrame)]
    assert b"".join(f.data for f in data) == big
    assert len(data) == 32 and max(len(f.data) for f in data) == 32 * 1024
    assert [f.fin for f in data] == [False] * 31 + [True]
    # 1 MiB in from the client: nothing goes back (no WINDOW_UPDATE), and the
    # peer's own SETTINGS / WINDOW_UPDATE change nothing.
    got = session.receive(client(DataFrame(3, big[:500_000]), DataFrame(3, big[500_000:]),
                                 Settings({7: 1024}), WindowUpdate(3, 10), WindowUpdate(0, 10)))
    assert [len(e.data) for e in got if isinstance(e, DataReceived)] == [500_000, 548_576]
    assert session.data_to_send() == b""


def test_frame_size_is_configurable() -> None:
    client, session = Client(), ServerSession(data_frame_size=10)
    session.receive(_pair(client, "0", 1))
    session.send_data(3, b"x" * 25)
    assert [len(f.data) for f in client.read(session) if isinstance(f, DataFrame)] == [10, 10, 5]


def test_client_pings_are_echoed_and_answers_to_ours_are_not() -> None:
    client, session = Client(), ServerSession()
    assert session.receive(client(Ping(1), Ping(2), Ping(3))) == []
    assert client.read(session) == [Ping(1), Ping(3)]


@pytest.mark.parametrize(("stream_id", "why"), [(4, "even"), (3, "repeated"), (1, "lower")])
def test_bad_stream_ids_are_refused_with_protocol_error(stream_id: int, why: str) -> None:
    client, session = Client(), ServerSession()
    session.receive(client(SynStream(3, headers={"port": ["80"]})))
    assert session.receive(client(SynStream(stream_id, headers={"port": ["81"]}))) == []
    assert client.read(session) == [RstStream(stream_id, 1)]
    # The refused block still went through the shared zlib context: the next is fine.
    assert session.receive(client(SynStream(5, headers={"port": ["82"]}))) == [
        StreamOpened(5, {"port": ["82"]})]


def test_syn_stream_flags() -> None:
    client, session = Client(), ServerSession()
    events = session.receive(client(SynStream(1, fin=True), SynStream(3, unidirectional=True)))
    assert events == [StreamOpened(1, {}), StreamEnded(1), StreamOpened(3, {})]
    session.send_data(3, b"not allowed")  # unidirectional: the recipient may not send
    assert session.data_to_send() == b""
    session.send_data(1, b"ok", fin=True)
    assert client.read(session) == [DataFrame(1, b"ok", fin=True)]
    assert session.open_streams == {3}


def test_data_for_unknown_or_finished_streams_is_dropped() -> None:
    client, session = Client(), ServerSession()
    session.receive(client(SynStream(1), DataFrame(1, b"", fin=True)))
    assert session.receive(client(DataFrame(1, b"more"), DataFrame(9, b"who"))) == []
    assert session.data_to_send() == b""


def test_goaway_either_way() -> None:
    client, session = Client(), ServerSession()
    session.receive(_pair(client, "0", 1))
    got = session.receive(client(GoAway(3, 0)))
    assert got == [SessionClosed("the client went away (GOAWAY status 0, last stream 3)")]
    assert session.closed and session.receive(client(GoAway(3, 0))) == []
    # Open streams may still finish after the client's GOAWAY.
    assert session.receive(client(DataFrame(3, b"bye"))) == [DataReceived(3, b"bye")]

    client, other = Client(), ServerSession()
    other.receive(_pair(client, "0", 1))
    other.go_away()
    other.go_away()
    assert client.read(other) == [GoAway(3, 0)]
    # After our GOAWAY, new streams are ignored, without a reply.
    assert other.receive(client(SynStream(5, headers={"port": ["80"]}))) == []
    assert other.data_to_send() == b""


def test_a_broken_session_stays_broken() -> None:
    session = ServerSession()
    with pytest.raises(SpdyProtocolError, match="version 2"):
        session.receive(_hex("80020001 00000000"))
    with pytest.raises(ValueError):  # SpdyProtocolError is a ValueError
        session.receive(b"")
