"""Identity and RBAC through the real kubectl, answered as a real cluster answers:
``auth can-i`` (also ``--as`` and ``--list``), ``auth whoami``, ``create token``,
a service account's own token, and 403s in Kubernetes' words.

The module's daemon (fake runtime) is shared; each test uses its own namespace
and service account so that bindings made by one do not answer for another."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator

import pytest

from .conftest import Daemon

pytestmark = pytest.mark.e2e


@pytest.fixture
def ns(daemon: Daemon, request: pytest.FixtureRequest) -> Iterator[str]:
    name = f"auth-{request.node.name.split('[')[0].replace('_', '-')[5:40].strip('-')}"
    daemon.kubectl("create", "namespace", name)
    # A real cluster makes the default service account asynchronously; the
    # test's own account is made here.
    daemon.kubectl("create", "serviceaccount", "bot", "-n", name)
    yield name
    daemon.kubectl("delete", "namespace", name, "--wait=false")


def can_i(daemon: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    return daemon.kubectl("auth", "can-i", *args, check=False)


def test_can_i_as_a_service_account_follows_its_bindings(daemon: Daemon, ns: str):
    sa = f"system:serviceaccount:{ns}:bot"
    result = can_i(daemon, "list", "pods", "-n", ns, f"--as={sa}")
    assert (result.returncode, result.stdout.strip()) == (1, "no"), result.stderr
    daemon.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view",
                   f"--serviceaccount={ns}:bot", "-n", ns)
    result = can_i(daemon, "list", "pods", "-n", ns, f"--as={sa}")
    assert (result.returncode, result.stdout.strip()) == (0, "yes"), result.stderr
    # view: reading, but neither writing nor secrets; and only in that namespace.
    for args in (("create", "pods"), ("get", "secrets"), ("delete", "deployments.apps")):
        result = can_i(daemon, *args, "-n", ns, f"--as={sa}")
        assert result.stdout.strip() == "no", (args, result.stderr)
    assert can_i(daemon, "list", "pods", "-n", "default", f"--as={sa}").stdout.strip() == "no"
    # The admin (system:masters) may do anything anywhere.
    assert can_i(daemon, "delete", "nodes").stdout.strip() == "yes"
    assert can_i(daemon, "*", "*", "--all-namespaces").stdout.strip() == "yes"


def test_can_i_list_prints_the_rules(daemon: Daemon, ns: str):
    sa = f"system:serviceaccount:{ns}:bot"
    daemon.kubectl("create", "role", "pod-reader", "--verb=get,list", "--resource=pods",
                   "-n", ns)
    daemon.kubectl("create", "rolebinding", "bot-reads", "--role=pod-reader",
                   f"--serviceaccount={ns}:bot", "-n", ns)
    result = daemon.kubectl("auth", "can-i", "--list", "-n", ns, f"--as={sa}")
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names",
                                "Verbs"]
    # Each row ends with its verbs, e.g. "[get list]".
    rows = {line.split()[0]: line[line.rindex("["):].strip() for line in lines[1:]}
    assert rows["pods"] == "[get list]"
    assert rows["selfsubjectaccessreviews.authorization.k8s.io"] == "[create]"
    assert "secrets" not in rows


def test_whoami(daemon: Daemon, ns: str):
    admin = daemon.kubectl("auth", "whoami", "-o", "json")
    assert '"system:masters"' in admin.stdout
    sa = f"system:serviceaccount:{ns}:bot"
    result = daemon.kubectl("auth", "whoami", f"--as={sa}")
    assert sa in result.stdout


def test_create_token_gives_a_working_credential(daemon: Daemon, ns: str):
    token = daemon.kubectl("create", "token", "bot", "-n", ns, "--duration=15m"
                           ).stdout.strip()
    assert token.count(".") == 2
    denied = daemon.kubectl("get", "pods", "-n", ns, f"--token={token}", check=False)
    assert denied.returncode == 1
    assert (f'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:'
            f'{ns}:bot" cannot list resource "pods" in API group "" in the namespace '
            f'"{ns}"') in denied.stderr
    daemon.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view",
                   f"--serviceaccount={ns}:bot", "-n", ns)
    allowed = daemon.kubectl("get", "pods", "-n", ns, f"--token={token}", check=False)
    assert allowed.returncode == 0, allowed.stderr
    short = daemon.kubectl("create", "token", "bot", "-n", ns, "--duration=5m", check=False)
    assert short.returncode == 1
    assert "may not specify a duration less than 10 minutes" in short.stderr
    who = daemon.kubectl("auth", "whoami", f"--token={token}")
    assert f"system:serviceaccount:{ns}:bot" in who.stdout


def test_aggregated_roles_grow_with_a_labelled_clusterrole(daemon: Daemon, ns: str):
    sa = f"system:serviceaccount:{ns}:bot"
    daemon.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view",
                   f"--serviceaccount={ns}:bot", "-n", ns)
    assert can_i(daemon, "list", "secrets", "-n", ns, f"--as={sa}").stdout.strip() == "no"
    name = f"{ns}-secrets-view"
    daemon.kubectl("create", "clusterrole", name, "--verb=list", "--resource=secrets")
    daemon.kubectl("label", "clusterrole", name,
                   "rbac.authorization.k8s.io/aggregate-to-view=true")
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if can_i(daemon, "list", "secrets", "-n", ns, f"--as={sa}"
                     ).stdout.strip() == "yes":
                break
            time.sleep(0.2)
        else:
            raise AssertionError("view did not aggregate the labelled ClusterRole")
    finally:
        daemon.kubectl("delete", "clusterrole", name)


def test_the_official_client_asks_the_same_questions(daemon: Daemon, ns: str):
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    api = config.new_client_from_config(config_file=str(daemon.kubeconfig))
    core = client.CoreV1Api(api)
    token = core.create_namespaced_service_account_token(
        "bot", ns, client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=900)))
    assert token.status.token.count(".") == 2 and token.spec.expiration_seconds == 900
    review = client.AuthorizationV1Api(api).create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(
                verb="list", resource="pods", namespace=ns))))
    assert review.status.allowed is True
    me = client.AuthenticationV1Api(api).create_self_subject_review(
        client.V1SelfSubjectReview())
    assert "system:masters" in me.status.user_info.groups
    # The service account's own token, through the same client.
    cfg = client.Configuration()
    cfg.host = api.configuration.host
    cfg.ssl_ca_cert = api.configuration.ssl_ca_cert
    cfg.api_key = {"authorization": f"Bearer {token.status.token}"}
    as_bot = client.CoreV1Api(client.ApiClient(cfg))
    with pytest.raises(ApiException) as denied:
        as_bot.list_namespaced_pod(ns)
    assert denied.value.status == 403
    message = json.loads(denied.value.body)["message"]
    assert f'User "system:serviceaccount:{ns}:bot" cannot list resource "pods"' in message
    daemon.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view",
                   f"--serviceaccount={ns}:bot", "-n", ns)
    assert as_bot.list_namespaced_pod(ns).items == []
