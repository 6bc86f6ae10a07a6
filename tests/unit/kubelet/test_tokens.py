"""Service-account tokens for projected volumes (kubelet/tokens.py): the cache
refreshes at 80 % of a token's life or after 24 hours, keeps a valid token
when a refresh fails, forgets a pod's tokens; ``ApiTokenSource`` sends the
kubelet's TokenRequest (to a fake client, then to a real API server over
HTTP); the in-process client refuses the subresource it cannot serve."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Conflict, MethodNotAllowed
from minikube_py.api.timefmt import parse_time
from minikube_py.apiserver.server import APIServer
from minikube_py.apiserver.tokens import TokenIssuer, issuer_for
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import Endpoint
from minikube_py.client.local import LocalClient
from minikube_py.kubelet.tokens import ApiTokenSource, TokenCache
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock

POD = {"metadata": {"name": "web", "namespace": "prod", "uid": "u-1"},
       "spec": {"serviceAccountName": "builder"}}


class Source:
    """A TokenSource whose tokens live ``life`` seconds (or what it is told)."""

    def __init__(self, clock: FakeClock, life: float | None = None) -> None:
        self.clock = clock
        self.life = life
        self.calls = 0
        self.fail: Exception | None = None

    def token(self, pod: Mapping[str, Any], audience: str,
              expiration_seconds: int) -> tuple[str, float]:
        if self.fail is not None:
            raise self.fail
        self.calls += 1
        life = self.life if self.life is not None else expiration_seconds
        return f"t{self.calls}", self.clock() + life


def test_a_token_is_refreshed_once_80_percent_of_its_life_passed():
    clock = FakeClock()
    source = Source(clock)
    cache = TokenCache(source, clock=clock)
    assert cache.get(POD, "", 3600) == "t1"
    clock.advance(0.8 * 3600 - 1)
    assert cache.get(POD, "", 3600) == "t1"
    clock.advance(1)
    assert cache.get(POD, "", 3600) == "t2"  # refreshed before it expires
    clock.advance(0.8 * 3600 - 1)
    assert cache.get(POD, "", 3600) == "t2"


def test_a_long_token_is_refreshed_after_24_hours():
    clock = FakeClock()
    cache = TokenCache(Source(clock), clock=clock)
    week = 7 * 24 * 3600
    assert cache.get(POD, "", week) == "t1"
    clock.advance(24 * 3600 - 1)
    assert cache.get(POD, "", week) == "t1"
    clock.advance(1)
    assert cache.get(POD, "", week) == "t2"


def test_the_servers_expiry_counts_not_the_asked_one():
    clock = FakeClock()
    cache = TokenCache(Source(clock, life=1000), clock=clock)
    cache.get(POD, "", 3600)
    clock.advance(800)
    assert cache.get(POD, "", 3600) == "t2"


def test_tokens_are_kept_per_pod_audience_and_life_and_forgotten_with_the_pod():
    clock = FakeClock()
    source = Source(clock)
    cache = TokenCache(source, clock=clock)
    other = {**POD, "metadata": {**POD["metadata"], "uid": "u-2"}}
    got = [cache.get(POD, "", 3600), cache.get(POD, "vault", 3600),
           cache.get(POD, "", 7200), cache.get(other, "", 3600), cache.get(POD, "", 3600)]
    assert got == ["t1", "t2", "t3", "t4", "t1"]
    cache.forget("u-1")
    assert cache.get(POD, "", 3600) == "t5"
    assert cache.get(other, "", 3600) == "t4"


def test_a_failed_refresh_keeps_the_token_until_it_expires():
    clock = FakeClock()
    source = Source(clock)
    cache = TokenCache(source, clock=clock)
    cache.get(POD, "", 3600)
    source.fail = RuntimeError("the API server is away")
    clock.advance(3000)  # due for a refresh, still valid
    assert cache.get(POD, "", 3600) == "t1"
    clock.advance(600)  # expired
    with pytest.raises(RuntimeError, match="the API server is away"):
        cache.get(POD, "", 3600)
    source.fail = None
    assert cache.get(POD, "", 3600) == "t2"


def test_without_a_source_there_is_no_token():
    with pytest.raises(RuntimeError, match=r"^failed to fetch token: this kubelet has no "):
        TokenCache(None, clock=FakeClock()).get(POD, "", 3600)


class FakeClient:
    def __init__(self) -> None:
        self.posted: list[tuple[Any, ...]] = []

    def create_subresource(self, resource: str, namespace: str | None, name: str,
                           subresource: str, body: Mapping[str, Any]) -> dict[str, Any]:
        self.posted.append((resource, namespace, name, subresource, dict(body)))
        return {**body, "status": {"token": "jwt",
                                   "expirationTimestamp": "2026-11-26T19:00:00Z"}}


@pytest.mark.parametrize(("audience", "audiences"), [("", []), ("vault", ["vault"])])
def test_api_token_source_sends_the_kubelets_token_request(audience: str,
                                                           audiences: list[str]):
    client = FakeClient()
    token, expires = ApiTokenSource(client).token(POD, audience, 3607)  # type: ignore[arg-type]
    assert (token, expires) == ("jwt", parse_time("2026-11-26T19:00:00Z"))
    [(resource, namespace, name, subresource, body)] = client.posted
    assert (resource, namespace, name, subresource) == ("serviceaccounts", "prod", "builder",
                                                        "token")
    assert body["apiVersion"] == "authentication.k8s.io/v1"
    assert body["kind"] == "TokenRequest"
    assert body["spec"] == {"audiences": audiences, "expirationSeconds": 3607,
                            "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                               "name": "web", "uid": "u-1"}}


def test_an_answer_without_a_token_is_an_error():
    class Empty(FakeClient):
        def create_subresource(self, *args: Any) -> dict[str, Any]:
            return {"status": {}}

    with pytest.raises(ValueError, match="without a token"):
        ApiTokenSource(Empty()).token(POD, "", 3600)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[APIServer, Registry]]:
    store = Store(tmp_path / "s")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    issuer = TokenIssuer.load(tmp_path, issuer=issuer_for("cluster.local"))
    api = APIServer(registry, token="admin", port=0, issuer=issuer)
    api.start()
    yield api, registry
    api.stop()
    store.close()


def test_api_token_source_against_the_api_server(server: tuple[APIServer, Registry]):
    api, registry = server
    registry.create({"apiVersion": "v1", "kind": "ServiceAccount",
                     "metadata": {"name": "builder", "namespace": "default"}})
    pod = registry.create({"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": "web", "namespace": "default"},
                           "spec": {"serviceAccountName": "builder",
                                    "containers": [{"name": "c", "image": "busybox"}]}})
    host, port = api.address
    client = HTTPClient(Endpoint(server=f"http://{host}:{port}", token="admin"))
    token, expires = ApiTokenSource(client).token(pod, "", 3600)
    assert token.count(".") == 2  # a JWT
    created = parse_time(pod["metadata"]["creationTimestamp"])
    assert created is not None and 3500 < expires - created < 3700
    gone = {**pod, "metadata": {**pod["metadata"], "uid": "another"}}
    with pytest.raises(Conflict, match=r"the UID in the bound object reference \(another\)"):
        ApiTokenSource(client).token(gone, "", 3600)


def test_the_in_process_client_cannot_issue_tokens(tmp_path: Path):
    store = Store(tmp_path / "s")
    try:
        client = LocalClient(Registry(store))
        with pytest.raises(MethodNotAllowed):
            ApiTokenSource(client).token(POD, "", 3600)
    finally:
        store.close()
