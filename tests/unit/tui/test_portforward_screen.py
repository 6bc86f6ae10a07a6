"""The shift+f screen's port parsing (kubectl port-forward's PORT and LOCAL:REMOTE)."""

from __future__ import annotations

import pytest

from tui.screens import parse_ports


@pytest.mark.parametrize(("text", "ports"), [
    ("8080", (8080, 8080)), ("18080:80", (18080, 80)), (" 0:443 ", (0, 443))])
def test_accepted(text: str, ports: tuple[int, int]) -> None:
    assert parse_ports(text) == ports


@pytest.mark.parametrize(("text", "message"), [
    ("", 'is not PORT or LOCAL:REMOTE'), ("web", 'is not PORT or LOCAL:REMOTE'),
    ("8080:0", "pod port 0 is not between 1 and 65535"),
    ("70000:80", "local port 70000 is not between 0 and 65535")])
def test_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_ports(text)
