"""Label selectors: parsing (incl. errors), canonical strings, matching,
LabelSelector conversion and validation.

Rows come from apimachinery's ``labels/selector_test.go`` and the parser's
behaviour; messages are Kubernetes' texts.
"""

from __future__ import annotations

import pytest

from minikube_py.api.errors import BadRequest, FieldPath
from minikube_py.api.labels import (
    Requirement,
    Selector,
    SelectorError,
    parse_selector,
    selector_from_label_selector,
    validate_label_selector,
    validate_labels,
)

QNAME_REGEX = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
OPS = "in, notin, =, ==, !=, gt, lt"


# ------------------------------------------------------------------- parsing

@pytest.mark.parametrize(
    "text",
    ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"],
)
def test_parse_round_trips_without_spaces(text):
    # Kubernetes' TestSelectorParse: String() is the input minus spaces.
    assert str(parse_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("\rx", "x"),
        ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
        (
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        ),
        (
            "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
        ),
        ("foo  in\t (abc)", "foo in (abc)"),
        ("x notin\n (abc)", "x notin (abc)"),
        ("x  notin\t\t\t(abc,def)", "x notin (abc,def)"),
        ("x in (abc,def)", "x in (abc,def)"),
        ("x in (def,abc,def)", "x in (abc,def)"),  # a set: sorted, de-duplicated
        ("x in (abc,)", "x in (,abc)"),
        ("x in ()", "x in ()"),
        ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
        ("x,y in (a)", "x,y in (a)"),
        ("x=a", "x=a"),
        ("x==a", "x==a"),
        ("x>1", "x>1"),
        ("x<7", "x<7"),
        ("x=a,y!=b", "x=a,y!=b"),
        ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
        ("x notin ( )", "x notin ()"),
        ("x notin (, a)", "x notin (,a)"),
        ("a ", "a"),
        ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
        ("in in (in),notin notin (notin)", "in in (in),notin notin (notin)"),
        ("notin=in", "notin=in"),
        ("z=1,a=2", "a=2,z=1"),  # deterministic: sorted by key
        ("!x,y", "!x,y"),
    ],
)
def test_parse_canonical_string(text, canonical):
    assert str(parse_selector(text)) == canonical


def test_parse_is_deterministic():
    assert str(parse_selector("x=a,a=x")) == str(parse_selector("a=x,x=a"))


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("x in (b,a)", (Requirement("x", "in", ("a", "b")),)),
        ("x", (Requirement("x", "exists"),)),
        ("!x", (Requirement("x", "!"),)),
        ("x=", (Requirement("x", "=", ("",)),)),
        ("x in ()", (Requirement("x", "in", ("",)),)),
        ("y!=b,x==a", (Requirement("x", "==", ("a",)), Requirement("y", "!=", ("b",)))),
        ("x>1", (Requirement("x", "gt", ("1",)),)),
        ("x<1", (Requirement("x", "lt", ("1",)),)),
    ],
)
def test_parse_requirements(text, requirements):
    assert parse_selector(text).requirements == requirements


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x=a||y=b",
         'unable to parse requirement: values[0][x]: Invalid value: "a||y": ' + LABEL_VALUE_REGEX),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": "
                "for 'Gt', 'Lt' operators, the value must be an integer"),
        ("x>", "unable to parse requirement: values[0]: Invalid value: \"\": "
               "for 'Gt', 'Lt' operators, the value must be an integer"),
        ("x>99999999999999999999", "unable to parse requirement: values[0]: Invalid value: "
         "\"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer"),
        ("x,,y", "found ',', expected: identifier after ','"),
        (",x,y", "found ',', expected: !, identifier, or 'end of string'"),
        ("x nott in (y)", f"unable to parse requirement: found 'nott', expected: {OPS}"),
        ("a in (xyz),", "found '', expected: identifier after ','"),
        ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"),
        ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"),
        ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
        ("a in x", "unable to parse requirement: found 'x' expected: '('"),
        ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
        ("a (", f"unable to parse requirement: found '(', expected: {OPS}"),
        ("(", "found '(', expected: !, identifier, or 'end of string'"),
        # Values must be label values, so a negative bound is rejected.
        ("x>-5", 'unable to parse requirement: values[0][x]: Invalid value: "-5": '
                 + LABEL_VALUE_REGEX),
        ("x=>1", "unable to parse requirement: found '>', expected: identifier"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("!!x", "unable to parse requirement: found '!', expected: identifier"),
        ("-x", 'unable to parse requirement: Invalid value: "-x": name part ' + QNAME_REGEX),
        (
            "a/b/c",
            'unable to parse requirement: Invalid value: "a/b/c": a valid label key '
            + QNAME_REGEX
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
        ("x in (a,-b)",
         'unable to parse requirement: values[0][x]: Invalid value: "-b": ' + LABEL_VALUE_REGEX),
        ("x=" + "v" * 64, f'unable to parse requirement: values[0][x]: Invalid value: "{"v" * 64}"'
                          ": must be no more than 63 characters"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(SelectorError) as info:
        parse_selector(text)
    assert info.value.message == message
    assert isinstance(info.value, BadRequest)
    assert info.value.to_status()["code"] == 400


# ------------------------------------------------------------------ matching

@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x", {"x": "z"}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("foo=bar", {"foo": "bar", "baz": "blah"}, True),
        ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
        ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
        # TestRequirementSelectorMatching
        ("x in (foo),y notin (alpha)", {"x": "foo", "y": "baz"}, True),
        ("x in (foo),y in (alpha)", {"x": "foo", "y": "baz"}, False),
        ("x notin (),y", {"y": ""}, True),
        ("!x,y", {"y": ""}, True),
        ("x notin (),!y", {"y": ""}, False),
        ("x in ()", {"y": "baz"}, False),
        ("x in ()", {"x": ""}, True),
        ("z>1", {"z": "2"}, True),
        ("z>1", {"z": "v2"}, False),
        ("z>1", {}, False),
        ("z<1", {"z": "-3"}, True),
        ("z>1", {"z": " 2"}, False),  # Go's ParseInt: no spaces
        ("z>1", {"z": "1_0"}, False),  # ... and no underscores
        ("x notin (a)", {}, True),
        ("x!=a", {}, True),
        ("x=", {"x": ""}, True),
        ("x=", {}, False),
    ],
)
def test_matches(text, labels, expected):
    assert parse_selector(text).matches(labels) is expected


def test_everything_and_nothing():
    assert Selector.everything().matches({"x": "y"})
    assert Selector.everything().matches(None)
    assert Selector.everything().empty()
    assert str(Selector.everything()) == ""
    nothing = Selector.nothing()
    assert nothing.nothing is True
    assert Selector.everything().nothing is False
    assert not nothing.matches({"x": "y"})
    assert not nothing.matches({})
    assert not nothing.empty()
    assert str(nothing) == ""
    assert nothing == Selector((), nothing=True)
    assert nothing != Selector.everything()
    assert parse_selector("") == Selector.everything()
    assert parse_selector("x").matches(None) is False
    assert parse_selector("!x").matches(None) is True


def test_selector_is_immutable_and_hashable():
    sel = parse_selector("b=1,a=2")
    with pytest.raises(AttributeError):
        sel.requirements = ()  # type: ignore[misc]
    assert hash(sel) == hash(parse_selector("a=2,b=1"))
    assert sel == parse_selector("a=2,b=1")


@pytest.mark.parametrize(
    ("requirement", "text"),
    [
        (Requirement("x", "in", ("def", "abc")), "x in (abc,def)"),
        (Requirement("y", "notin", ("jkl",)), "y notin (jkl)"),
        (Requirement("z", "exists"), "z"),
        (Requirement("z", "!"), "!z"),
        (Requirement("z", "notin", ("",)), "z notin ()"),
        (Requirement("x", "=", ("abc",)), "x=abc"),
        (Requirement("y", "==", ("jkl",)), "y==jkl"),
        (Requirement("z", "!=", ("a",)), "z!=a"),
        (Requirement("x", "gt", ("2",)), "x>2"),
        (Requirement("y", "lt", ("8",)), "y<8"),
    ],
)
def test_requirement_string(requirement, text):
    assert str(requirement) == text


def test_selector_string_joins_requirements():
    sel = Selector((
        Requirement("z", "!"), Requirement("y", "!=", ("jkl",)),
        Requirement("x", "notin", ("abc", "def")),
    ))
    assert str(sel) == "x notin (abc,def),y!=jkl,!z"


@pytest.mark.parametrize(
    ("key", "operator", "values", "message"),
    [
        ("x1", "in", (), "values: Invalid value: []: for 'in', 'notin' operators, "
                         "values set can't be empty"),
        ("x2", "notin", (), "values: Invalid value: []: for 'in', 'notin' operators, "
                            "values set can't be empty"),
        ("x5", "=", ("bar", "foo"), 'values: Invalid value: ["bar","foo"]: exact-match '
                                    "compatibility requires one single value"),
        ("x8", "exists", ("foo",), 'values: Invalid value: ["foo"]: values set must be empty '
                                   "for exists and does not exist"),
        ("x13", "gt", (), "values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one "
                          "value is required"),
        ("x14", "gt", ("bar",), "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, "
                                "the value must be an integer"),
        ("x16", "=", ("a" * 254,), f'values[0][x16]: Invalid value: "{"a" * 254}": must be no '
                                   "more than 63 characters"),
        ("x16", "=", ("-" * 64,), f'values[0][x16]: Invalid value: "{"-" * 64}": must be no '
                                  "more than 63 characters; " + LABEL_VALUE_REGEX),
        ("x17", "=", ("a b",), 'values[0][x17]: Invalid value: "a b": ' + LABEL_VALUE_REGEX),
        ("x18", "unsupportedOp", (), 'operator: Unsupported value: "unsupportedOp": supported '
         'values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"'),
        ("a" * 254, "exists", (), f'key: Invalid value: "{"a" * 254}": name part must be no '
                                  "more than 63 characters"),
        (
            "x", "in", (),
            "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
        ),
    ],
)
def test_requirement_create_errors(key, operator, values, message):
    with pytest.raises(SelectorError) as info:
        Requirement.create(key, operator, values)
    assert info.value.message == message


def test_requirement_create_aggregates_several_errors():
    with pytest.raises(SelectorError) as info:
        Requirement.create("-k", "in", ())
    assert info.value.message == (
        f'[key: Invalid value: "-k": name part {QNAME_REGEX}, values: Invalid value: []: '
        "for 'in', 'notin' operators, values set can't be empty]"
    )


@pytest.mark.parametrize(
    ("key", "operator", "values"),
    [
        ("x", "in", ("foo",)), ("x", "notin", ("foo",)), ("x", "exists", ()),
        ("x", "!", ()), ("1foo", "in", ("bar",)), ("1234", "in", ("bar",)),
        ("y", "gt", ("1",)), ("z", "lt", ("6",)),
    ],
)
def test_requirement_create_valid(key, operator, values):
    assert Requirement.create(key, operator, values) == Requirement(key, operator, values)


# --------------------------------------------------- LabelSelector conversion

@pytest.mark.parametrize(
    ("label_selector", "canonical", "nothing"),
    [
        (None, "", True),
        ({}, "", False),
        ({"matchLabels": {}, "matchExpressions": []}, "", False),
        ({"matchLabels": None}, "", False),
        ({"matchLabels": {"app": "web", "tier": "fe"}}, "app=web,tier=fe", False),
        (
            {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}]},
            "env in (dev,prod)", False,
        ),
        (
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [
                    {"key": "env", "operator": "NotIn", "values": ["qa"]},
                    {"key": "canary", "operator": "DoesNotExist"},
                    {"key": "track", "operator": "Exists", "values": []},
                ],
            },
            "app=web,!canary,env notin (qa),track", False,
        ),
    ],
)
def test_selector_from_label_selector(label_selector, canonical, nothing):
    sel = selector_from_label_selector(label_selector)
    assert str(sel) == canonical
    assert sel.nothing is nothing
    assert sel.empty() is (not nothing and canonical == "")


@pytest.mark.parametrize(
    ("label_selector", "labels", "expected"),
    [
        (None, {"app": "web"}, False),
        (None, {}, False),
        ({}, {"app": "web"}, True),
        ({}, None, True),
        ({"matchLabels": {"app": "web"}}, {"app": "web", "x": "y"}, True),
        ({"matchLabels": {"app": "web"}}, {"app": "db"}, False),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]}]},
         {"env": "b"}, True),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["a"]}]},
         {}, True),
        ({"matchExpressions": [{"key": "env", "operator": "Exists"}]}, {"env": ""}, True),
        ({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]},
         {"env": ""}, False),
    ],
)
def test_label_selector_matching(label_selector, labels, expected):
    assert selector_from_label_selector(label_selector).matches(labels) is expected


@pytest.mark.parametrize(
    ("label_selector", "message"),
    [
        ({"matchExpressions": [{"key": "a", "operator": "Seriously"}]},
         '"Seriously" is not a valid label selector operator'),
        ({"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]},
         '"in" is not a valid label selector operator'),
        ({"matchExpressions": [{"key": "a"}]}, '"" is not a valid label selector operator'),
        ({"matchExpressions": [{"key": "a", "operator": None}]},
         '"" is not a valid label selector operator'),
        ({"matchLabels": ["a=b"]}, 'matchLabels: Invalid value: ["a=b"]: must be an object'),
        ({"matchExpressions": {"key": "a"}},
         'matchExpressions: Invalid value: {"key":"a"}: must be an array'),
        ({"matchExpressions": [{"key": "name", "operator": "In", "values": []}]},
         "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"),
        ({"matchExpressions": [{"key": "name", "operator": "Exists", "values": ["x"]}]},
         'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'),
        ({"matchLabels": {"app": "-web"}},
         'values[0][app]: Invalid value: "-web": ' + LABEL_VALUE_REGEX),
        ({"matchLabels": {"-app": "web"}}, 'key: Invalid value: "-app": name part ' + QNAME_REGEX),
    ],
)
def test_selector_from_label_selector_errors(label_selector, message):
    with pytest.raises(SelectorError) as info:
        selector_from_label_selector(label_selector)
    assert info.value.message == message


# ----------------------------------------------------------------- validation

LABELS = FieldPath.root("metadata", "labels")
SEL = FieldPath.root("spec", "selector")


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (None, []),
        ({}, []),
        ({"app": "web", "example.com/tier": "", "a.b/c_d": "E.f-1"}, []),
        ({"-app": "web"}, [f'metadata.labels: Invalid value: "-app": name part {QNAME_REGEX}']),
        ({"app": "we b"}, [f'metadata.labels: Invalid value: "we b": {LABEL_VALUE_REGEX}']),
        (
            {"Example.com/x": "y"},
            [
                'metadata.labels: Invalid value: "Example.com/x": prefix part a lowercase RFC '
                "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'example.com', "
                "regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ],
        ),
        (
            {"app": "v" * 64},
            [f'metadata.labels: Invalid value: "{"v" * 64}": must be no more than 63 characters'],
        ),
        ({"app": 3}, ["metadata.labels[app]: Invalid value: 3: must be a string"]),
        ({"app": True}, ["metadata.labels[app]: Invalid value: true: must be a string"]),
        (
            ["app=web"],
            ['metadata.labels: Invalid value: ["app=web"]: must be a map of string keys to '
             "string values"],
        ),
    ],
)
def test_validate_labels(labels, expected):
    assert [str(e) for e in validate_labels(labels, LABELS)] == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, []),
        ({}, []),
        ({"matchLabels": {"app": "web"}}, []),
        (
            {"matchExpressions": [
                {"key": "a", "operator": "In", "values": ["x"]},
                {"key": "b", "operator": "NotIn", "values": ["y", ""]},
                {"key": "c", "operator": "Exists"},
                {"key": "d", "operator": "DoesNotExist", "values": []},
            ]},
            [],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "In"}]},
            ["spec.selector.matchExpressions[0].values: Required value: must be specified when "
             "`operator` is 'In' or 'NotIn'"],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]},
            ["spec.selector.matchExpressions[0].values: Required value: must be specified when "
             "`operator` is 'In' or 'NotIn'"],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
             "`operator` is 'Exists' or 'DoesNotExist'"],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "DoesNotExist", "values": ["x"]}]},
            ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
             "`operator` is 'Exists' or 'DoesNotExist'"],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]},
            ['spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid '
             "selector operator"],
        ),
        (
            {"matchExpressions": [{"key": "-a", "operator": "Exists"}]},
            [f'spec.selector.matchExpressions[0].key: Invalid value: "-a": name part '
             f"{QNAME_REGEX}"],
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["ok", "-bad"]}]},
            [f'spec.selector.matchExpressions[0].values[1]: Invalid value: "-bad": '
             f"{LABEL_VALUE_REGEX}"],
        ),
        (
            {"matchLabels": {"-x": "y"},
             "matchExpressions": [{"key": "a", "operator": "Bogus"}]},
            [
                f'spec.selector.matchLabels: Invalid value: "-x": name part {QNAME_REGEX}',
                'spec.selector.matchExpressions[0].operator: Invalid value: "Bogus": not a '
                "valid selector operator",
            ],
        ),
        (
            {"matchExpressions": [{"operator": "Exists"}]},
            [
                'spec.selector.matchExpressions[0].key: Invalid value: "": name part must be '
                "non-empty",
                f'spec.selector.matchExpressions[0].key: Invalid value: "": name part '
                f"{QNAME_REGEX}",
            ],
        ),
    ],
)
def test_validate_label_selector(selector, expected):
    assert [str(e) for e in validate_label_selector(selector, SEL)] == expected


def test_validate_label_selector_error_types():
    errors = validate_label_selector(
        {"matchExpressions": [{"key": "a", "operator": "In"},
                              {"key": "a", "operator": "Exists", "values": ["x"]},
                              {"key": "a", "operator": "Nope"}]},
        SEL,
    )
    assert [e.type for e in errors] == ["Required", "Forbidden", "Invalid"]
