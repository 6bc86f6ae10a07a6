"""Who may do what over the REST API: service-account tokens, RBAC, the review
resources, impersonation. An in-process server over a real store, with the
bootstrap policy in place, as the daemon runs it."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import NotFound
from minikube_py.apiserver.server import APIServer
from minikube_py.apiserver.tokens import TokenIssuer, issuer_for
from minikube_py.auth.aggregation import aggregated_rules
from minikube_py.auth.bootstrap import ensure_bootstrap_policy
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

ADMIN = "admin-token"
NS = "/api/v1/namespaces/default"
AUTHZ = "/apis/authorization.k8s.io/v1"
AUTHN = "/apis/authentication.k8s.io/v1"
BOT = "system:serviceaccount:default:bot"


class Api:
    def __init__(self, server: APIServer, registry: Registry) -> None:
        self.host, self.port = server.address
        self.registry = registry

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = ADMIN,
             headers: list[tuple[str, str]] = ()) -> tuple[int, Any]:  # type: ignore[assignment]
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        conn.putrequest(method, path)
        conn.putheader("Accept", "application/json")
        conn.putheader("Content-Type", "application/json")
        if token:
            conn.putheader("Authorization", f"Bearer {token}")
        for name, value in headers:
            conn.putheader(name, value)
        data = json.dumps(body).encode() if body is not None else b""
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        resp = conn.getresponse()
        payload = resp.read()
        conn.close()
        return resp.status, json.loads(payload) if payload else None

    def token(self, sa: str = "bot", **spec: Any) -> str:
        status, body = self.call("POST", f"{NS}/serviceaccounts/{sa}/token",
                                 {"apiVersion": "authentication.k8s.io/v1",
                                  "kind": "TokenRequest", "spec": spec})
        assert status == 201, body
        return str(body["status"]["token"])


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    store = Store(tmp_path / "s", history_size=20)
    registry = Registry(store)
    registry.ensure_system_namespaces()

    def get(resource: str, name: str) -> dict[str, Any] | None:
        try:
            return store.get(resource, None, name)
        except NotFound:
            return None

    ensure_bootstrap_policy(registry.create, get, registry.update)
    # What the aggregation controller does in the daemon: view into edit into admin.
    for name in ("view", "edit", "admin"):
        role = store.get("clusterroles", None, name)
        registry.update({**role, "rules": aggregated_rules(
            role, store.list("clusterroles").items)})
    issuer = TokenIssuer.load(tmp_path, issuer=issuer_for("cluster.local"))
    server = APIServer(registry, token=ADMIN, port=0, issuer=issuer)
    server.start()
    registry.create({"apiVersion": "v1", "kind": "ServiceAccount",
                     "metadata": {"name": "bot", "namespace": "default"}})
    yield Api(server, registry)
    server.stop()
    store.close()


def bind(api: Api, role: str, name: str = "bot-binding", *, kind: str = "ClusterRole") -> None:
    api.registry.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": "bot", "namespace": "default"}]})


def pod(name: str = "p", sa: str = "bot") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"serviceAccountName": sa,
                     "containers": [{"name": "c", "image": "busybox:1.36"}]}}


# ------------------------------------------------------------------ tokens and RBAC


def test_a_service_account_is_denied_in_kubernetes_words_until_bound_to_view(api: Api):
    token = api.token()
    status, body = api.call("GET", f"{NS}/pods", token=token)
    assert status == 403, body
    assert body["reason"] == "Forbidden"
    assert body["message"] == (
        f'pods is forbidden: User "{BOT}" cannot list resource "pods" in API group "" in '
        f'the namespace "default"')
    assert body["details"] == {"kind": "pods"}
    bind(api, "view")
    status, body = api.call("GET", f"{NS}/pods", token=token)
    assert status == 200 and body["kind"] == "PodList"
    # view reads, never writes, and never reads secrets.
    status, body = api.call("POST", f"{NS}/pods", pod(), token=token)
    assert status == 403 and 'cannot create resource "pods"' in body["message"]
    status, body = api.call("GET", f"{NS}/secrets/x", token=token)
    assert status == 403
    assert body["message"] == (f'secrets "x" is forbidden: User "{BOT}" cannot get resource '
                               f'"secrets" in API group "" in the namespace "default"')


def test_discovery_is_open_to_every_authenticated_user(api: Api):
    token = api.token()
    for path in ("/api", "/apis", "/api/v1", "/apis/apps/v1"):
        status, _ = api.call("GET", path, token=token)
        assert status == 200, path


@pytest.mark.parametrize("spec, code, message", [
    ({"expirationSeconds": 599}, 422, "spec.expirationSeconds: Invalid value: 599: may not "
                                      "specify a duration less than 10 minutes"),
    ({"expirationSeconds": 2**33}, 422, "may not specify a duration larger than 2^32 seconds"),
    ({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "ghost"}}, 404,
     'pods "ghost" not found'),
    ({"boundObjectRef": {"kind": "Deployment", "apiVersion": "apps/v1", "name": "d"}}, 400,
     "cannot bind token for serviceaccount 'bot' to object of type apps/v1, Kind=Deployment"),
])
def test_token_requests_are_checked(api: Api, spec: dict[str, Any], code: int, message: str):
    status, body = api.call("POST", f"{NS}/serviceaccounts/bot/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": spec})
    assert status == code, body
    assert message in body["message"]


def test_a_token_request_for_a_missing_service_account_is_not_found(api: Api):
    status, body = api.call("POST", f"{NS}/serviceaccounts/ghost/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {}})
    assert (status, body["message"]) == (404, 'serviceaccounts "ghost" not found')


def test_a_token_request_answers_the_defaulted_spec(api: Api):
    status, body = api.call("POST", f"{NS}/serviceaccounts/bot/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {}})
    assert status == 201
    assert body["kind"] == "TokenRequest" and body["metadata"]["name"] == "bot"
    assert body["spec"]["expirationSeconds"] == 3600
    assert body["spec"]["audiences"] == ["https://kubernetes.default.svc.cluster.local"]
    assert body["status"]["expirationTimestamp"].endswith("Z")


def test_a_pod_bound_token_dies_with_its_pod(api: Api):
    made = api.registry.create(pod("holder"))
    uid = made["metadata"]["uid"]
    token = api.token(boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "holder",
                                      "uid": uid})
    bind(api, "view")
    assert api.call("GET", f"{NS}/pods", token=token)[0] == 200
    status, review = api.call("POST", f"{AUTHN}/tokenreviews",
                              {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                               "spec": {"token": token}})
    assert status == 201 and review["status"]["authenticated"] is True
    extra = review["status"]["user"]["extra"]
    assert extra["authentication.kubernetes.io/pod-name"] == ["holder"]
    assert extra["authentication.kubernetes.io/pod-uid"] == [uid]
    api.registry.store.delete("pods", "default", "holder")
    status, body = api.call("GET", f"{NS}/pods", token=token)
    assert (status, body["reason"]) == (401, "Unauthorized")


def test_a_token_dies_with_its_service_account_even_if_the_name_comes_back(api: Api):
    token = api.token()
    bind(api, "view")
    api.registry.store.delete("serviceaccounts", "default", "bot")
    assert api.call("GET", f"{NS}/pods", token=token)[0] == 401
    api.registry.create({"apiVersion": "v1", "kind": "ServiceAccount",
                         "metadata": {"name": "bot", "namespace": "default"}})
    assert api.call("GET", f"{NS}/pods", token=token)[0] == 401  # another uid
    assert api.call("GET", f"{NS}/pods", token=api.token())[0] == 200


def test_a_forged_token_is_unauthorized(api: Api):
    head, claims, sig = api.token().split(".")
    forged = ".".join((head, claims, sig[:-2] + ("AA" if sig[-2:] != "AA" else "BB")))
    status, body = api.call("GET", f"{NS}/pods", token=forged)
    assert (status, body["message"]) == (401, "Unauthorized")


# ------------------------------------------------------------------ reviews


def test_token_review(api: Api):
    token = api.token()
    status, body = api.call("POST", f"{AUTHN}/tokenreviews",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                             "spec": {"token": token}})
    assert status == 201
    user = body["status"]["user"]
    assert body["status"]["authenticated"] is True
    assert user["username"] == BOT
    assert user["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default",
                              "system:authenticated"]
    assert body["status"]["audiences"] == ["https://kubernetes.default.svc.cluster.local"]
    status, body = api.call("POST", f"{AUTHN}/tokenreviews",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                             "spec": {"token": "a.b.c"}})
    assert status == 201 and body["status"]["authenticated"] is False
    assert body["status"]["error"]
    status, body = api.call("POST", f"{AUTHN}/tokenreviews",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                             "spec": {}})
    assert (status, body["message"]) == (400, "token is required for TokenReview in "
                                              "authentication")


def test_self_subject_review_is_whoami(api: Api):
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    status, admin = api.call("POST", f"{AUTHN}/selfsubjectreviews", body)
    assert status == 201
    assert "system:masters" in admin["status"]["userInfo"]["groups"]
    status, bot = api.call("POST", f"{AUTHN}/selfsubjectreviews", body, token=api.token())
    assert status == 201 and bot["status"]["userInfo"]["username"] == BOT


def ssar(verb: str, resource: str, namespace: str = "default", **more: str) -> dict[str, Any]:
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": verb, "resource": resource,
                                            "namespace": namespace, **more}}}


def test_self_subject_access_review_answers_for_the_caller(api: Api):
    token = api.token()
    assert api.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", ssar("list", "pods")
                    )[1]["status"]["allowed"] is True
    status, body = api.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", ssar("list", "pods"),
                            token=token)
    assert status == 201 and body["status"]["allowed"] is False
    bind(api, "view")
    body = api.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", ssar("list", "pods"),
                    token=token)[1]
    assert body["status"]["allowed"] is True and "RoleBinding" in body["status"]["reason"]
    body = api.call("POST", f"{AUTHZ}/selfsubjectaccessreviews", ssar("delete", "pods"),
                    token=token)[1]
    assert body["status"]["allowed"] is False


def test_subject_access_review_names_the_subject(api: Api):
    bind(api, "edit")
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
              "spec": {"user": BOT, "groups": ["system:serviceaccounts"],
                       "resourceAttributes": {"verb": "create", "group": "apps",
                                              "resource": "deployments",
                                              "namespace": "default"}}}
    status, body = api.call("POST", f"{AUTHZ}/subjectaccessreviews", review)
    assert status == 201 and body["status"]["allowed"] is True
    review["spec"]["resourceAttributes"]["namespace"] = "kube-system"
    assert api.call("POST", f"{AUTHZ}/subjectaccessreviews", review)[1]["status"][
        "allowed"] is False
    review["kind"] = "LocalSubjectAccessReview"
    status, body = api.call("POST", f"{AUTHZ}/namespaces/default/localsubjectaccessreviews",
                            review)
    assert status == 400 and "must match" in body["message"]
    status, body = api.call("POST", f"{AUTHZ}/subjectaccessreviews",
                            {**review, "kind": "SubjectAccessReview",
                             "spec": {"resourceAttributes": {"verb": "get"}}})
    assert status == 422
    assert "at least one of user or group must be specified" in body["message"]


def test_self_subject_rules_review_lists_the_callers_rules(api: Api):
    bind(api, "view")
    status, body = api.call("POST", f"{AUTHZ}/selfsubjectrulesreviews",
                            {"apiVersion": "authorization.k8s.io/v1",
                             "kind": "SelfSubjectRulesReview",
                             "spec": {"namespace": "default"}}, token=api.token())
    assert status == 201, body
    rules = body["status"]["resourceRules"]
    assert any("pods" in r.get("resources", []) and "list" in r["verbs"] for r in rules)
    assert not any("secrets" in r.get("resources", []) for r in rules)
    assert any("selfsubjectaccessreviews" in r.get("resources", []) for r in rules)
    assert body["status"]["incomplete"] is False


def test_reviews_are_create_only(api: Api):
    status, body = api.call("GET", f"{AUTHZ}/selfsubjectaccessreviews")
    assert (status, body["reason"]) == (405, "MethodNotAllowed")


# ------------------------------------------------------------------ impersonation


def test_the_admin_may_act_as_a_service_account(api: Api):
    status, body = api.call("GET", f"{NS}/pods", headers=[("Impersonate-User", BOT)])
    assert status == 403 and f'User "{BOT}" cannot list' in body["message"]
    bind(api, "view")
    assert api.call("GET", f"{NS}/pods", headers=[("Impersonate-User", BOT)])[0] == 200


def test_a_service_account_may_not_impersonate(api: Api):
    status, body = api.call("GET", f"{NS}/pods", token=api.token(),
                            headers=[("Impersonate-User", "minikube-py-admin")])
    assert status == 403
    assert body["message"] == (f'users "minikube-py-admin" is forbidden: User "{BOT}" cannot '
                               f'impersonate resource "users" in API group "" at the cluster '
                               f'scope')


# ------------------------------------------------------------------ discovery


def test_discovery_lists_the_review_groups_and_the_token_subresource(api: Api):
    groups = [g["name"] for g in api.call("GET", "/apis")[1]["groups"]]
    assert {"authentication.k8s.io", "authorization.k8s.io"} <= set(groups)
    authz = {r["name"]: r for r in api.call("GET", f"{AUTHZ}")[1]["resources"]}
    assert authz["localsubjectaccessreviews"]["namespaced"] is True
    assert authz["selfsubjectaccessreviews"]["verbs"] == ["create"]
    core = {r["name"]: r for r in api.call("GET", "/api/v1")[1]["resources"]}
    assert core["serviceaccounts/token"]["kind"] == "TokenRequest"
    assert core["serviceaccounts/token"]["group"] == "authentication.k8s.io"
