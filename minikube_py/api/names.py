"""Kubernetes' string-format validators, with Kubernetes' own messages.

Every ``is_*`` function takes a candidate value and returns a ``list[str]`` of
problems, each worded exactly as ``k8s.io/apimachinery/pkg/util/validation``
words it (e.g. ``must be no more than 63 characters`` or the long
``a lowercase RFC 1123 label must consist of ... (e.g. 'my-name',  or
'123-abc', regex used for validation is '...')`` form). An empty list means
valid. Callers wrap each message in a :class:`~.errors.FieldError` of type
``Invalid`` at the path being checked, as Kubernetes does.

Contracts worth knowing:

* Lengths are counted in UTF-8 bytes, as Go's ``len`` does, so a non-ASCII
  value may get a "too long" message before Python's ``len`` would say so.
* Patterns must match the *whole* value (Go ``^...$`` semantics; a trailing
  newline is never forgiven).
* :func:`is_env_var_name` applies the rule kube-apiserver 1.32 applies to
  container ``env[].name`` by default (``RelaxedEnvironmentVariableValidation``
  is on by default from 1.32): any printable ASCII except ``=``.
* ``name_is_dns_subdomain`` / ``name_is_dns_label`` mirror ``ValidateNameFunc``:
  with ``prefix=True`` (validating a ``generateName``) a trailing ``-`` is
  allowed, because random characters will be appended after it.

Messages follow upstream apimachinery as of the 1.33+ sources; see the notes in
:func:`is_qualified_name` and :func:`is_dns1123_label` for the two wordings that
are newer than 1.32.
"""

from __future__ import annotations

import re

from .errors import FieldError, FieldPath, invalid, required, type_invalid

__all__ = [
    "NAMESPACE_NODE_LEASE",
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "QUALIFIED_NAME_MAX_LENGTH",
    "empty_error",
    "inclusive_range_error",
    "is_c_identifier",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_env_var_name",
    "is_qualified_name",
    "is_valid_label_value",
    "is_valid_port_name",
    "is_valid_port_num",
    "max_len_error",
    "name_is_dns1035_label",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "regex_error",
    "validate_object_meta_name",
]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
QUALIFIED_NAME_MAX_LENGTH = 63
#: ``v1.NamespaceNodeLease``: where each node's heartbeat Lease lives, named after it.
NAMESPACE_NODE_LEASE = "kube-node-lease"
LABEL_VALUE_MAX_LENGTH = 63
PORT_NAME_MAX_LENGTH = 15


# ------------------------------------------------------------- message helpers


def max_len_error(length: int) -> str:
    """``must be no more than N characters``."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """``must be non-empty``."""
    return "must be non-empty"


def inclusive_range_error(lo: int, hi: int) -> str:
    """``must be between LO and HI, inclusive``."""
    return f"must be between {lo} and {hi}, inclusive"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Kubernetes' rendering of a failed pattern check.

    The double space before each ``or`` is deliberate: Kubernetes builds the
    example list as ``'x', `` + `` or `` and users (and tests across the
    ecosystem) match the resulting text byte for byte.
    """
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    listed = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {listed}regex used for validation is '{fmt}')"


def _byte_len(value: str) -> int:
    # Go measures strings in bytes; most values are ASCII, where both agree.
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------- DNS names

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)


def is_dns1123_label(value: str) -> list[str]:
    """An RFC 1123 label: lower-case alphanumerics and ``-``, at most 63 bytes.

    A value that would be a valid *subdomain* only fails because of its dots,
    so Kubernetes (since 1.33) says just ``must not contain dots`` for it; 1.32
    still printed the long regex message there.
    """
    errs: list[str] = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if _DNS1123_LABEL_RE.fullmatch(value) is None:
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None:
            errs.append("must not contain dots")
        else:
            errs.append(
                regex_error(_DNS1123_LABEL_ERR, _DNS1123_LABEL_FMT, "my-name", "123-abc")
            )
    return errs


_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)


def is_dns1035_label(value: str) -> list[str]:
    """An RFC 1035 label (what a Service name must be): like an RFC 1123
    label, but starting with a letter."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if _DNS1035_LABEL_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1035_LABEL_ERR, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """An RFC 1123 subdomain: dot-separated labels, at most 253 bytes."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


# ------------------------------------------------------ qualified names / labels

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_QNAME_RE = re.compile(_QNAME_FMT)
_QNAME_EXAMPLES = ("MyName", "my.name", "123-abc")

_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)


def is_qualified_name(value: str) -> list[str]:
    """A label key / qualified name: ``[prefix/]name``.

    The optional prefix is a DNS subdomain; the name is at most 63 bytes of
    alphanumerics, ``-``, ``_`` and ``.``, starting and ending alphanumeric.
    More than one ``/`` gets a single summary message, worded as current
    upstream words it (``a valid label key ...``; 1.32 said ``a qualified
    name ...`` with otherwise identical text).
    """
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + regex_error(_QNAME_ERR, _QNAME_FMT, *_QNAME_EXAMPLES)
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + empty_error())
    elif _byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if _QNAME_RE.fullmatch(name) is None:
        errs.append("name part " + regex_error(_QNAME_ERR, _QNAME_FMT, *_QNAME_EXAMPLES))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """A label value: empty, or up to 63 bytes shaped like a qualified name."""
    errs: list[str] = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        errs.append(
            regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs


# ------------------------------------------------------------------ ports

_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER_RE = re.compile("[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    """An IANA_SVC_NAME (RFC 6335), lower case only: 1-15 of ``[-a-z0-9]``,
    at least one letter, no leading/trailing or doubled hyphen. Every rule that
    fails contributes its own message."""
    errs: list[str] = []
    if _byte_len(port) > PORT_NAME_MAX_LENGTH:
        errs.append(max_len_error(PORT_NAME_MAX_LENGTH))
    if _PORT_NAME_CHARSET_RE.fullmatch(port) is None:
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if _PORT_NAME_LETTER_RE.search(port) is None:
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_valid_port_num(port: int) -> list[str]:
    """A non-zero TCP/UDP port number, 1-65535."""
    if 1 <= port <= 65535:
        return []
    return [inclusive_range_error(1, 65535)]


# --------------------------------------------------------- identifiers / env

_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_ERR = (
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'"
)
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)

_RELAXED_ENV_ERR = (
    "a valid environment variable name must consist only of printable ASCII characters "
    "other than '='"
)


def is_c_identifier(value: str) -> list[str]:
    """A C identifier (format only; no length limit)."""
    if _C_IDENTIFIER_RE.fullmatch(value) is None:
        return [regex_error(_C_IDENTIFIER_ERR, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]
    return []


def is_env_var_name(value: str) -> list[str]:
    """An environment variable name as kube-apiserver 1.32 accepts it for
    container ``env``: non-empty, printable ASCII (space through ``~``), no
    ``=``. At most one message per rule, as upstream."""
    errs: list[str] = []
    if not value:
        errs.append("environment variable name " + empty_error())
    for ch in value:
        if not " " <= ch <= "~" or ch == "=":
            errs.append(_RELAXED_ENV_ERR)
            break
    return errs


# ---------------------------------------------------------- object names


def _mask_trailing_dash(name: str) -> str:
    # A generateName like "web-" gets random characters appended, so the dash
    # is not really last. Kubernetes replaces the last *two* characters with
    # "a" (so "b-" -> "a", "-foo-" -> "-foa"); a lone "-" is left alone.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``ValidateNameFunc`` for names that must be DNS subdomains (most kinds)."""
    if prefix:
        name = _mask_trailing_dash(name)
    return is_dns1123_subdomain(name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``ValidateNameFunc`` for names that must be DNS labels (e.g. Namespace)."""
    if prefix:
        name = _mask_trailing_dash(name)
    return is_dns1123_label(name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNS1035Label``: names that must be DNS-1035 labels (Services)."""
    if prefix:
        name = _mask_trailing_dash(name)
    return is_dns1035_label(name)


def validate_object_meta_name(
    name: object, path: FieldPath, *, dns_label: bool
) -> list[FieldError]:
    """Validate ``metadata.name`` (``path`` is the path *of the name field*).

    Empty or missing gives ``Required value: name or generateName is required``
    (name generation is expected to have run already); otherwise one
    ``Invalid`` error per failed rule, as ``ValidateObjectMetaAccessor`` reports.
    """
    if name is None or name == "":
        return [required(path, "name or generateName is required")]
    if not isinstance(name, str):
        return [type_invalid(path, name, "must be a string")]
    check = name_is_dns_label if dns_label else name_is_dns_subdomain
    return [invalid(path, name, msg) for msg in check(name, False)]
