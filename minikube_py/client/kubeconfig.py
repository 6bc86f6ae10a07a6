"""Kubeconfig files: the daemon writes one, every client reads one.

The file the daemon writes (``STATE_DIR/kubeconfig``, mode 0600) is a plain
kubeconfig with one cluster, user and context named ``minikube-py``, so it
works unchanged with ``kubectl --kubeconfig`` and with
``kubernetes.config.load_kube_config``. Reading supports what minikube-py
needs from any kubeconfig: the current (or a named) context's server, bearer
token (inline or ``tokenFile``) and namespace.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

NAME = "minikube-py"


class KubeconfigError(ValueError):
    """The kubeconfig is missing or does not say how to reach a cluster."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    server: str
    token: str
    namespace: str = "default"
    #: PEM of the CA that signed the server's certificate; None: the system's CAs.
    ca_data: bytes | None = None
    insecure: bool = False


def render(server: str, token: str, namespace: str = "default", *,
           ca_pem: bytes | None = None) -> str:
    cluster: dict[str, Any] = {"server": server}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    config = {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [{"name": NAME, "cluster": cluster}],
        "users": [{"name": NAME, "user": {"token": token}}],
        "contexts": [{"name": NAME, "context": {"cluster": NAME, "user": NAME,
                                                 "namespace": namespace}}],
        "current-context": NAME,
    }
    return yaml.safe_dump(config, sort_keys=False)


def write(path: Path, server: str, token: str, *, ca_pem: bytes | None = None) -> None:
    """Write atomically with mode 0600 (it holds a credential)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(render(server, token, ca_pem=ca_pem))
    os.replace(tmp, path)


def _named(entries: Any, name: str, what: str, path: Path) -> dict[str, Any]:
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            body = entry.get(what)
            return body if isinstance(body, dict) else {}
    raise KubeconfigError(f"{path}: no {what} named {name!r}")


def load(path: Path, *, context: str | None = None) -> Endpoint:
    """The endpoint the kubeconfig's (current or given) context points at."""
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise KubeconfigError(f"{path} does not exist") from None
    except (OSError, yaml.YAMLError) as exc:
        raise KubeconfigError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise KubeconfigError(f"{path} is not a kubeconfig")
    ctx_name = context or data.get("current-context")
    if not ctx_name:
        raise KubeconfigError(f"{path}: no current-context is set")
    ctx = _named(data.get("contexts"), ctx_name, "context", path)
    cluster = _named(data.get("clusters"), ctx.get("cluster", ""), "cluster", path)
    user = _named(data.get("users"), ctx.get("user", ""), "user", path) if ctx.get("user") \
        else {}
    server = cluster.get("server")
    if not server:
        raise KubeconfigError(f"{path}: cluster {ctx.get('cluster')!r} has no server")
    token = user.get("token") or ""
    if not token and user.get("tokenFile"):
        token = Path(user["tokenFile"]).read_text().strip()
    ca: bytes | None = None
    if cluster.get("certificate-authority-data"):
        try:
            ca = base64.b64decode(cluster["certificate-authority-data"])
        except ValueError:
            raise KubeconfigError(f"{path}: certificate-authority-data is not base64") from None
    elif cluster.get("certificate-authority"):
        ca = Path(cluster["certificate-authority"]).read_bytes()
    return Endpoint(str(server).rstrip("/"), str(token), str(ctx.get("namespace") or "default"),
                    ca_data=ca, insecure=bool(cluster.get("insecure-skip-tls-verify")))
