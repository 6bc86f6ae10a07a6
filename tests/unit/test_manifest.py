"""Tests for minikube_py.api.manifest: the loader behind ``apply -f``."""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.api import manifest as m
from minikube_py.api.errors import BadRequest
from minikube_py.api.manifest import (
    Manifest,
    ManifestError,
    dump_yaml,
    load_paths,
    load_text,
)

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"


def pod(name: str) -> str:
    return POD.format(name=name)


def names(manifests: list[Manifest]) -> list[str]:
    return [x.obj["metadata"]["name"] for x in manifests]


def error_of(text: str, source: str = "deploy.yaml") -> str:
    with pytest.raises(ManifestError) as info:
        load_text(text, source)
    return str(info.value)


@pytest.fixture(params=["c", "python"])
def either_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with libyaml's parser and with PyYAML's pure-Python fallback."""
    if request.param == "c":
        if not hasattr(yaml, "CSafeLoader"):
            pytest.skip("PyYAML built without libyaml")
        monkeypatch.setattr(m, "_LOADER", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(m, "_LOADER", yaml.SafeLoader)
    return str(request.param)


# ----------------------------------------------------------------------- basics


def test_single_document(either_loader: str) -> None:
    [doc] = load_text(pod("web"), "pod.yaml")
    assert doc == Manifest(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}, "pod.yaml", 1, 1
    )
    assert doc.where() == "pod.yaml:1"


def test_manifest_error_is_a_bad_request() -> None:
    with pytest.raises(BadRequest) as info:
        load_text("kind: Pod\n", "x.yaml")
    assert isinstance(info.value, ManifestError)
    assert info.value.code == 400
    assert info.value.to_status()["message"] == "x.yaml:1: document 1: apiVersion not set"


def test_multi_document_skips_empty_and_comment_only_documents(either_loader: str) -> None:
    text = (
        "# leading comment\n"  # 1
        "---\n"  # 2  document 1: empty
        "---\n"  # 3  document 2
        "apiVersion: v1\n"  # 4
        "kind: Pod\n"  # 5
        "metadata: {name: a}\n"  # 6
        "---\n"  # 7  document 3: only a comment
        "# nothing here\n"  # 8
        "---\n"  # 9  document 4: explicit null
        "null\n"  # 10
        "--- # document 5\n"  # 11
        "\n"  # 12
        "apiVersion: v1\n"  # 13
        "kind: Pod\n"  # 14
        "metadata: {name: b}\n"  # 15
        "...\n"  # 16
        "---\n"  # 17 trailing empty document 6
    )
    docs = load_text(text, "multi.yaml")
    assert names(docs) == ["a", "b"]
    assert [(d.document, d.line) for d in docs] == [(2, 4), (5, 13)]
    assert [d.where() for d in docs] == ["multi.yaml:4", "multi.yaml:13"]


@pytest.mark.parametrize("text", ["", "\n\n", "# just a comment\n", "---\n", "--- \n...\n", "null"])
def test_nothing_to_load(text: str) -> None:
    assert load_text(text) == []


def test_json_document() -> None:
    text = '\n\n{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata": {"name": "j"}\n}\n'
    [doc] = load_text(text, "pod.json")
    assert doc.obj == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}}
    assert (doc.document, doc.line) == (1, 3)


def test_json_stream_of_objects() -> None:
    # Go's json.Decoder (kubectl) reads concatenated values; so do we.
    text = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}\n' \
           '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}}'
    docs = load_text(text, "pods.json")
    assert names(docs) == ["a", "b"]
    assert [(d.document, d.line) for d in docs] == [(1, 1), (2, 2)]


def test_json_is_sniffed_without_extension() -> None:
    [doc] = load_text('{"apiVersion": "v1", "kind": "Pod", "x": 1e3}')
    assert doc.obj["x"] == 1000.0  # JSON semantics: in PyYAML's YAML 1.1, 1e3 is a string


def test_yaml_flow_mapping_is_not_mistaken_for_json() -> None:
    [doc] = load_text("{apiVersion: v1, kind: Pod, metadata: {name: flow}}\n")
    assert names([doc]) == ["flow"]


# ---------------------------------------------------------------------- Lists


def test_list_is_flattened_with_item_positions(either_loader: str) -> None:
    text = (
        "apiVersion: v1\n"  # 1
        "kind: List\n"  # 2
        "items:\n"  # 3
        "- apiVersion: v1\n"  # 4
        "  kind: Pod\n"  # 5
        "  metadata: {name: a}\n"  # 6
        "- apiVersion: v1\n"  # 7  nested List
        "  kind: List\n"  # 8
        "  items:\n"  # 9
        "  - apiVersion: v1\n"  # 10
        "    kind: Pod\n"  # 11
        "    metadata: {name: b}\n"  # 12
        "-\n"  # 13
        "  apiVersion: v1\n"  # 14
        "  kind: Pod\n"  # 15
        "  metadata: {name: c}\n"  # 16
        "---\n"  # 17
        + pod("d")  # 18
    )
    docs = load_text(text, "list.yaml")
    assert names(docs) == ["a", "b", "c", "d"]
    assert [(d.document, d.line) for d in docs] == [(1, 4), (1, 10), (1, 14), (2, 18)]


def test_json_list_items_keep_their_lines() -> None:
    items = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n}} for n in "abc"]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)
    docs = load_text(text, "list.json")
    assert names(docs) == ["a", "b", "c"]
    lines = text.splitlines()
    for d in docs:
        assert lines[d.line - 1].strip() == "{"
        assert f'"name": "{d.obj["metadata"]["name"]}"' in "\n".join(lines[d.line:d.line + 7])


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"apiVersion": "v1", "kind": "PodList", "items": [{"apiVersion": "v1", "kind": "Pod"}]},
         [{"apiVersion": "v1", "kind": "Pod"}]),
        ({"apiVersion": "v1", "kind": "List", "items": []}, []),
        ({"apiVersion": "v1", "kind": "List", "items": None}, []),
        ({"apiVersion": "v1", "kind": "List"}, []),
        # Only core v1 *List kinds are lists: a CRD may well be called PlayList.
        ({"apiVersion": "music.example/v1", "kind": "PlayList", "items": ["song"]},
         [{"apiVersion": "music.example/v1", "kind": "PlayList", "items": ["song"]}]),
        # A v1 kind ending in List without items is an ordinary object.
        ({"apiVersion": "v1", "kind": "WishList"}, [{"apiVersion": "v1", "kind": "WishList"}]),
    ],
)
def test_which_kinds_are_lists(obj: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    assert [d.obj for d in load_text(json.dumps(obj), "x.json")] == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: List\nitems: {a: 1}\n",
         "l.yaml:1: document 1: items must be a list, found a mapping"),
        ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n- kind: Pod\n",
         "l.yaml:6: document 1: items[1]: apiVersion not set"),
        ("apiVersion: v1\nkind: List\nitems:\n- just a string\n",
         'l.yaml:1: document 1: items[0]: expected a mapping with apiVersion and kind, '
         'found a string ("just a string")'),
        ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n"
         "  - {kind: Pod}\n",
         "l.yaml:7: document 1: items[0].items[0]: apiVersion not set"),
    ],
)
def test_bad_list_items(text: str, message: str) -> None:
    assert error_of(text, "l.yaml") == message


# ------------------------------------------------------------------ paths


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "b.yaml").write_text(pod("b"))
    (tmp_path / "a.yml").write_text(pod("a"))
    (tmp_path / "c.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c"}}))
    (tmp_path / "notes.txt").write_text("not a manifest: [")
    (tmp_path / "d.yaml~").write_text("editor backup: [")
    (tmp_path / "E.YAML").write_text("extensions are case-sensitive, as in kubectl: [")
    sub = tmp_path / "b-sub"
    sub.mkdir()
    (sub / "z.yaml").write_text(pod("sub-z"))
    (sub / "deeper").mkdir()
    (sub / "deeper" / "y.yaml").write_text(pod("sub-deeper-y"))
    return tmp_path


def test_directory_is_sorted_and_filtered(tree: Path) -> None:
    docs = load_paths([tree])
    assert names(docs) == ["a", "b", "c"]
    assert [d.source for d in docs] == [str(tree / n) for n in ("a.yml", "b.yaml", "c.json")]


def test_directory_recursive_walks_depth_first_in_name_order(tree: Path) -> None:
    # Like filepath.Walk: a subdirectory is read at its place in name order
    # ("b-sub" < "b.yaml" as "-" < "."), depth first.
    assert names(load_paths([tree], recursive=True)) == [
        "a", "sub-deeper-y", "sub-z", "b", "c"
    ]


def test_explicit_file_is_read_whatever_its_extension(tree: Path) -> None:
    (tree / "pod.txt").write_text(pod("txt"))
    assert names(load_paths([tree / "pod.txt"])) == ["txt"]


def test_paths_in_order_and_path_as_given(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    docs = load_paths(["c.json", "b-sub", Path("a.yml")])
    assert names(docs) == ["c", "sub-z", "a"]
    assert [d.source for d in docs] == ["c.json", os.path.join("b-sub", "z.yaml"), "a.yml"]


def test_symlinked_files_are_read_symlinked_directories_are_not_entered(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "p.yaml").write_text(pod("p"))
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "link.yaml").symlink_to(tmp_path / "real" / "p.yaml")
    (tmp_path / "top" / "loop").symlink_to(tmp_path / "top")
    assert names(load_paths([tmp_path / "top"], recursive=True)) == ["p"]


def test_missing_path_uses_kubectls_wording(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as info:
        load_paths(["x.yaml"])
    assert str(info.value) == 'the path "x.yaml" does not exist'


def test_missing_path_fails_before_anything_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("a: [")
    with pytest.raises(ManifestError) as info:
        load_paths([tmp_path / "broken.yaml", "nope.yaml", "nope2.yaml"])
    assert str(info.value) == (
        'the path "nope.yaml" does not exist\nthe path "nope2.yaml" does not exist'
    )


def test_errors_from_several_files_are_reported_together(tmp_path: Path) -> None:
    (tmp_path / "1.yaml").write_text("kind: Pod\n")
    (tmp_path / "2.yaml").write_text(pod("ok"))
    (tmp_path / "3.yaml").write_text("apiVersion: v1\n")
    with pytest.raises(ManifestError) as info:
        load_paths([tmp_path])
    assert str(info.value).splitlines() == [
        f"{tmp_path / '1.yaml'}:1: document 1: apiVersion not set",
        f"{tmp_path / '3.yaml'}:1: document 1: kind not set",
    ]


# ------------------------------------------------------------------ stdin


def test_stdin_text_stream() -> None:
    docs = load_paths(["-"], stdin=io.StringIO(pod("in") + "---\n" + pod("in2")))
    assert names(docs) == ["in", "in2"]
    assert [d.where() for d in docs] == ["<stdin>:1", "<stdin>:6"]


def test_stdin_byte_layer_is_decoded_as_utf8(tmp_path: Path) -> None:
    raw = io.BytesIO(pod("caf\u00e9").encode("utf-8"))
    stdin = io.TextIOWrapper(raw, encoding="latin-1")  # the locale must not matter
    assert names(load_paths(["-"], stdin=stdin)) == ["caf\u00e9"]


def test_stdin_mixed_with_files(tree: Path) -> None:
    docs = load_paths([tree / "a.yml", "-", tree / "b.yaml"], stdin=io.StringIO(pod("in")))
    assert names(docs) == ["a", "in", "b"]


def test_stdin_only_once() -> None:
    with pytest.raises(ManifestError, match=r'"-" \(standard input\) can only be given once'):
        load_paths(["-", "-"], stdin=io.StringIO(pod("x")))


# --------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web: x\n", "4:12",
         "mapping values are not allowed"),
        ("apiVersion: v1\nkind: Pod\nspec:\n  containers: [a, b\n", "5:1",
         r"expected ',' or '\]'"),
        ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n labels: {}\n", "5:2",
         r"did not find expected key|expected <block end>"),
        ('apiVersion: v1\nkind: "Pod\n', "3:1", "found unexpected end of stream"),
        # libyaml and PyYAML word this one differently.
        ("apiVersion: v1\nkind: Pod\n\tspec: {}\n", "3:1", r"found (a tab )?character"),
        ("apiVersion: v1\nkind: Pod\nbell: \x07\n", "3:7", r"'\\x07' is not allowed"),
        ("a: *nowhere\n", "1:4", r"found undefined alias \*nowhere"),
    ],
)
def test_malformed_yaml_names_line_and_column(
    either_loader: str, text: str, where: str, problem: str
) -> None:
    message = error_of(text)
    assert message.startswith(f"deploy.yaml:{where}: "), message
    assert re.search(problem, message), message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "apiVersion": "v1",\n  "kind": "Pod",\n}\n',
         "pod.json:4:1: Expecting property name enclosed in double quotes"),
        ('{\n  "apiVersion": "v1"\n  "kind": "Pod"\n}\n', "pod.json:3:3: Expecting ',' delimiter"),
        ('{"apiVersion": "v1", "kind": \'Pod\'}', "pod.json:1:30: Expecting value"),
        ('{"apiVersion": "v1", "kind": "Pod"', "pod.json:1:35: Expecting ',' delimiter"),
        ('{"apiVersion": "v1", "kind": "Pod"} trailing', "pod.json:1:37: Expecting value"),
        ('{"a": "tab\there"}', "pod.json:1:11: Invalid control character at"),
        ('apiVersion: v1\nkind: Pod\n', "pod.json:1:1: Expecting value"),
    ],
)
def test_malformed_json_names_line_and_column(text: str, message: str) -> None:
    assert error_of(text, "pod.json") == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: Pod\n", "d.yaml:1: document 1: apiVersion not set"),
        ("apiVersion: v1\n", "d.yaml:1: document 1: kind not set"),
        ("metadata: {}\n", "d.yaml:1: document 1: apiVersion and kind not set"),
        ('apiVersion: ""\nkind: Pod\n', "d.yaml:1: document 1: apiVersion not set"),
        ("apiVersion: v1\nkind:\n", "d.yaml:1: document 1: kind not set"),
        ("apiVersion: 1\nkind: Pod\n", "d.yaml:1: document 1: apiVersion must be a string, "
                                       "found a number (1)"),
        ("apiVersion: v1\nkind: [Pod]\n", "d.yaml:1: document 1: kind must be a string, "
                                          "found a list"),
        (pod("a") + "---\n\n# second\napiVersion: v1\nmetadata: {}\n",
         "d.yaml:8: document 2: kind not set"),
    ],
)
def test_missing_kind_or_api_version(text: str, message: str) -> None:
    assert error_of(text, "d.yaml") == message


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("- apiVersion: v1\n  kind: Pod\n", "a list"),
        ("just text\n", 'a string ("just text")'),
        ("42\n", "a number (42)"),
        ("true\n", "a boolean (true)"),
        ('"quoted"', 'a string ("quoted")'),
        ("[1, 2]", "a list"),
    ],
)
def test_document_must_be_a_mapping(text: str, found: str) -> None:
    assert error_of(text, "d.yaml") == (
        f"d.yaml:1: document 1: expected a mapping with apiVersion and kind, found {found}"
    )


def test_json_top_level_array_is_not_a_manifest() -> None:
    assert error_of("[]", "x.json") == (
        "x.json:1: document 1: expected a mapping with apiVersion and kind, found a list"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: Service\nports:\n  80: http\n",
         'd.yaml:4:3: mapping key 80 reads as a number, not a string; '
         'quote it ("80") if it is a name'),
        ("apiVersion: v1\nkind: Pod\non: push\n",
         'd.yaml:3:1: mapping key on reads as a boolean, not a string; '
         'quote it ("on") if it is a name'),
        ("apiVersion: v1\nkind: Pod\nx:\n  ~: 1\n",
         'd.yaml:4:3: mapping key ~ reads as null, not a string; quote it ("~") if it is a name'),
        ("apiVersion: v1\nkind: Pod\n? [a, b]\n: x\n",
         "d.yaml:3:3: mapping key is a list; keys must be strings"),
        ("apiVersion: v1\nkind: Pod\nx: &k 1\ny: {*k : 2}\n",
         "d.yaml:4:5: mapping key *k is a number, not a string"),
    ],
)
def test_keys_must_be_strings(text: str, message: str) -> None:
    assert error_of(text, "d.yaml") == message


def test_quoted_or_tagged_keys_are_fine() -> None:
    [doc] = load_text('apiVersion: v1\nkind: Pod\n"80": a\n!!str 81: b\n"on": c\n')
    assert doc.obj == {"apiVersion": "v1", "kind": "Pod", "80": "a", "81": "b", "on": "c"}


def test_duplicate_keys_are_errors() -> None:
    assert error_of("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n") == (
        'deploy.yaml:5:3: duplicate key "name" (first at line 4)'
    )
    assert error_of('{"apiVersion": "v1",\n "kind": "Pod", "x": {"a": 1, "a": 2}}', "d.json") == (
        'd.json:2:22: object has duplicate key "a"'
    )


# -------------------------------------------------------------- scalar semantics

SCALARS: list[tuple[str, Any]] = [
    # Timestamps stay the text the user wrote (PyYAML would make datetimes).
    ("2024-01-01", "2024-01-01"),
    ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"),
    ("2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 -5"),
    ("!!timestamp 2024-01-01", "2024-01-01"),
    # YAML 1.1 booleans, as PyYAML and kubectl read them...
    ("yes", True), ("No", False), ("ON", True), ("off", False), ("true", True), ("False", False),
    # ...except go-yaml's y/n, which PyYAML keeps as strings.
    ("y", "y"), ("N", "N"),
    ("'yes'", "yes"), ('"true"', "true"),
    # Nulls.
    ("", None), ("~", None), ("null", None), ("NULL", None), ("'null'", "null"),
    # Numbers: base 60 is not a number here (go-yaml agrees).
    ("1:20", "1:20"), ("22:22", "22:22"), ("190:20:30.15", "190:20:30.15"),
    ("80", 80), ("-7", -7), ("+7", 7), ("0", 0), ("1_000", 1000), ("0x1F", 31),
    ("017", 15), ("0b101", 5), ("08", "08"), ("0o17", "0o17"), ("12345678901234567890",
                                                                  12345678901234567890),
    ("1.5", 1.5), ("1.", 1.0), (".5", 0.5), ("-1.5e+3", -1500.0), ("1e3", "1e3"),
    ("'1.0'", "1.0"), ("!!float 1", 1.0), ("!!int '42'", 42), ("!!str 42", "42"),
    ("!!bool yes", True), ("!!null ''", None), ("! 42", "42"),
    # Strings.
    ("a-", "a-"), ("'-'", "-"), ("=", "="), ("nginx:1.25", "nginx:1.25"), ("'<<'", "<<"),
    ("'08'", "08"),
]


@pytest.mark.parametrize(("written", "value"), SCALARS)
def test_scalars(either_loader: str, written: str, value: Any) -> None:
    [doc] = load_text(f"apiVersion: v1\nkind: ConfigMap\ndata:\n  v: {written}\n")
    got = doc.obj["data"]["v"]
    assert got == value
    assert type(got) is type(value)


def test_result_is_plain_json_data() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: 2024-01-01T00:00:00Z\n"
        "  labels: &l {a: b}\n  annotations: *l\nspec:\n  set: !!set {a, b}\n"
    )
    with pytest.raises(ManifestError, match=r"^<stdin>:8:8: unsupported tag !!set$"):
        load_text(text)
    [doc] = load_text(text.replace("  set: !!set {a, b}\n", "  x: [1, 2.5, true, null]\n"))
    assert json.loads(json.dumps(doc.obj, allow_nan=False)) == doc.obj


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("v: .nan", "deploy.yaml:1:4: .nan is not a finite number (JSON has no NaN or Infinity);"
                    " quote it if it is a string"),
        ("v: -.inf", "deploy.yaml:1:4: -.inf is not a finite number"),
        ("v: 1.0e+999", "deploy.yaml:1:4: 1.0e+999 is not a finite number"),
        ("v: !!float nan", "deploy.yaml:1:4: nan is not a finite number"),
        ("v: !!int abc", 'deploy.yaml:1:4: cannot read "abc" as !!int'),
        ("v: !!binary aGk=", "deploy.yaml:1:4: unsupported tag !!binary"),
        ("v: !Ref other", "deploy.yaml:1:4: unsupported tag !Ref"),
        ("v: !!omap [a: 1]", "deploy.yaml:1:4: unsupported tag !!omap"),
        ("--- !Pod\napiVersion: v1\n", "deploy.yaml:1:5: unsupported tag !Pod"),
    ],
)
def test_rejected_scalars_and_tags(text: str, message: str) -> None:
    assert error_of(text).startswith(message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"apiVersion": "v1", "kind": "Pod",\n "x": NaN}', "p.json:2:7: NaN is not valid JSON"),
        ('{"x": -Infinity}', "p.json:1:7: -Infinity is not valid JSON"),
        ('{"x": 1e999}', "p.json:1:7: number 1e999 is out of range"),
        ('{"x": ' + "9" * 5000 + "}", "p.json:1:7: number is too long"),
    ],
)
def test_json_non_finite_numbers(text: str, message: str) -> None:
    assert error_of(text, "p.json") == message


def test_aliases_are_copies_not_shared_objects() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
        "  - &c {name: a, env: [{name: X, value: '1'}]}\n  - *c\n"
    )
    [doc] = load_text(text)
    first, second = doc.obj["spec"]["containers"]
    assert first == second
    second["env"][0]["value"] = "2"
    assert first["env"][0]["value"] == "1"


def test_merge_keys() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\n"
        "base: &base {a: 1, b: 1}\nother: &other {b: 2, c: 2}\n"
        "data:\n  <<: [*base, *other]\n  c: 3\n"
    )
    [doc] = load_text(text)
    assert doc.obj["data"] == {"a": 1, "b": 1, "c": 3}
    assert error_of("x:\n  <<: 5\n") == (
        "deploy.yaml:2:3: merge key << needs a mapping or a list of mappings"
    )


# -------------------------------------------------------------- hostile input


def billion_laughs(levels: int = 9) -> str:
    lines = ["apiVersion: v1", "kind: ConfigMap", 'l0: &l0 ["lol","lol","lol","lol","lol",'
                                                  '"lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("source", ["bomb.yaml", "<stdin>"])
def test_billion_laughs_is_refused_quickly(either_loader: str, source: str) -> None:
    start = time.thread_time()  # CPU time: expanding the bomb would take minutes of it
    with pytest.raises(ManifestError) as info:
        load_text(billion_laughs(), source)
    assert time.thread_time() - start < 1.0
    # l4's first alias, *l3, would bring the total past the limit.
    assert str(info.value).startswith(f"{source}:7:10: ")
    assert 'aliases expand to more than 10000 nodes (at *l3); refusing a possible ' \
           '"billion laughs" document' in str(info.value)


def test_alias_budget_is_per_file_not_per_document() -> None:
    # Many small documents, each under the limit, must not add up to a bomb.
    doc = "apiVersion: v1\nkind: ConfigMap\na: &a [" + ",".join(["x"] * 999) + "]\nb: [*a]\n"
    assert len(load_text("---\n".join([doc] * 5))) == 5  # 5 x 1000 expanded nodes: fine
    with pytest.raises(ManifestError, match="aliases expand to more than 10000 nodes"):
        load_text("---\n".join([doc] * 11))


def test_ordinary_aliases_are_fine() -> None:
    [doc] = load_text(billion_laughs(levels=2))
    assert len(doc.obj["l2"]) == 9 and len(doc.obj["l2"][0]) == 9


def test_recursive_alias_is_refused() -> None:
    assert error_of("a: &a [1, *a]\n") == (
        "deploy.yaml:1:11: alias *a refers to a node that contains it"
    )


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("[" * 1_000_000 + "]" * 1_000_000, "deep.yaml"),
        ("{" + '"a":{' * 1_000_000 + "}" * 1_000_001, "deep.json"),
        ("".join(" " * i + "- \n" for i in range(200)), "deep.yaml"),
    ],
)
def test_deep_nesting_is_refused_quickly(either_loader: str, text: str, source: str) -> None:
    # CPU time of this thread, not wall time: a loaded machine must not fail it, while
    # reading all million levels (quadratic in a parser) would take minutes of CPU.
    start = time.thread_time()
    with pytest.raises(ManifestError, match=r"nesting deeper than 100 levels"):
        load_text(text, source, max_bytes=len(text.encode()))
    assert time.thread_time() - start < 1.0


def test_nesting_by_alias_is_counted() -> None:
    deep = "[" * 60 + "1" + "]" * 60
    assert error_of(f"a: &a {deep}\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]"
                    "]]]]]]]]]]]]]]]]]]]]]]]]]]]\n").startswith("deploy.yaml:2:")


def test_nesting_at_the_limit_is_fine() -> None:
    deep = "[" * 99 + "1" + "]" * 99  # plus the document's mapping: 100 levels
    [doc] = load_text(f"apiVersion: v1\nkind: X\nv: {deep}\n")
    assert doc.obj["v"] == json.loads(deep)


def test_oversized_input(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(pod("x") + "# " + "x" * 2000 + "\n")
    with pytest.raises(ManifestError) as info:
        load_paths([big], max_bytes=1024)
    size = big.stat().st_size
    assert str(info.value) == f"{big}: input is {size} bytes, larger than the 1 KiB limit"
    assert names(load_paths([big], max_bytes=4096)) == ["x"]
    with pytest.raises(ManifestError, match=r"^<stdin>: input is more than 1024 bytes, larger "
                                            r"than the 1 KiB limit$"):
        load_paths(["-"], stdin=io.StringIO(big.read_text()), max_bytes=1024)
    with pytest.raises(ManifestError, match=r"^t.yaml: input is 2\d\d\d bytes, larger than the "
                                            r"1 KiB limit$"):
        load_text(big.read_text(), "t.yaml", max_bytes=1024)


def test_default_size_limit_is_16_mib() -> None:
    text = "# " + "x" * (16 * 2**20) + "\n"
    with pytest.raises(ManifestError, match=r"larger than the 16 MiB limit$"):
        load_text(text, "huge.yaml")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"apiVersion: v1\nkind: Pod\nname: caf\xe9\n",
         "bad.yaml:3: not valid UTF-8 (byte 0xe9 at offset 34)"),
        (b"\xff\xfea\x00:\x00", "bad.yaml: file is UTF-16 encoded; save it as UTF-8"),
    ],
)
def test_non_utf8_file(tmp_path: Path, raw: bytes, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(raw)
    with pytest.raises(ManifestError) as info:
        load_paths([path])
    assert str(info.value) == str(tmp_path / message)


def test_non_utf8_stdin() -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"a: \xff\n"))
    with pytest.raises(ManifestError, match=r"^<stdin>:1: not valid UTF-8 \(byte 0xff"):
        load_paths(["-"], stdin=stdin)
    with pytest.raises(ManifestError, match=r"^<stdin>: not valid UTF-8$"):
        load_paths(["-"], stdin=_NoBuffer(b"a: \xff\n"))
    surrogate = b"a: \xff\n".decode("utf-8", "surrogateescape")
    with pytest.raises(ManifestError, match=r"^x.yaml:1: not valid UTF-8 text$"):
        load_text(surrogate, "x.yaml")


class _NoBuffer(io.StringIO):
    """A text stream without a byte layer whose decoding fails on read."""

    def __init__(self, raw: bytes) -> None:
        super().__init__()
        self.raw = raw

    def read(self, size: int | None = -1) -> str:
        return self.raw.decode("utf-8")


def test_utf8_bom_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + pod("bom").encode())
    assert names(load_paths([path])) == ["bom"]
    assert names(load_text("\ufeff" + pod("bom"))) == ["bom"]


# ------------------------------------------------------------------ dump_yaml

TRICKY_STRINGS = [
    "true", "1.0", "08", "", "null", "-", "~", "yes", "y", "N", "on", "1e3", "0o17", "0x1F",
    "1:20", "2024-01-01", "2024-01-01T00:00:00Z", "=", "<<", "- a", "a: b", "#c", " lead",
    "trail ", "multi\nline\n", "multi\nline", "  indented\nx\n", "tab\there", "caf\u00e9 \u4e2d",
    "\x07bell", "a\r\nb", "@x", "`x", "'q'", '"d"', "{x}", "[x]", "*a", "&a", "!t", "%p", "?",
    ":", "a #b", "1_000", ".inf", ".NaN", "-.5", "+1", "0", "-0", "12345678901234567890",
    "x" * 300, "keep\n\n\n", "\n", " ", "line\u2028sep", "nginx:1.25",
]


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "labels": {"app": "web", "version": "08"},
            "annotations": {f"note-{i}": s for i, s in enumerate(TRICKY_STRINGS)},
        },
        "spec": {
            "replicas": 3,
            "paused": False,
            "progressDeadlineSeconds": None,
            "ratio": 0.5,
            "tiny": 1e-07,
            "big": 2**63,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.25",
                            "args": TRICKY_STRINGS,
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "env": [],
                            "resources": {},
                        }
                    ],
                    "tolerations": [{"key": "k", "operator": "Exists"}] * 2,
                },
            },
        },
    }


@pytest.fixture(params=["c", "python"])
def either_dumper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "c":
        if not hasattr(m, "_CDumper"):
            pytest.skip("PyYAML built without libyaml")
        monkeypatch.setattr(m, "_DUMPER", m._CDumper)
    else:
        monkeypatch.setattr(m, "_DUMPER", m._PyDumper)
    return str(request.param)


def test_dump_yaml_round_trip(either_dumper: str, either_loader: str) -> None:
    obj = deployment()
    text = dump_yaml(obj)
    assert load_text(text, "out.yaml")[0].obj == obj
    # ...and PyYAML's own loader (YAML 1.1 with timestamps) agrees.
    assert yaml.load(text, Loader=yaml.SafeLoader) == obj


def test_dump_yaml_looks_like_kubectl(either_dumper: str) -> None:
    text = dump_yaml(deployment())
    assert text.startswith("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")
    for line in [
        "    version: '08'",
        "    note-0: 'true'",
        "    note-1: '1.0'",
        "    note-3: ''",
        "    note-4: 'null'",
        "    note-5: '-'",
        "    note-8: 'y'",  # go-yaml (kubectl) would read a bare y as true
        "    note-11: '1e3'",
        "    note-14: '1:20'",
        "    note-15: '2024-01-01'",
        "    note-24: |\n      multi\n      line\n",
        "  replicas: 3",
        "  paused: false",
        "  progressDeadlineSeconds: null",
        "      containers:\n      - name: web\n        image: nginx:1.25\n",
        "        env: []",
        "        resources: {}",
        "        - containerPort: 80",
        "      - key: k\n        operator: Exists\n      - key: k\n",  # no anchors/aliases
        "    note-52: " + "x" * 300 + "\n",  # not folded
    ]:
        assert line in text, line
    assert "&" not in text.replace("'&a'", "")
    assert not text.endswith("...\n")


def test_dump_yaml_emitters_agree() -> None:
    if not hasattr(m, "_CDumper"):
        pytest.skip("PyYAML built without libyaml")
    obj = deployment()
    assert yaml.dump(obj, Dumper=m._CDumper, default_flow_style=False, sort_keys=False,
                     allow_unicode=True, width=2**30).removesuffix("...\n") == \
        yaml.dump(obj, Dumper=m._PyDumper, default_flow_style=False, sort_keys=False,
                  allow_unicode=True, width=2**30).removesuffix("...\n")


def test_dump_yaml_keeps_insertion_order() -> None:
    assert dump_yaml({"kind": "Pod", "apiVersion": "v1", "b": 1, "a": 2}) == (
        "kind: Pod\napiVersion: v1\nb: 1\na: 2\n"
    )
