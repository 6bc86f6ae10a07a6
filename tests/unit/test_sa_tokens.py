"""Service-account tokens (apiserver/tokens.py): bound tokens with Kubernetes'
claims, signed and checked; what a forged, expired, foreign or tampered token gets."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest

from minikube_py.apiserver.tokens import (
    KEY_FILE,
    TokenError,
    TokenIssuer,
    issuer_for,
)
from tests.clock import FakeClock

ISSUER = issuer_for("cluster.local")


def payload(token: str) -> dict[str, object]:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def issuer(clock: FakeClock, key: bytes = b"k" * 32, **kw: object) -> TokenIssuer:
    return TokenIssuer(key, issuer=ISSUER, clock=clock, **kw)  # type: ignore[arg-type]


def test_a_bound_token_carries_kubernetes_claims_and_verifies():
    clock = FakeClock(start=1_800_000_000.0)
    tokens = issuer(clock)
    token, expires = tokens.issue(namespace="shop", service_account="reader",
                                  service_account_uid="sa-uid", expiration_seconds=3607,
                                  bound=("Pod", "web-0", "pod-uid"), node=("node-1", "n-uid"))
    assert expires == 1_800_000_000 + 3607
    claims = payload(token)
    assert claims["iss"] == "https://kubernetes.default.svc.cluster.local"
    assert claims["aud"] == ["https://kubernetes.default.svc.cluster.local"]
    assert claims["sub"] == "system:serviceaccount:shop:reader"
    assert claims["kubernetes.io"] == {
        "namespace": "shop", "serviceaccount": {"name": "reader", "uid": "sa-uid"},
        "pod": {"name": "web-0", "uid": "pod-uid"}, "node": {"name": "node-1", "uid": "n-uid"}}
    got = tokens.verify(token)
    assert (got.username, got.service_account_uid, got.bound, got.node) == (
        "system:serviceaccount:shop:reader", "sa-uid", ("Pod", "web-0", "pod-uid"),
        ("node-1", "n-uid"))


def test_expiry_with_kubernetes_leeway():
    clock = FakeClock(start=1_800_000_000.0)
    tokens = issuer(clock)
    token, _ = tokens.issue(namespace="ns", service_account="sa", service_account_uid="u",
                            expiration_seconds=600)
    clock.advance(600 + 59)
    assert tokens.verify(token).service_account == "sa"
    clock.advance(2)
    with pytest.raises(TokenError, match="the token has expired"):
        tokens.verify(token)


@pytest.mark.parametrize("tamper, reason", [
    (lambda t: t[:-4] + ("AAAA" if not t.endswith("AAAA") else "BBBB"),
     "the signature does not match"),
    (lambda t: "eyJhbGciOiJub25lIn0." + t.split(".", 1)[1], "unexpected signing algorithm"),
    (lambda t: "garbage", "not a JWT"),
])
def test_tampered_tokens_are_refused(tamper, reason):
    tokens = issuer(FakeClock(start=1_800_000_000.0))
    token, _ = tokens.issue(namespace="ns", service_account="sa", service_account_uid="u")
    with pytest.raises(TokenError, match=reason):
        tokens.verify(tamper(token))


def test_other_keys_audiences_and_issuers_are_refused():
    clock = FakeClock(start=1_800_000_000.0)
    ours = issuer(clock)
    theirs = issuer(clock, key=b"x" * 32)
    token, _ = theirs.issue(namespace="ns", service_account="sa", service_account_uid="u")
    with pytest.raises(TokenError, match="signature"):
        ours.verify(token)
    vault, _ = ours.issue(namespace="ns", service_account="sa", service_account_uid="u",
                          audiences=["vault"])
    with pytest.raises(TokenError, match="audiences are not accepted"):
        ours.verify(vault)
    foreign = TokenIssuer(b"k" * 32, issuer="https://other.example", clock=clock,
                          audiences=[ISSUER])
    other, _ = foreign.issue(namespace="ns", service_account="sa", service_account_uid="u")
    with pytest.raises(TokenError, match="issuer"):
        ours.verify(other)


def test_the_key_is_made_once_private_and_kept(tmp_path: Path):
    first = TokenIssuer.load(tmp_path, issuer=ISSUER)
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    token, _ = first.issue(namespace="ns", service_account="sa", service_account_uid="u")
    assert TokenIssuer.load(tmp_path, issuer=ISSUER).verify(token).service_account == "sa"
    (tmp_path / KEY_FILE).write_bytes(b"short")
    with pytest.raises(TokenError, match="is 32 bytes, not 5"):
        TokenIssuer.load(tmp_path, issuer=ISSUER)
