"""SPDY/3.1 frames from the spec's layouts, header blocks, and the server session
as kubectl's port-forward drives it."""

from __future__ import annotations

import hashlib
import struct
import zlib
from typing import Any

import pytest

from minikube_py.apiserver.streaming.spdy import (
    HEADER_DICTIONARY,
    DataFrame,
    DataReceived,
    FrameDecoder,
    FrameEncoder,
    GoAway,
    Ping,
    RstStream,
    ServerSession,
    SessionClosed,
    Settings,
    SpdyProtocolError,
    StreamEnded,
    StreamOpened,
    SynStream,
    WindowUpdate,
)

# Written out from the layouts of draft-mbelshe-httpbis-spdy-00 section 2.
KNOWN = [
    ("80030006" "00000004" "00000001", Ping(1)),
    ("80030003" "00000008" "00000003" "00000005", RstStream(3, 5)),
    ("80030009" "00000008" "00000001" "00010000", WindowUpdate(1, 0x10000)),
    ("80030004" "0000000c" "00000001" "00000007" "00010000", Settings({7: 0x10000})),
    ("80030007" "00000008" "00000005" "00000000", GoAway(5, 0)),
    ("00000001" "01000002" "6869", DataFrame(1, b"hi", fin=True)),
]


@pytest.mark.parametrize(("wire", "frame"), KNOWN)
def test_known_frames_decode_and_encode(wire: str, frame: object) -> None:
    raw = bytes.fromhex(wire)
    assert FrameDecoder().feed(raw) == [frame]
    assert FrameEncoder().encode(frame) == raw  # type: ignore[arg-type]


def test_the_dictionary_is_spdy3s() -> None:
    # 1423 bytes; this digest is of the dictionary kubectl 1.32's spdystream
    # inflated our header blocks with (tests/integration port-forward runs).
    assert len(HEADER_DICTIONARY) == 1423
    assert hashlib.sha256(HEADER_DICTIONARY).hexdigest().startswith("51d27341373f923f")


def _independent_block(headers: list[tuple[str, str]], comp: Any) -> bytes:
    raw = struct.pack(">I", len(headers)) + b"".join(
        struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        for k, v in headers)
    return bytes(comp.compress(raw) + comp.flush(zlib.Z_SYNC_FLUSH))


def _syn(stream_id: int, block: bytes, flags: int = 0) -> bytes:
    payload = struct.pack(">IIBB", stream_id, 0, 0, 0) + block
    return struct.pack(">HHI", 0x8003, 1, (flags << 24) | len(payload)) + payload


def test_header_blocks_share_one_context_and_join_values_with_nul() -> None:
    comp = zlib.compressobj(zdict=HEADER_DICTIONARY)
    first = _syn(1, _independent_block([("streamtype", "error"), ("port", "80"),
                                        ("requestid", "0")], comp))
    second = _syn(3, _independent_block([("streamtype", "data"), ("port", "80"),
                                         ("requestid", "0"), ("x", "a\x00b")], comp))
    decoder = FrameDecoder()
    frames = decoder.feed(first + second)
    assert frames == [
        SynStream(1, {"streamtype": ["error"], "port": ["80"], "requestid": ["0"]}),
        SynStream(3, {"streamtype": ["data"], "port": ["80"], "requestid": ["0"],
                      "x": ["a", "b"]}),
    ]
    # Byte by byte gives the same frames.
    again = FrameDecoder()
    comp2 = zlib.compressobj(zdict=HEADER_DICTIONARY)
    wire = _syn(1, _independent_block([("port", "80")], comp2)) + bytes.fromhex(KNOWN[0][0])
    out = [f for b in wire for f in again.feed(bytes((b,)))]
    assert out == [SynStream(1, {"port": ["80"]}), Ping(1)]


def test_our_blocks_round_trip() -> None:
    enc, dec = FrameEncoder(), FrameDecoder()
    frames = [SynStream(1, {"a": ["1"]}), SynStream(3, {"b": ["2", "3"]})]
    assert dec.feed(b"".join(enc.encode(f) for f in frames)) == frames


@pytest.mark.parametrize(("wire", "message"), [
    ("80020006" "00000004" "00000001", "SPDY version 2 is not served"),
    ("80030006" "00000002" "0000", "PING frame too short"),
    ("80030001" "0000000e" "00000001" "00000000" "0000" "deadbeef", "does not decompress"),
])
def test_malformed_input_is_named(wire: str, message: str) -> None:
    with pytest.raises(SpdyProtocolError, match=message):
        FrameDecoder().feed(bytes.fromhex(wire))


def test_server_session_as_kubectl_port_forward_uses_it() -> None:
    client = FrameEncoder()
    session = ServerSession()
    wire = client.encode(SynStream(1, {"streamtype": ["error"], "port": ["80"],
                                       "requestid": ["0"]}))
    wire += client.encode(SynStream(3, {"streamtype": ["data"], "port": ["80"],
                                        "requestid": ["0"]}))
    events = session.receive(wire)
    assert [type(e) for e in events] == [StreamOpened, StreamOpened]
    session.reply(1)
    session.reply(3)
    big = bytes(range(256)) * 4096  # 1 MiB: sent at once, no window to wait for
    session.send_data(3, big)
    session.end_stream(3)
    frames = FrameDecoder().feed(session.data_to_send())
    data = b"".join(f.data for f in frames if isinstance(f, DataFrame))
    assert data == big and isinstance(frames[-1], DataFrame) and frames[-1].fin
    assert session.pending(3) == 0
    # The client's data, its FIN, its ping (echoed), a bad stream id, GOAWAY.
    got = session.receive(client.encode(DataFrame(3, b"GET /")) +
                          client.encode(DataFrame(3, b"", fin=True)) + client.encode(Ping(7)) +
                          client.encode(SynStream(2, {})) + client.encode(GoAway(3)))
    assert got[:2] == [DataReceived(3, b"GET /"), StreamEnded(3)]
    assert isinstance(got[2], SessionClosed)
    answers = FrameDecoder().feed(session.data_to_send())
    assert answers == [Ping(7), RstStream(2, 1)]
