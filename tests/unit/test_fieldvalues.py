"""FieldValues (store/fieldvalues.py): the compact field-label values of a stored version."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from minikube_py.store.fieldvalues import FieldValues, field_names
from minikube_py.store.store import Store


def test_behaves_as_a_read_only_dict() -> None:
    index = field_names(("metadata.name", "metadata.namespace", "spec.nodeName"))
    fields = FieldValues(index, ("p", "default", ""))
    assert fields == {"metadata.name": "p", "metadata.namespace": "default", "spec.nodeName": ""}
    assert list(fields) == ["metadata.name", "metadata.namespace", "spec.nodeName"]
    assert fields["spec.nodeName"] == "" and fields.get("spec.nodeName", "x") == ""
    assert fields.get("status.phase") is None and fields.get("status.phase", "") == ""
    assert "metadata.name" in fields and "p" not in fields and len(fields) == 3
    with pytest.raises(KeyError):
        fields["status.phase"]
    with pytest.raises(TypeError):
        fields["metadata.name"] = "q"  # type: ignore[index]


def test_one_index_per_name_tuple_and_bad_input_is_refused() -> None:
    names = ("a", "b")
    assert field_names(names) is field_names(("a", "b"))
    with pytest.raises(ValueError, match="repeat"):
        field_names(("a", "a"))
    with pytest.raises(ValueError, match="1 values for 2 field names"):
        FieldValues(field_names(names), ("x",))


def test_a_stored_event_keeps_its_fields_in_less_than_half_a_dict(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    try:
        store.create("events", {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "p.1", "namespace": "default"},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "p",
                               "namespace": "default", "uid": "u-1",
                               "fieldPath": "spec.containers{c}"},
            "reason": "Started", "message": "Started container c", "type": "Normal",
            "source": {"component": "kubelet", "host": "n1"}, "reportingComponent": "kubelet"})
        entry = store._tables["events"].entries["default/p.1"]
        fields = entry.fields
        assert fields["involvedObject.name"] == "p" and fields["reason"] == "Started"
        assert fields["metadata.namespace"] == "default" and fields["source"] == "kubelet"
        as_dict = dict(fields)
        assert len(as_dict) >= 13
        own = sys.getsizeof(fields) + sys.getsizeof(fields._values)
        assert own < sys.getsizeof(as_dict) / 2
        # No labels: the one shared empty mapping, not a dict per version.
        other = store.create("events", {**store.get("events", "default", "p.1"),
                                        "metadata": {"name": "p.2", "namespace": "default"}})
        assert other["metadata"]["name"] == "p.2"
        again = store._tables["events"].entries["default/p.2"]
        assert entry.labels == {} and entry.labels is again.labels
    finally:
        store.close()
