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

from ..api.errors import StatusError
from ..api.manifest import ManifestError, dump_yaml
from ..client.http import HTTPClient, Unreachable
from ..client.kubeconfig import KubeconfigError, load
from ..controlplane.arguments import default_state_dir
from ..ops.errors import OpError, PartialFailure
from ..ops.wording import quoted_ref, resolve_kind, resource_ref, server_error

__all__ = ["TABLE_ACCEPT", "CLIError", "client_options", "connect", "dump", "fail",
           "handles_errors", "kubeconfig_path", "namespace", "print_table", "quoted_ref",
           "resolve_kind", "resource_ref", "server_error"]

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


class CLIError(OpError):
    """A mistake on the command line; printed as ``error: ...`` (exit 1), as
    every :class:`~minikube_py.ops.errors.OpError` is."""


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def handles_errors(func: Callable[[argparse.Namespace], int]) -> Callable[
        [argparse.Namespace], int]:
    """Turn the expected failures into kubectl's messages and exit code 1."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ManifestError as exc:
            return fail(exc.message)
        except PartialFailure as exc:
            for line in exc.done:
                print(line)
            for line in exc.errors:
                print(line, file=sys.stderr)
            return 1
        except OpError as exc:
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
