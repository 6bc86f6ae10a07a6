"""Field paths render as Kubernetes writes them (``field.Path``), whichever
way they are built: one name at a time or several at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from minikube_py.api.errors import FieldPath


@pytest.mark.parametrize("build, text", [
    (lambda: FieldPath.root("spec"), "spec"),
    (lambda: FieldPath.root("spec", "containers"), "spec.containers"),
    (lambda: FieldPath.root().child("metadata"), "metadata"),
    (lambda: FieldPath.root().child("metadata", "name"), "metadata.name"),
    (lambda: FieldPath.root("spec").child("containers").index(0).child("image"),
     "spec.containers[0].image"),
    (lambda: FieldPath.root("spec").child("a", "b").key("k").child("c"), "spec.a.b[k].c"),
    (lambda: FieldPath.root().index(2).child("x"), "[2].x"),
])
def test_field_paths_render_as_kubernetes_writes_them(build: Callable[[], FieldPath],
                                                      text: str) -> None:
    path = build()
    assert str(path) == text
    assert path == FieldPath(path.parts)
    assert hash(path) == hash(FieldPath(path.parts))


def test_one_name_at_a_time_equals_several_at_once() -> None:
    assert FieldPath.root("spec").child("a").child("b") == FieldPath.root("spec").child("a", "b")
    assert FieldPath.root().child("a").child("b") == FieldPath.root("a", "b")
