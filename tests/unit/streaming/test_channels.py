"""The ``*.channel.k8s.io`` framings, byte for byte (from wsstream's own
examples in k8s.io/apimachinery ``util/httpstream/wsstream/conn.go``)."""

from __future__ import annotations

import pytest

from minikube_py.apiserver.streaming import channels
from minikube_py.apiserver.streaming.remotecommand import _resizes, exit_status

CASES = [
    # protocol, channel, data, message on the wire
    ("channel.k8s.io", 0, b"foo\n", bytes([0, 102, 111, 111, 10])),
    ("channel.k8s.io", 1, b"\n", bytes([1, 10])),
    ("v4.channel.k8s.io", 3, b"{}", b"\x03{}"),
    ("v5.channel.k8s.io", 2, b"", b"\x02"),
    # wsstream's base64 example: "foo\n" on stdin is '0' + "Zm9vCg=="
    ("base64.channel.k8s.io", 0, b"foo\n", "0Zm9vCg=="),
    ("v4.base64.channel.k8s.io", 1, b"\n", "1Cg=="),
]


@pytest.mark.parametrize(("name", "channel", "data", "wire"), CASES)
def test_encode_and_decode(name: str, channel: int, data: bytes, wire: bytes | str) -> None:
    proto = channels.by_name(name)
    assert proto.encode(channel, data) == wire
    assert proto.decode(wire) == (channel, data)


def test_versions() -> None:
    assert channels.by_name("v5.channel.k8s.io").close_signal
    assert not channels.by_name("v4.channel.k8s.io").close_signal
    assert channels.by_name("v4.base64.channel.k8s.io").status_json
    assert not channels.by_name("channel.k8s.io").status_json
    assert channels.by_name("").name == "channel.k8s.io"  # a client offering none


def test_bad_base64_is_refused_with_its_channel() -> None:
    with pytest.raises(ValueError, match="channel 0: the message is not base64"):
        channels.by_name("base64.channel.k8s.io").decode("0***")
    assert channels.by_name("v4.channel.k8s.io").decode(b"") is None


def test_exit_status_is_what_client_go_reads() -> None:
    assert exit_status(0, ["true"]) == {"metadata": {}, "status": "Success"}
    failed = exit_status(3, ["sh", "-c", "exit 3"])
    assert failed["reason"] == "NonZeroExitCode"
    assert failed["details"]["causes"] == [{"reason": "ExitCode", "message": "3"}]
    assert failed["message"] == ("command terminated with non-zero exit code: error executing "
                                 "command [sh -c exit 3], exit code 3")


def test_resize_messages_may_come_split_and_back_to_back() -> None:
    buffer = bytearray(b'{"Width":80,"Height":24}{"Width":100,')
    assert _resizes(buffer) == [(80, 24)]
    assert buffer == bytearray(b'{"Width":100,')
    buffer.extend(b'"Height":30}\n')
    assert _resizes(buffer) == [(100, 30)]
    assert buffer == bytearray()
