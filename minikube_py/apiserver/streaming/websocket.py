"""WebSocket connections for the streaming endpoints, framed by wsproto.

The HTTP server has already parsed the upgrade request; :func:`handshake`
checks it and picks the subprotocol the way kube-apiserver's ``wsstream``
does (the first one the client offers that the endpoint serves; none
offered means the endpoint's default), and gives the ``101`` answer's
headers. After that, :class:`WebSocket` runs wsproto's sans-I/O
:class:`~wsproto.connection.Connection` over a :class:`~.sockio.SharedSocket`.
Once open, :class:`WebSocket` is a
:class:`~minikube_py.client.wsconn.WebSocketConnection` (whole messages,
pings answered, one close frame, :data:`MAX_MESSAGE`), shared with the
dashboard's client side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wsproto.connection import Connection, ConnectionType
from wsproto.utilities import generate_accept_token

from ...api.errors import BadRequest
from ...client.sockio import SharedSocket
from ...client.wsconn import MAX_MESSAGE, TIMEOUT, WebSocketConnection

__all__ = ["MAX_MESSAGE", "TIMEOUT", "WebSocket", "handshake", "is_websocket"]

def is_websocket(headers: Mapping[str, str]) -> bool:
    """An ``Upgrade: websocket`` request (``Connection`` includes ``upgrade``)."""
    connection = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    return headers.get("upgrade", "").strip().lower() == "websocket" and "upgrade" in connection


def offered_protocols(headers: Mapping[str, str]) -> list[str]:
    raw = headers.get("sec-websocket-protocol", "")
    return [p.strip() for p in raw.split(",") if p.strip()]


def handshake(headers: Mapping[str, str], served: Sequence[str],
              default: str | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The subprotocol chosen and the ``101`` answer's headers.

    ``served`` is in the server's order of preference only for equal offers:
    as wsstream does, the client's order decides. With no subprotocol
    offered, ``default`` is used (the unnamed protocol of old clients), or
    the request is refused when there is none.
    """
    key = headers.get("sec-websocket-key", "").strip()
    if headers.get("sec-websocket-version", "").strip() != "13":
        raise BadRequest("unsupported WebSocket version: only 13 is served")
    if not key:
        raise BadRequest("the WebSocket handshake has no Sec-WebSocket-Key")
    offered = offered_protocols(headers)
    chosen: str | None = None
    if not offered:
        chosen = default
    else:
        chosen = next((p for p in offered if p in served), None)
    if chosen is None:
        raise BadRequest(f"requested protocol(s) are not supported: {offered or '[]'}; "
                         f"supports {list(served)}")
    answer = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
              ("Sec-WebSocket-Accept", generate_accept_token(key.encode()).decode())]
    if offered:
        answer.append(("Sec-WebSocket-Protocol", chosen))
    return chosen, answer


class WebSocket(WebSocketConnection):
    """The server side of one WebSocket (after :func:`handshake`'s 101)."""

    def __init__(self, sock: SharedSocket, protocol: str = "") -> None:
        super().__init__(sock, Connection(ConnectionType.SERVER), protocol)
