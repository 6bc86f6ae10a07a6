"""One place per kind: the store, the API server and the CLI ask a kind's
resource (``minikube_py/api/<group>/<kind>.py``) and never name a kind.

Every string literal in ``store/``, ``apiserver/`` and ``cli/`` (docstrings
aside) is checked against every registered kind's name, plural and short names
(singulars such as ``namespace`` are also field names); a hit means code
that branches on, or hard-codes, one kind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from minikube_py.api import kinds

PACKAGE = Path(__file__).resolve().parents[2] / "minikube_py"
CHECKED = ("store", "apiserver", "cli")

#: (file, literal): the only names allowed, each with its reason.
ALLOWED = {
    # Kubernetes' URL grammar: ".../namespaces/{ns}/{resource}" introduces a
    # namespace in every namespaced path, whatever the resource.
    ("apiserver/routes.py", "namespaces"),
    # The command's own name, kubectl's ``events``.
    ("cli/events.py", "events"),
    # A configuration default, as kube-apiserver's EncryptionConfiguration
    # names the resources it encrypts: Secrets unless told otherwise.
    ("store/encryption.py", "secrets"),
    # The proxy subresources reach a place that only some kinds have, as
    # kube-apiserver's per-resource ``ResourceLocation``: a pod's IP, a
    # service's endpoints (its Endpoints object), no node endpoint here.
    ("apiserver/streaming/proxy.py", "pods"),
    ("apiserver/streaming/proxy.py", "services"),
    ("apiserver/streaming/proxy.py", "endpoints"),
    ("apiserver/streaming/proxy.py", "nodes"),
}


def _names() -> set[str]:
    out: set[str] = set()
    for info in kinds.KINDS:
        out.update({info.kind, info.plural, *info.short_names})
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def kind_literals(source: str) -> list[tuple[int, str]]:
    """(line, literal) of every string constant that is a kind's name."""
    names = _names()
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skip and node.value in names]


def test_the_check_finds_a_kind_name() -> None:
    assert kind_literals('if info.kind == "Pod":\n    pass\n') == [(1, "Pod")]
    assert kind_literals('x = f"pods/{name}"\n') == []
    assert kind_literals('"""A docstring about pods."""\n') == []


@pytest.mark.parametrize("package", CHECKED)
def test_no_kind_name_is_a_literal(package: str) -> None:
    found = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for line, literal in kind_literals(path.read_text()):
            if (rel, literal) not in ALLOWED:
                found.append(f"{rel}:{line}: {literal!r}")
    assert not found, "kind names written into code that should ask the resource:\n" + \
        "\n".join(found)
