"""Kubernetes' name/format validators: valid and invalid rows with exact messages.

Valid/invalid values come from apimachinery's ``validation_test.go`` and
``generic_test.go``; messages are Kubernetes' literal texts.
"""

from __future__ import annotations

import pytest

from minikube_py.api.errors import FieldPath
from minikube_py.api.names import (
    is_c_identifier,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_env_var_name,
    is_qualified_name,
    is_valid_label_value,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_object_meta_name,
)

LABEL_REGEX = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
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
C_IDENT_REGEX = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
    "for validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
ENV_RELAXED = (
    "a valid environment variable name must consist only of printable ASCII characters "
    "other than '='"
)


# ------------------------------------------------------------ DNS-1123 label

DNS_LABEL_GOOD = [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b",
    "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a" * 63,
]
DNS_LABEL_BAD = [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A",
    "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "1.", ".1",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    "a\n",
]


@pytest.mark.parametrize("value", DNS_LABEL_GOOD)
def test_dns1123_label_valid(value):
    assert is_dns1123_label(value) == []


@pytest.mark.parametrize("value", DNS_LABEL_BAD)
def test_dns1123_label_invalid(value):
    assert is_dns1123_label(value) == [LABEL_REGEX]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # A valid subdomain that is not a label can only be failing on dots.
        ("a.b", ["must not contain dots"]),
        ("1.2", ["must not contain dots"]),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("A" * 64, ["must be no more than 63 characters", LABEL_REGEX]),
        # Lengths are bytes, as in Go: 32 two-byte characters are 64 bytes.
        ("é" * 32, ["must be no more than 63 characters", LABEL_REGEX]),
    ],
)
def test_dns1123_label_messages(value, expected):
    assert is_dns1123_label(value) == expected


# -------------------------------------------------------- DNS-1123 subdomain

DNS_SUBDOMAIN_GOOD = [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b",
    "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a",
    "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1",
    "0.a", "01.a", "012.a", "1a.a", "1-a.a",
    "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1",
    "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55",
    "a" * 253,
]
DNS_SUBDOMAIN_BAD = [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A",
    "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "a..b", "1.", ".1", "1..2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    "A.a", "aB.a", "ab.A", "A1.a", "a1.A",
    "A.1", "aB.1", "A1.1", "1A.1",
    "0.A", "01.A", "012.A", "1A.a", "1a.A",
    "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee",
    "a@b", "a,b", "a;b", "a:b", "a%b", "a?b", "a$b",
]


@pytest.mark.parametrize("value", DNS_SUBDOMAIN_GOOD)
def test_dns1123_subdomain_valid(value):
    assert is_dns1123_subdomain(value) == []


@pytest.mark.parametrize("value", DNS_SUBDOMAIN_BAD)
def test_dns1123_subdomain_invalid(value):
    assert is_dns1123_subdomain(value) == [SUBDOMAIN_REGEX]


def test_dns1123_subdomain_too_long():
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]


# ---------------------------------------------------------- qualified names

QNAME_GOOD = [
    "simple", "now-with-dashes", "1-starts-with-num", "1234",
    "simple/simple", "now-with-dashes/simple", "now-with-dashes/now-with-dashes",
    "now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num",
    "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo", "a" * 63, "a" * 253 + "/" + "b" * 63,
]


@pytest.mark.parametrize("value", QNAME_GOOD)
def test_qualified_name_valid(value):
    assert is_qualified_name(value) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("nospecialchars%^=@", ["name part " + QNAME_REGEX]),
        ("cantendwithadash-", ["name part " + QNAME_REGEX]),
        ("-cantstartwithadash-", ["name part " + QNAME_REGEX]),
        (
            "only/one/slash",
            ["a valid label key " + QNAME_REGEX
             + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"],
        ),
        ("Example.com/abc", ["prefix part " + SUBDOMAIN_REGEX]),
        ("example_com/abc", ["prefix part " + SUBDOMAIN_REGEX]),
        ("example.com/", ["name part must be non-empty", "name part " + QNAME_REGEX]),
        ("/simple", ["prefix part must be non-empty"]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
        (
            "a" * 254 + "/abc",
            ["prefix part must be no more than 253 characters"],
        ),
        ("", ["name part must be non-empty", "name part " + QNAME_REGEX]),
    ],
)
def test_qualified_name_invalid(value, expected):
    assert is_qualified_name(value) == expected


# -------------------------------------------------------------- label values

@pytest.mark.parametrize(
    "value",
    ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", "a" * 63, ""],
)
def test_label_value_valid(value):
    assert is_valid_label_value(value) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("nospecialchars%^=@", [LABEL_VALUE_REGEX]),
        ("Tama-nui-te-rā.is.Māori.sun", [LABEL_VALUE_REGEX]),
        ("\\backslashes\\are\\bad", [LABEL_VALUE_REGEX]),
        ("-starts-with-dash", [LABEL_VALUE_REGEX]),
        ("ends-with-dash-", [LABEL_VALUE_REGEX]),
        (".starts.with.dot", [LABEL_VALUE_REGEX]),
        ("ends.with.dot.", [LABEL_VALUE_REGEX]),
        ("a" * 64, ["must be no more than 63 characters"]),
    ],
)
def test_label_value_invalid(value, expected):
    assert is_valid_label_value(value) == expected


# ------------------------------------------------------------------- ports

@pytest.mark.parametrize(
    "value", ["telnet", "re-mail-ck", "pop3", "a", "a-1", "1-a", "a-1-b-2-c", "1-a-2-b-3"]
)
def test_port_name_valid(value):
    assert is_valid_port_name(value) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("longerthan15characters", ["must be no more than 15 characters"]),
        (
            "",
            [
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "must contain at least one letter (a-z)",
            ],
        ),
        ("a" * 16, ["must be no more than 15 characters"]),
        ("12345", ["must contain at least one letter (a-z)"]),
        ("1-2-3-4", ["must contain at least one letter (a-z)"]),
        ("-begin", ["must not begin or end with a hyphen"]),
        ("end-", ["must not begin or end with a hyphen"]),
        ("two--hyphens", ["must not contain consecutive hyphens"]),
        ("whois++", ["must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"]),
        ("HTTP", [
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            "must contain at least one letter (a-z)",
        ]),
    ],
)
def test_port_name_invalid(value, expected):
    assert is_valid_port_name(value) == expected


@pytest.mark.parametrize("value", [1, 2, 1000, 16384, 32768, 65535])
def test_port_num_valid(value):
    assert is_valid_port_num(value) == []


@pytest.mark.parametrize("value", [0, -1, 65536, 100000])
def test_port_num_invalid(value):
    assert is_valid_port_num(value) == ["must be between 1 and 65535, inclusive"]


# ---------------------------------------------------------- env vars, C idents

ENV_GOOD = [
    "-", ":", "_", "+a", ">a", "<a",
    "a.", "a..", "*a", "%a", "?a",
    "a:a", "a_a", "aAz", "~a", "|a",
    "a0a", "a9", "/a", "a ", "#a",
    "0a", "0 a", "'a", "(a", "@a",
    # Formerly rejected by the strict rule; allowed by default since 1.32.
    "1ABC", "..", ".",
]
ENV_BAD_CHARS = [
    "=", "a=", "1=a", "a=b", "#%=&&",
    chr(1) + "abc", chr(130) + "abc",
    "Ç ç", "Ä ä", "Ñ ñ", "Ø ø", "a\tb", "a\x7f",
]


@pytest.mark.parametrize("value", ENV_GOOD)
def test_env_var_name_valid(value):
    assert is_env_var_name(value) == []


@pytest.mark.parametrize("value", ENV_BAD_CHARS)
def test_env_var_name_invalid(value):
    assert is_env_var_name(value) == [ENV_RELAXED]


def test_env_var_name_empty():
    assert is_env_var_name("") == ["environment variable name must be non-empty"]


@pytest.mark.parametrize("value", ["a", "_", "_a", "A_1", "my_name", "MY_NAME", "MyName"])
def test_c_identifier_valid(value):
    assert is_c_identifier(value) == []


@pytest.mark.parametrize("value", ["", "1a", "a-b", "a.b", "a b", "é", "a\n"])
def test_c_identifier_invalid(value):
    assert is_c_identifier(value) == [C_IDENT_REGEX]


# ---------------------------------------------------------- ValidateNameFunc

@pytest.mark.parametrize(
    ("name", "prefix", "expected"),
    [
        ("web", False, []),
        ("web.example", False, []),
        ("web-", False, [SUBDOMAIN_REGEX]),
        # generateName: the trailing dash is masked (last two chars -> "a").
        ("web-", True, []),
        ("b-", True, []),
        ("-foo-", True, [SUBDOMAIN_REGEX]),  # masked to "-foa", still bad
        ("-", True, [SUBDOMAIN_REGEX]),  # a lone dash is not masked
        ("", True, [SUBDOMAIN_REGEX]),
        ("Web-", True, [SUBDOMAIN_REGEX]),
    ],
)
def test_name_is_dns_subdomain(name, prefix, expected):
    assert name_is_dns_subdomain(name, prefix) == expected


@pytest.mark.parametrize(
    ("name", "prefix", "expected"),
    [
        ("kube-system", False, []),
        ("kube.system", False, ["must not contain dots"]),
        ("kube-", False, [LABEL_REGEX]),
        ("kube-", True, []),
        ("a" * 62 + "-", True, []),
        ("a" * 64 + "-", True, ["must be no more than 63 characters"]),
    ],
)
def test_name_is_dns_label(name, prefix, expected):
    assert name_is_dns_label(name, prefix) == expected


NAME_PATH = FieldPath.root("metadata", "name")


@pytest.mark.parametrize(
    ("name", "dns_label", "expected"),
    [
        ("web", False, []),
        ("web.v1", False, []),
        ("", False, ["metadata.name: Required value: name or generateName is required"]),
        (None, True, ["metadata.name: Required value: name or generateName is required"]),
        ("Web", False, [f'metadata.name: Invalid value: "Web": {SUBDOMAIN_REGEX}']),
        ("web.v1", True, ['metadata.name: Invalid value: "web.v1": must not contain dots']),
        (
            "a" * 64,
            True,
            [f'metadata.name: Invalid value: "{"a" * 64}": must be no more than 63 characters'],
        ),
        (7, False, ["metadata.name: Invalid value: 7: must be a string"]),
    ],
)
def test_validate_object_meta_name(name, dns_label, expected):
    errors = validate_object_meta_name(name, NAME_PATH, dns_label=dns_label)
    assert [str(e) for e in errors] == expected
