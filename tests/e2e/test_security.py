"""Security defaults (issue 8, "Security"), a test for each promise:

* the API listens on loopback unless told otherwise;
* the bearer token is compared in constant time (``hmac.compare_digest``),
  and any wrong token — same length or not — is a 401 Status;
* the state directory is 0700 and every credential in it (kubeconfig,
  token, private keys) 0600;
* no shell is ever invoked with user data (an AST scan of ``minikube_py``);
* privileged containers, hostPath volumes, hostNetwork/hostPID/hostIPC are
  refused with a clear 403 by a default daemon, and privileged/hostPath are
  accepted by one started with ``--allow-privileged`` / ``--allow-host-paths``.
"""

from __future__ import annotations

import ast
import hmac
import inspect
import ipaddress
import json
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import pytest

import minikube_py
from minikube_py.apiserver.authn import Authenticator
from minikube_py.apiserver.server import APIServer
from minikube_py.cli.main import build_parser
from minikube_py.client import kubeconfig
from minikube_py.controlplane import Options
from minikube_py.controlplane.arguments import options_from_args
from minikube_py.store.store import Store

from .conftest import Daemon, start_daemon, stop_daemon
from .rawapi import RawApi, check_status

pytestmark = pytest.mark.e2e

PACKAGE = Path(minikube_py.__file__).resolve().parent
PODS = "/api/v1/namespaces/default/pods"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A default daemon, except for the port: ``--listen 0`` gives only a port,
    so the host it binds is the default one."""
    d = start_daemon(tmp_path_factory.mktemp("secure") / "state", "--nodes", "1",
                     "--listen", "0")
    try:
        yield d
    finally:
        assert stop_daemon(d) == 0


@pytest.fixture(scope="module")
def api(daemon: Daemon) -> Iterator[RawApi]:
    client = RawApi(daemon.kubeconfig)
    yield client
    client.close()


# ------------------------------------------------------------------ loopback


def test_default_listen_address_is_loopback() -> None:
    args = build_parser().parse_args(["daemon"])
    assert options_from_args(args).host == "127.0.0.1"
    assert Options(state_dir=Path("x")).host == "127.0.0.1"
    assert inspect.signature(APIServer).parameters["host"].default == "127.0.0.1"
    for listen in ("0", ":0", "7443"):  # a port alone keeps the loopback host
        args = build_parser().parse_args(["daemon", "--listen", listen])
        assert options_from_args(args).host == "127.0.0.1"


def test_daemon_listens_on_loopback_only(daemon: Daemon) -> None:
    server = urlsplit(kubeconfig.load(daemon.kubeconfig).server)
    assert server.hostname == "127.0.0.1"
    listening = [c.laddr for c in psutil.Process(daemon.proc.pid).net_connections("inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening, "the daemon listens on no socket"
    for addr in listening:
        assert ipaddress.ip_address(addr.ip).is_loopback, f"listening on {addr.ip}:{addr.port}"
    # And from this host's other addresses, nothing answers on the API port.
    others = [a.address for nics in psutil.net_if_addrs().values() for a in nics
              if a.family == socket.AF_INET and not ipaddress.ip_address(a.address).is_loopback]
    for address in others:
        with pytest.raises(OSError), socket.create_connection((address, server.port),
                                                              timeout=2):
            pass


# ------------------------------------------------------------------ token


def test_wrong_tokens_are_refused_with_401(api: RawApi) -> None:
    good = api.token
    wrong = [
        "x" * len(good),                      # same length
        good[:-1] + chr(ord(good[-1]) ^ 1),   # one bit off, same length
        good[:-1],                            # a prefix
        good + "x",                           # longer
        good.upper() if good.upper() != good else good.lower(),
        "é" * len(good),                      # non-ASCII
    ]
    for token in wrong:
        reply = api.request("GET", PODS, token=token)
        status = check_status(reply, (401,))
        assert status["reason"] == "Unauthorized"
    for headers in ({"Authorization": f"Basic {good}"}, {"Authorization": good},
                    {"Authorization": f"Bearer{good}"}, {"Authorization": "Bearer "},
                    {"Authorization": "Bearer"}, {"Authorization": ""}):
        check_status(api.request("GET", PODS, token=None, headers=headers), (401,))
    check_status(api.request("GET", PODS, token=None), (401,))
    assert api.request("GET", PODS).status == 200  # the right one works
    assert api.request("GET", PODS, token=None,
                       headers={"Authorization": f"bearer {good}"}).status == 200


def test_token_check_uses_compare_digest_at_runtime(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    store = Store(tmp_path / "s")
    authn = Authenticator(store, admin_token="sekret", issuer=None)
    try:
        assert authn.user_of("sekret") is not None
        assert authn.user_of("sekreT") is None
        assert authn.user_of("s") is None
    finally:
        store.close()
    assert calls == [(b"sekret", b"sekret"), (b"sekreT", b"sekret"), (b"s", b"sekret")]


def test_token_is_never_compared_with_equality_operators() -> None:
    """Source-level: the only comparison touching the token is compare_digest."""
    source = (PACKAGE / "apiserver" / "authn.py").read_text()
    tree = ast.parse(source)
    review = next(n for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef) and n.name == "review")
    uses = [n for n in ast.walk(review) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr == "compare_digest"
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "hmac"]
    assert uses, "Authenticator.review does not call hmac.compare_digest"
    for path in sorted((PACKAGE / "apiserver").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(
                    isinstance(op, ast.Eq | ast.NotEq | ast.Is | ast.IsNot | ast.In)
                    for op in node.ops):
                names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                         for side in (node.left, *node.comparators) for n in ast.walk(side)}
                assert not names & {"_token", "token"}, \
                    f"{path.name}:{node.lineno}: the token is compared with ==/!=/in"


# ------------------------------------------------------------------ file modes


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_dir_and_credentials_are_private(daemon: Daemon) -> None:
    state = daemon.state
    assert mode(state) == 0o700, oct(mode(state))
    assert mode(state / "pki") == 0o700, oct(mode(state / "pki"))
    secrets = [state / "kubeconfig", state / "token", *sorted((state / "pki").glob("*.key")),
               *sorted(state.glob("journal.*"))]
    assert {p.name for p in secrets} >= {"kubeconfig", "token", "ca.key", "apiserver.key"}
    for path in secrets:
        assert mode(path) == 0o600, f"{path.name} is {oct(mode(path))}"
    token = (state / "token").read_text().strip()
    assert token == kubeconfig.load(state / "kubeconfig").token and len(token) >= 32
    # Nothing in the state directory is writable by others, nothing half-written is left.
    for path in state.rglob("*"):
        assert not mode(path) & (stat.S_IWGRP | stat.S_IWOTH), f"{path} is {oct(mode(path))}"
        assert not path.name.endswith(".tmp"), path


# ------------------------------------------------------------------ no shell

#: Calls that run their argument through /bin/sh.
SHELL_CALLS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput"),
               ("subprocess", "getstatusoutput"), ("asyncio", "create_subprocess_shell"),
               ("pty", "spawn")}
SPAWNING = {"run", "Popen", "call", "check_call", "check_output"}


def is_spawn(func: ast.expr) -> bool:
    """``subprocess.run(...)`` and friends, or a bare ``Popen``/``check_*``."""
    if isinstance(func, ast.Attribute):
        return func.attr in SPAWNING and isinstance(func.value, ast.Name) and \
            func.value.id == "subprocess"
    return isinstance(func, ast.Name) and func.id in SPAWNING - {"run", "call"}


def is_string(arg: ast.expr) -> bool:
    """A command given as one string (literal, f-string or concatenation)."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str)
    return isinstance(arg, ast.JoinedStr | ast.BinOp)


def shell_uses(source: str, filename: str = "<source>") -> list[str]:
    """Every place in ``source`` that would invoke a shell, or hand one a
    command that is not a constant (``("sh", "-c", user_data)``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.module in {m for m, _ in SHELL_CALLS}:
            for alias in node.names:
                if (node.module, alias.name) in SHELL_CALLS:
                    found.append(f"{filename}:{node.lineno}: imports {alias.name}")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                (func.value.id, func.attr) in SHELL_CALLS:
            found.append(f"{filename}:{node.lineno}: {func.value.id}.{func.attr}()")
        for kw in node.keywords:
            if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant)
                                          and kw.value.value is False):
                found.append(f"{filename}:{node.lineno}: shell={ast.unparse(kw.value)}")
        # subprocess.run("cmd ...") would need a shell to mean anything: flag it.
        if is_spawn(func) and node.args and is_string(node.args[0]):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(func)}() with a string")
    for node in ast.walk(ast.parse(source, filename)):
        # ("sh", "-c", X) anywhere: X must be a constant, never data.
        if isinstance(node, ast.Tuple | ast.List) and len(node.elts) >= 3:
            first, flag, script = node.elts[:3]
            if isinstance(first, ast.Constant) and first.value in ("sh", "/bin/sh", "bash",
                                                                    "/bin/bash") and \
                    isinstance(flag, ast.Constant) and flag.value == "-c" and \
                    not (isinstance(script, ast.Constant) and isinstance(script.value, str)):
                found.append(f"{filename}:{node.lineno}: a shell script built from data")
    return found


def test_the_shell_scanner_finds_shells() -> None:
    # The scan below would pass vacuously if it could not see these.
    bad = '''
import os, subprocess
from os import system
os.system("ls " + name)
os.popen(cmd)
subprocess.run(cmd, shell=True)
subprocess.Popen(f"podman rm {name}")
subprocess.check_output("ls")
subprocess.run(["sh", "-c", user_command])
'''
    assert len(shell_uses(bad)) == 7, shell_uses(bad)
    ok = 'subprocess.run(["podman", "rm", name], shell=False)\ncmd = ("sh", "-c", "echo ok")\n'
    assert shell_uses(ok) == []


def test_no_shell_is_invoked_anywhere_in_minikube_py() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 50
    found = [hit for path in files
             for hit in shell_uses(path.read_text(), str(path.relative_to(PACKAGE)))]
    assert not found, "\n".join(found)


# ------------------------------------------------------------------ pod security


def pod(name: str, **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "busybox:1.36"}
    container.update(spec.pop("container", {}))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container], **spec}}


PRIVILEGED = {"container": {"securityContext": {"privileged": True}}}
PRIVILEGED_INIT = {"initContainers": [{"name": "i", "image": "busybox:1.36",
                                       "securityContext": {"privileged": True}}]}
HOST_PATH = {"volumes": [{"name": "h", "hostPath": {"path": "/etc"}}],
             "container": {"volumeMounts": [{"name": "h", "mountPath": "/host"}]}}

REFUSED = [
    ("privileged", PRIVILEGED, "--allow-privileged"),
    ("privileged-init", PRIVILEGED_INIT, "--allow-privileged"),
    ("host-path", HOST_PATH, "--allow-host-paths"),
    ("host-network", {"hostNetwork": True}, "hostNetwork=true"),
    ("host-pid", {"hostPID": True}, "hostPID=true"),
    ("host-ipc", {"hostIPC": True}, "hostIPC=true"),
]


@pytest.mark.parametrize("name, spec, hint", REFUSED, ids=[r[0] for r in REFUSED])
def test_default_daemon_refuses_dangerous_pods(api: RawApi, name: str, spec: dict[str, Any],
                                               hint: str) -> None:
    reply = api.request("POST", PODS, json.dumps(pod(name, **spec)).encode(), headers=JSON)
    status = check_status(reply, (403,))
    assert status["reason"] == "Forbidden"
    assert status["message"].startswith(f'pods "{name}" is forbidden: ')
    assert hint in status["message"]
    assert api.request("GET", f"{PODS}/{name}").status == 404


def test_an_admitted_pod_cannot_be_made_privileged_later(api: RawApi) -> None:
    assert api.request("POST", PODS, json.dumps(pod("plain")).encode(),
                       headers=JSON).status == 201
    for patch in ({"spec": {"containers": [{"name": "c", "securityContext":
                                            {"privileged": True}}]}},
                  {"spec": {"volumes": [{"name": "h", "hostPath": {"path": "/"}}]}},
                  {"spec": {"hostNetwork": True}}):
        reply = api.request("PATCH", f"{PODS}/plain", json.dumps(patch).encode(),
                            headers={"Content-Type": "application/strategic-merge-patch+json"})
        check_status(reply, (403, 422))
    spec = api.get_json(f"{PODS}/plain")["spec"]
    assert not spec.get("hostNetwork")
    assert not any("hostPath" in v for v in spec.get("volumes", []))  # only the token volume
    assert not (spec["containers"][0].get("securityContext") or {}).get("privileged")


def test_a_deployment_cannot_smuggle_a_privileged_pod(api: RawApi) -> None:
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "smuggle"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "smuggle"}},
                       "template": {"metadata": {"labels": {"app": "smuggle"}},
                                    "spec": pod("x", **PRIVILEGED)["spec"]}}}
    path = "/apis/apps/v1/namespaces/default/deployments"
    assert api.request("POST", path, json.dumps(deploy).encode(), headers=JSON).status == 201
    # The ReplicaSet controller tries and is refused: an event says so, no pod exists.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        events = api.get_json("/api/v1/namespaces/default/events")["items"]
        if any(e.get("reason") == "FailedCreate" and "forbidden" in e.get("message", "")
               for e in events):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("no FailedCreate event for the privileged template")
    pods = api.get_json(f"{PODS}?labelSelector=app%3Dsmuggle")["items"]
    assert pods == []


@pytest.fixture(scope="module")
def permissive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawApi]:
    d = start_daemon(tmp_path_factory.mktemp("permissive") / "state", "--nodes", "1",
                     "--allow-privileged", "--allow-host-paths")
    client = RawApi(d.kubeconfig)
    try:
        yield client
    finally:
        client.close()
        assert stop_daemon(d) == 0


@pytest.mark.parametrize("name, spec", [("privileged", PRIVILEGED),
                                        ("privileged-init", PRIVILEGED_INIT),
                                        ("host-path", HOST_PATH)])
def test_allowed_when_the_daemon_was_started_to_allow_it(permissive: RawApi, name: str,
                                                         spec: dict[str, Any]) -> None:
    reply = permissive.request("POST", PODS, json.dumps(pod(name, **spec)).encode(),
                               headers=JSON)
    assert reply.status == 201, reply.body


@pytest.mark.parametrize("field", ["hostNetwork", "hostPID", "hostIPC"])
def test_host_namespaces_stay_refused_even_when_allowing(permissive: RawApi,
                                                         field: str) -> None:
    reply = permissive.request("POST", PODS, json.dumps(pod(field.lower(),
                                                            **{field: True})).encode(),
                               headers=JSON)
    assert f"{field}=true" in check_status(reply, (403,))["message"]
