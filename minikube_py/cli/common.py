"""What every client command shares: finding the control plane, kubectl-style
errors and exit codes, and printing objects.

The kubeconfig is ``--kubeconfig``, else ``$MINIKUBE_PY_KUBECONFIG``, else the
one the daemon writes in the default state directory. ``~/.kube/config`` is
deliberately not read: it may point at a real cluster, and ``minikube-py
delete`` must never reach one by accident.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..api import kinds
from ..api.errors import StatusError
from ..api.manifest import ManifestError, dump_yaml
from ..client.http import HTTPClient, Unreachable
from ..client.kubeconfig import KubeconfigError, load
from .daemon import default_state_dir

TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def client_options() -> argparse.ArgumentParser:
    """A parent parser with the flags every client command takes."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--kubeconfig", type=Path, default=argparse.SUPPRESS,
                   help="kubeconfig of the control plane (default: the daemon's)")
    p.add_argument("-n", "--namespace", default=argparse.SUPPRESS,
                   help="namespace (default: the kubeconfig's, usually default)")
    return p


def kubeconfig_path(args: argparse.Namespace) -> Path:
    given = getattr(args, "kubeconfig", None)
    if given:
        return Path(given)
    env = os.environ.get("MINIKUBE_PY_KUBECONFIG")
    if env:
        return Path(env)
    return default_state_dir() / "kubeconfig"


def connect(args: argparse.Namespace) -> HTTPClient:
    path = kubeconfig_path(args)
    if not path.exists():
        raise Unreachable(f"no minikube-py control plane is running (no kubeconfig at {path}); "
                          "start one with `minikube-py daemon` or `make run`, or pass "
                          "--kubeconfig")
    return HTTPClient(load(path))


def namespace(args: argparse.Namespace, client: HTTPClient) -> str:
    return getattr(args, "namespace", None) or client.endpoint.namespace


def resource_ref(info: kinds.KindInfo, name: str) -> str:
    """``pod/web`` or ``deployment.apps/web``, as kubectl prints them."""
    kind = info.singular + (f".{info.group}" if info.group else "")
    return f"{kind}/{name}"


def quoted_ref(info: kinds.KindInfo, name: str) -> str:
    """``pod "web"`` / ``deployment.apps "web"`` (kubectl's delete/scale wording)."""
    kind = info.singular + (f".{info.group}" if info.group else "")
    return f'{kind} "{name}"'


class CLIError(Exception):
    """A mistake on the client side; printed as ``error: ...`` (exit 1)."""


def resolve_kind(name: str) -> kinds.KindInfo:
    """``kinds.resolve`` for a command line: an unknown kind is the user's error."""
    try:
        return kinds.resolve(name)
    except StatusError as exc:
        raise CLIError(exc.message) from None


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def server_error(exc: StatusError) -> str:
    return f"Error from server ({exc.reason}): {exc.message}"


def handles_errors(func: Callable[[argparse.Namespace], int]) -> Callable[
        [argparse.Namespace], int]:
    """Turn the expected failures into kubectl's messages and exit code 1."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ManifestError as exc:
            return fail(exc.message)
        except CLIError as exc:
            return fail(str(exc))
        except StatusError as exc:
            print(server_error(exc), file=sys.stderr)
            return 1
        except (Unreachable, KubeconfigError) as exc:
            return fail(str(exc))
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0  # `minikube-py get ... | head` is not an error

    return wrapper


def print_table(columns: Sequence[str], rows: Sequence[Sequence[str]], *,
                headers: bool = True, out: Any = None) -> None:
    """Columns separated by three spaces, as kubectl's tabwriter prints them."""
    out = out or sys.stdout
    all_rows = [list(columns), *[list(map(str, r)) for r in rows]] if headers else \
        [list(map(str, r)) for r in rows]
    if not all_rows:
        return
    widths = [max(len(r[i]) for r in all_rows) for i in range(len(all_rows[0]))]
    for r in all_rows:
        line = "   ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip()
        out.write(line + "\n")
    out.flush()


def dump(obj: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(obj, indent=4) + "\n"
    return dump_yaml(obj)
