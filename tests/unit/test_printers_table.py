"""Server-side Table printing: column definitions, the Table envelope,
includeObject and the default table for other kinds.

Expectations come from printers.go's AddHandlers (columns) and the apiserver's
``endpoints/apiserver_test.go`` (TestGetTable) for the default table and
PartialObjectMetadata rows.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from minikube_py.api.errors import BadRequest
from minikube_py.api.printers import table

from .printers_helpers import HOUR, NOW, RUNNING, SUCCEEDED, cs, pod, rows, ts

# ------------------------------------------------------- column definitions

# (name, type, format, priority) from printers.go AddHandlers
COLUMNS = {
    "Pod": [("Name", "string", "name", 0), ("Ready", "string", "", 0),
            ("Status", "string", "", 0), ("Restarts", "string", "", 0),
            ("Age", "string", "", 0), ("IP", "string", "", 1), ("Node", "string", "", 1),
            ("Nominated Node", "string", "", 1), ("Readiness Gates", "string", "", 1)],
    "Node": [("Name", "string", "name", 0), ("Status", "string", "", 0),
             ("Roles", "string", "", 0), ("Age", "string", "", 0),
             ("Version", "string", "", 0), ("Internal-IP", "string", "", 1),
             ("External-IP", "string", "", 1), ("OS-Image", "string", "", 1),
             ("Kernel-Version", "string", "", 1), ("Container-Runtime", "string", "", 1)],
    "Namespace": [("Name", "string", "name", 0), ("Status", "string", "", 0),
                  ("Age", "string", "", 0)],
    "Event": [("Last Seen", "string", "", 0), ("Type", "string", "", 0),
              ("Reason", "string", "", 0), ("Object", "string", "", 0),
              ("Subobject", "string", "", 1), ("Source", "string", "", 1),
              ("Message", "string", "", 0), ("First Seen", "string", "", 1),
              ("Count", "string", "", 1), ("Name", "string", "name", 1)],
    "Deployment": [("Name", "string", "name", 0), ("Ready", "string", "", 0),
                   ("Up-to-date", "string", "", 0), ("Available", "string", "", 0),
                   ("Age", "string", "", 0), ("Containers", "string", "", 1),
                   ("Images", "string", "", 1), ("Selector", "string", "", 1)],
    "ReplicaSet": [("Name", "string", "name", 0), ("Desired", "integer", "", 0),
                   ("Current", "integer", "", 0), ("Ready", "integer", "", 0),
                   ("Age", "string", "", 0), ("Containers", "string", "", 1),
                   ("Images", "string", "", 1), ("Selector", "string", "", 1)],
    "ConfigMap": [("Name", "string", "name", 0), ("Data", "string", "", 0),
                  ("Age", "string", "", 0)],
    # apiserver defaultTableConvertor, for a kind with no printer
    "Widget": [("Name", "string", "name", 0), ("Created At", "date", "", 0)],
}


@pytest.mark.parametrize("kind", sorted(COLUMNS))
def test_column_definitions(kind: str) -> None:
    t = table(kind, [], now=NOW)
    got = [(c["name"], c["type"], c["format"], c["priority"]) for c in t["columnDefinitions"]]
    assert got == COLUMNS[kind]
    for column in t["columnDefinitions"]:
        assert set(column) == {"name", "type", "format", "description", "priority"}
        assert column["description"]
    assert t["rows"] == []


def test_column_descriptions() -> None:
    pods = {c["name"]: c["description"] for c in table("Pod", [], now=NOW)["columnDefinitions"]}
    assert pods["Ready"] == "The aggregate readiness state of this pod for accepting traffic."
    assert pods["Status"] == "The aggregate status of the containers in this pod."
    assert pods["Restarts"] == (
        "The number of times the containers in this pod have been restarted and when the last "
        "container in this pod has restarted.")
    assert pods["Name"].startswith("Name must be unique within a namespace.")
    assert pods["Age"].startswith("CreationTimestamp is a timestamp representing the server time")
    nodes = {c["name"]: c["description"] for c in table("Node", [], now=NOW)["columnDefinitions"]}
    assert nodes["Status"] == "The status of the node"
    assert nodes["Roles"] == "The roles of the node"
    ns = table("Namespace", [], now=NOW)["columnDefinitions"]
    assert ns[1]["description"] == "The status of the namespace"
    deploy = table("Deployment", [], now=NOW)["columnDefinitions"]
    assert deploy[1]["description"] == "Number of the pod with ready state"
    assert deploy[5]["description"] == "Names of each container in the template."
    assert deploy[6]["description"] == "Images referenced by each container in the template."


# ------------------------------------------------------------ table shape


def test_table_envelope_and_metadata() -> None:
    t = table("Namespace", [], now=NOW, resource_version="10")
    assert t == {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                 "metadata": {"resourceVersion": "10"},
                 "columnDefinitions": t["columnDefinitions"], "rows": []}
    t = table("Namespace", [], now=NOW, resource_version="7", continue_token="abc")
    assert t["metadata"] == {"resourceVersion": "7", "continue": "abc"}
    # Empty ListMeta fields are omitted, as Go's omitempty does.
    assert table("Namespace", [], now=NOW, continue_token="")["metadata"] == {}


def _simple() -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "foo1", "namespace": "ns1", "resourceVersion": "10",
                         "creationTimestamp": "2023-11-14T22:13:20Z", "uid": "abcdef0123"},
            "data": {"a": "b"}}


def test_default_table_for_other_kinds() -> None:
    # apiserver_test.go TestGetTable: cells are name and creationTimestamp in UTC RFC3339.
    obj = _simple()
    obj["metadata"]["creationTimestamp"] = "2023-11-15T00:13:20.5+02:00"
    t = table("Widget", [obj], now=NOW, resource_version="10")
    assert t["metadata"] == {"resourceVersion": "10"}
    assert t["rows"] == [{
        "cells": ["foo1", "2023-11-14T22:13:20Z"],
        "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                   "metadata": obj["metadata"]},
    }]
    # A missing timestamp prints Go's zero time.
    assert table("Widget", [{"metadata": {"name": "w"}}], now=NOW)["rows"][0]["cells"] == [
        "w", "0001-01-01T00:00:00Z"]


@pytest.mark.parametrize(("mode", "expected"), [
    ("Metadata", "partial"),
    ("", "partial"),            # the apiserver treats an empty includeObject as Metadata
    ("Object", "object"),
    ("None", None),
])
def test_include_object(mode: str, expected: str | None) -> None:
    obj = pod("p", containers=1, phase="Running")
    row = rows("Pod", [obj], include_object=mode)[0]
    if expected == "partial":
        assert row["object"] == {"kind": "PartialObjectMetadata",
                                 "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
    elif expected == "object":
        assert row["object"] is obj
    else:
        assert "object" in row and row["object"] is None


def test_include_object_default_is_metadata() -> None:
    row = table("Widget", [_simple()], now=NOW)["rows"][0]
    assert row["object"]["kind"] == "PartialObjectMetadata"


def test_include_object_rejects_unknown_values() -> None:
    with pytest.raises(BadRequest) as err:
        table("Pod", [], now=NOW, include_object="Everything")
    assert str(err.value) == 'unrecognized includeObject value: "Everything"'


def test_row_conditions_are_fresh_copies() -> None:
    obj = pod("p", containers=1, phase="Succeeded")
    first = rows("Pod", [obj])[0]
    first["conditions"][0]["reason"] = "mutated"
    assert rows("Pod", [obj])[0]["conditions"] == SUCCEEDED


def test_thousand_pods_render_quickly() -> None:
    pods = []
    for i in range(1000):
        obj = pod(f"p{i}", containers=2, phase="Running", statuses=[
            cs(ready=True, restarts=i % 4, state=RUNNING, finished=-float(i)),
            cs(ready=True, state=RUNNING)],
            conditions=[{"type": "Ready", "status": "True"}], podIP=f"10.0.{i // 250}.{i % 250}")
        obj["metadata"]["creationTimestamp"] = ts(-HOUR - i)
        obj["spec"]["nodeName"] = "minikube"
        pods.append(obj)
    start = time.thread_time()  # CPU time, so a loaded machine does not fail it
    t = table("Pod", pods, now=NOW)
    elapsed = time.thread_time() - start
    assert len(t["rows"]) == 1000
    assert t["rows"][0]["cells"][:3] == ["p0", "2/2", "Running"]
    assert elapsed < 1.0
