"""ObjectMeta validation, and the helpers the other validation modules share.

Mirrors ``k8s.io/apimachinery/pkg/api/validation/objectmeta.go`` plus the
finalizer-name check ``pkg/apis/core/validation`` adds. Paths and messages are
Kubernetes' own, including its quirks (owner reference errors are reported at
``metadata.ownerReferences`` without an index; finalizer format errors at
``metadata.finalizers`` without one).

Bad values are rendered the way Go's ``field.Error`` renders them. Most are
strings or numbers, which :class:`~.errors.FieldError` already prints like Go.
For the few Go structs Kubernetes puts in messages (a ``LabelSelector``, an
``IntOrString``, a label map) :class:`GoValue` carries the text Go prints.
Where Go would print a pointer address, ``0x...`` stands in for it.
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import FieldError, FieldPath, forbidden, invalid, not_supported, required, too_long
from .labels import validate_labels
from .names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    regex_error,
    validate_object_meta_name,
)
from .timefmt import parse_datetime

IS_NEGATIVE_MSG = "must be greater than or equal to 0"
IMMUTABLE_MSG = "field is immutable"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

# ---------------------------------------------------------------- accessors


def as_map(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else an empty mapping."""
    # A plain dict first: the ABC check costs several times as much, and
    # validation asks this of nearly every value it reads.
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty list."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """``value`` if it is a string, else ``""`` (Go's zero value)."""
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int | None:
    """``value`` if it is a JSON integer, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


# ------------------------------------------------------------ Go rendering


class GoValue:
    """A bad value that Kubernetes prints with Go's ``%v``/``%#v``/``String()``.

    :class:`~.errors.FieldError` falls back to ``repr()`` for values it cannot
    render as JSON, so ``repr`` is the Go text, printed bare.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoValue) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def go_quote(value: str) -> str:
    """Go's ``%q`` for printable text (JSON quoting agrees there)."""
    return json.dumps(value, ensure_ascii=False)


def go_string_map(value: Any) -> GoValue:
    """``%#v`` of a ``map[string]string``: keys sorted, ``(nil)`` when absent."""
    if not isinstance(value, Mapping):
        return GoValue("map[string]string(nil)")
    body = ", ".join(
        f"{go_quote(str(k))}:{go_quote(as_str(v))}" for k, v in sorted(value.items()))
    return GoValue(f"map[string]string{{{body}}}")


def go_string_slice(values: Iterable[Any]) -> GoValue:
    """``%#v`` of a ``[]string``."""
    return GoValue("[]string{" + ", ".join(go_quote(as_str(v)) for v in values) + "}")


def go_label_selector(value: Any) -> GoValue:
    """``(*metav1.LabelSelector).String()`` (gogo-protobuf), as Kubernetes
    prints ``spec.selector`` in messages."""
    if not isinstance(value, Mapping):
        return GoValue("nil")
    labels = "".join(
        f"{k}: {as_str(v)}," for k, v in sorted(as_map(value.get("matchLabels")).items()))
    exprs = ""
    for expr in as_list(value.get("matchExpressions")):
        expr = as_map(expr)
        values = " ".join(as_str(v) for v in as_list(expr.get("values")))
        exprs += (f"LabelSelectorRequirement{{Key:{as_str(expr.get('key'))},"
                  f"Operator:{as_str(expr.get('operator'))},Values:[{values}],}},")
    return GoValue(
        f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def go_int_or_string(value: Any) -> GoValue:
    """``IntOrString.String()``: the number or the string, unquoted."""
    if isinstance(value, bool) or value is None:
        return GoValue("0")
    return GoValue(str(value))


def go_time(value: Any) -> GoValue:
    """``time.Time.String()`` of an RFC 3339 timestamp, in UTC; ``null`` when
    absent (a nil ``*metav1.Time``)."""
    if not isinstance(value, str) or not value:
        return GoValue("null")
    parsed = parse_datetime(value, naive_utc=True)
    if parsed is None:
        return GoValue(value)
    parsed = parsed.astimezone(_dt.UTC)
    frac = f".{parsed.microsecond:06d}".rstrip("0") if parsed.microsecond else ""
    return GoValue(parsed.strftime("%Y-%m-%d %H:%M:%S") + frac + " +0000 UTC")


# ------------------------------------------------------- error constructors


def nonnegative(value: Any, path: FieldPath) -> list[FieldError]:
    """``ValidateNonnegativeField``."""
    number = as_int(value)
    if number is not None and number < 0:
        return [invalid(path, number, IS_NEGATIVE_MSG)]
    return []


def immutable(new: Any, old: Any, path: FieldPath, shown: Any = None) -> list[FieldError]:
    """``ValidateImmutableField``: Semantic deep-equality (an absent value
    equals an empty one), reporting ``shown`` (default: ``new``)."""
    if semantic_equal(new, old):
        return []
    return [invalid(path, new if shown is None else shown, IMMUTABLE_MSG)]


def semantic_equal(a: Any, b: Any) -> bool:
    """``apiequality.Semantic.DeepEqual`` on JSON values: ``None``, ``{}`` and
    ``[]`` are interchangeable, as nil and empty maps/slices are in Go."""
    if _empty(a) and _empty(b):
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        keys = set(a) | set(b)
        return all(semantic_equal(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(semantic_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b and type(a) is type(b))


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, Mapping | list) and not value)


# ------------------------------------------------------------ small checks

Errs = list[FieldError]
MAX_INT32 = 2**31 - 1
FILE_MODE_MSG = "must be a number between 0 and 0777 (octal), both inclusive"



def dns_label(value: str, path: FieldPath) -> Errs:
    return [invalid(path, value, msg) for msg in is_dns1123_label(value)]


def dns_subdomain(value: str, path: FieldPath) -> Errs:
    return [invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]


def qualified_name(value: str, path: FieldPath) -> Errs:
    return [invalid(path, value, msg) for msg in is_qualified_name(value)]


def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``netutils.ParseIPSloppy``: the address, or ``None`` when Go would not
    parse it. Like Go, IPv4 octets may have leading zeros (read as decimal);
    unlike Python, an IPv6 zone (``fe80::1%eth0``) is not an address."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        parts = value.split(".")
        if len(parts) == 4 and all(p.isdigit() and p.isascii() and int(p) <= 255
                                   for p in parts):
            return ipaddress.IPv4Address(".".join(str(int(p)) for p in parts))
        return None


def parse_ip(value: str) -> bool:
    """Whether ``netutils.ParseIPSloppy`` parses ``value``."""
    return parse_ip_sloppy(value) is not None


def valid_ip(value: str, path: FieldPath) -> Errs:
    if parse_ip(value):
        return []
    return [invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]


_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_KEY_RE = re.compile(_CONFIG_KEY_FMT)


def config_map_key(value: str) -> list[str]:
    """``validation.IsConfigMapKey``."""
    msgs: list[str] = []
    if len(value) > 253:
        msgs.append("must be no more than 253 characters")
    if not _CONFIG_KEY_RE.fullmatch(value):
        msgs.append(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            _CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if value == ".":
        msgs.append("must not be '.'")
    elif value == "..":
        msgs.append("must not be '..'")
    elif value.startswith(".."):
        msgs.append("must not start with '..'")
    return msgs


def enum_value(value: str, path: FieldPath, allowed: tuple[str, ...], *,
          required_when_empty: bool = True) -> Errs:
    """``Required`` when empty, ``NotSupported`` (in ``allowed`` order) when unknown."""
    if value in allowed:
        return []
    if not value and required_when_empty:
        return [required(path, "")]
    return [not_supported(path, value, allowed)]


def no_backsteps(value: str, path: FieldPath) -> Errs:
    if ".." in value.replace("\\", "/").split("/"):
        return [invalid(path, value, "must not contain '..'")]
    return []


def local_descending_path(value: str, path: FieldPath) -> Errs:
    errs: Errs = []
    if value.startswith("/"):
        errs.append(invalid(path, value, "must be a relative path"))
    return errs + no_backsteps(value, path)


def local_non_reserved_path(value: str, path: FieldPath) -> Errs:
    errs = local_descending_path(value, path)
    if value.startswith("..") and not value.startswith("../"):
        errs.append(invalid(path, value, "must not start with '..'"))
    return errs


def file_mode(value: Any, path: FieldPath) -> Errs:
    mode = as_int(value)
    if mode is not None and not 0 <= mode <= 0o777:
        return [invalid(path, mode, FILE_MODE_MSG)]
    return []


# ----------------------------------------------------------------- names


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: the rule every name must pass, and the
    only one core/v1 Events have."""
    if not prefix:
        for illegal in (".", ".."):
            if name == illegal:
                return [f"may not be '{illegal}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


NAME_RULES = {
    "subdomain": name_is_dns_subdomain,
    "label": name_is_dns_label,
    "dns1035-label": name_is_dns1035_label,
    "path-segment": path_segment_name,
}


def validate_name(meta: Mapping[str, Any], path: FieldPath, rule: str) -> list[FieldError]:
    """``generateName`` and ``name`` checks of ``ValidateObjectMetaAccessor``.

    Kubernetes generates the name before validating, so it always requires
    ``name``. Here an object that has a ``generateName`` and no ``name`` yet is
    accepted: the generated name (the prefix plus random lower-case
    alphanumerics) is valid exactly when the prefix passes as a prefix.
    """
    errs: list[FieldError] = []
    check = NAME_RULES[rule]
    generate_name = as_str(meta.get("generateName"))
    if generate_name:
        errs.extend(invalid(path.child("generateName"), generate_name, msg)
                    for msg in check(generate_name, True))
    name = meta.get("name")
    if name in (None, "") and generate_name:
        return errs
    if rule in ("subdomain", "label"):
        errs.extend(validate_object_meta_name(name, path.child("name"),
                                              dns_label=rule == "label"))
    elif name in (None, ""):
        errs.append(required(path.child("name"), "name or generateName is required"))
    else:
        errs.extend(invalid(path.child("name"), name, msg) for msg in check(as_str(name), False))
    return errs


# --------------------------------------------------------------- pieces


def validate_annotations(annotations: Any, path: FieldPath) -> list[FieldError]:
    """Keys are qualified names (case-insensitively); total size <= 256 KiB."""
    errs: list[FieldError] = []
    total = 0
    for key, value in as_map(annotations).items():
        errs.extend(invalid(path, key, msg) for msg in is_qualified_name(str(key).lower()))
        total += len(str(key).encode()) + len(as_str(value).encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: ``None`` when it does not parse."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _go_bool_ptr(value: Any) -> str:
    return "nil" if not isinstance(value, bool) else f"*{'true' if value else 'false'}"


def _owner_reference_string(ref: Mapping[str, Any]) -> GoValue:
    """``(*metav1.OwnerReference).String()``."""
    return GoValue(
        f"&OwnerReference{{Kind:{as_str(ref.get('kind'))},Name:{as_str(ref.get('name'))},"
        f"UID:{as_str(ref.get('uid'))},APIVersion:{as_str(ref.get('apiVersion'))},"
        f"Controller:{_go_bool_ptr(ref.get('controller'))},"
        f"BlockOwnerDeletion:{_go_bool_ptr(ref.get('blockOwnerDeletion'))},}}")


def _owner_references_gosyntax(refs: list[Any]) -> GoValue:
    """``%#v`` of ``[]metav1.OwnerReference`` (pointer addresses elided)."""

    def ptr(value: Any) -> str:
        return "(*bool)(nil)" if not isinstance(value, bool) else "(*bool)(0x...)"

    items = [
        f"v1.OwnerReference{{APIVersion:{go_quote(as_str(r.get('apiVersion')))}, "
        f"Kind:{go_quote(as_str(r.get('kind')))}, Name:{go_quote(as_str(r.get('name')))}, "
        f"UID:{go_quote(as_str(r.get('uid')))}, Controller:{ptr(r.get('controller'))}, "
        f"BlockOwnerDeletion:{ptr(r.get('blockOwnerDeletion'))}}}"
        for r in (as_map(x) for x in refs)
    ]
    return GoValue("[]v1.OwnerReference{" + ", ".join(items) + "}")


def validate_owner_references(refs: Any, path: FieldPath) -> list[FieldError]:
    """Required fields of each reference (reported at ``path``, unindexed, as
    Kubernetes does), no Event owners, at most one controller."""
    errs: list[FieldError] = []
    first_controller = ""
    items = as_list(refs)
    for raw in items:
        ref = as_map(raw)
        api_version = as_str(ref.get("apiVersion"))
        kind = as_str(ref.get("kind"))
        gv = _group_version(api_version)
        if gv is None or not gv[1]:
            errs.append(invalid(path.child("apiVersion"), api_version,
                                "version must not be empty"))
        if not kind:
            errs.append(invalid(path.child("kind"), kind, "must not be empty"))
        for key in ("name", "uid"):
            if not as_str(ref.get(key)):
                errs.append(invalid(path.child(key), as_str(ref.get(key)), "must not be empty"))
        if gv == ("", "v1") and kind == "Event":
            errs.append(invalid(path, _owner_reference_string(ref),
                                "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{as_str(ref.get('name'))}"
            if first_controller:
                errs.append(invalid(
                    path, _owner_references_gosyntax(items),
                    "Only one reference can have Controller set to true. Found \"true\" in "
                    f"references for {first_controller} and {current}"))
            else:
                first_controller = current
    return errs


STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def kube_finalizer_name(value: str, path: FieldPath) -> list[FieldError]:
    """``validateKubeFinalizerName``: unqualified names must be standard."""
    if "/" not in value and value not in STANDARD_FINALIZERS:
        return [invalid(path, value,
                        "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def validate_finalizers(finalizers: Any, path: FieldPath) -> list[FieldError]:
    """apimachinery ``ValidateFinalizers`` (format errors at ``path``)."""
    errs: list[FieldError] = []
    values = [as_str(f) for f in as_list(finalizers)]
    for value in values:
        errs.extend(invalid(path, value, msg) for msg in is_qualified_name(value))
    if "orphan" in values and "foregroundDeletion" in values:
        errs.append(invalid(path, go_string_slice(values),
                            "finalizer orphan and foregroundDeletion cannot be both set"))
    return errs


# ---------------------------------------------------------------- ObjectMeta


def validate_object_meta(
    meta_value: Any, *, namespaced: bool, name_rule: str, path: FieldPath | None = None,
) -> list[FieldError]:
    """Core ``ValidateObjectMeta``: name, namespace, generation, labels,
    annotations, owner references, finalizers."""
    path = path or FieldPath.root("metadata")
    meta = as_map(meta_value)
    errs = validate_name(meta, path, name_rule)
    namespace = as_str(meta.get("namespace"))
    if namespaced:
        if not namespace:
            errs.append(required(path.child("namespace"), ""))
        else:
            errs.extend(invalid(path.child("namespace"), namespace, msg)
                        for msg in name_is_dns_label(namespace, False))
    elif namespace:
        errs.append(forbidden(path.child("namespace"), "not allowed on this type"))
    # Checks run on the fields an object has: an absent or empty one has
    # nothing to report, so its path is not even built (most objects created,
    # every Event, have few of these).
    if meta.get("generation"):
        errs.extend(nonnegative(meta.get("generation"), path.child("generation")))
    for key, check in (("labels", validate_labels), ("annotations", validate_annotations),
                       ("ownerReferences", validate_owner_references)):
        value = meta.get(key)
        if value not in (None, {}, []):
            errs.extend(check(value, path.child(key)))
    finalizers = as_list(meta.get("finalizers"))
    if finalizers:
        errs.extend(validate_finalizers(finalizers, path.child("finalizers")))
        for i, finalizer in enumerate(finalizers):
            errs.extend(kube_finalizer_name(as_str(finalizer),
                                            path.child("finalizers").index(i)))
    return errs


def validate_object_meta_update(new_value: Any, old_value: Any,
                                path: FieldPath | None = None) -> list[FieldError]:
    """Core ``ValidateObjectMetaUpdate``.

    Like Kubernetes it requires ``metadata.resourceVersion`` on the new object:
    for an unconditional update the caller fills it in from the stored object
    before validating, as Kubernetes' registry does.
    """
    if type(new_value) is dict and type(old_value) is dict:
        version = new_value.get("resourceVersion")
        # Most updates (every lease renewal, every status write) leave metadata
        # as stored but for its resourceVersion: nothing below can then report.
        if version and type(version) is str and new_value == {
                **old_value, "resourceVersion": version}:
            return []
    path = path or FieldPath.root("metadata")
    new, old = as_map(new_value), as_map(old_value)
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        old_finalizers = {as_str(f) for f in as_list(old.get("finalizers"))}
        extra = sorted({as_str(f) for f in as_list(new.get("finalizers"))} - old_finalizers)
        if extra:
            errs.append(forbidden(
                path.child("finalizers"),
                "no new finalizers can be added if the object is being deleted, found new "
                f"finalizers {go_string_slice(extra)!r}"))
    if not as_str(new.get("resourceVersion")):
        errs.append(invalid(path.child("resourceVersion"), as_str(new.get("resourceVersion")),
                            "must be specified for an update"))
    new_gen, old_gen = as_int(new.get("generation")) or 0, as_int(old.get("generation")) or 0
    if new_gen < old_gen:
        errs.append(invalid(path.child("generation"), new_gen, "must not be decremented"))
    # Field paths are built only for a field with something to report: this
    # runs on every update (thousands of lease renewals a minute at scale).
    for key in ("name", "namespace", "uid"):
        new_text, old_text = as_str(new.get(key)), as_str(old.get(key))
        if new_text != old_text:
            errs.extend(immutable(new_text, old_text, path.child(key)))
    for key in ("creationTimestamp", "deletionTimestamp"):
        new_time, old_time = new.get(key), old.get(key)
        if not semantic_equal(new_time, old_time):
            shown = go_time(new_time)
            if key == "creationTimestamp" and shown.text == "null":
                shown = GoValue("0001-01-01 00:00:00 +0000 UTC")
            errs.append(invalid(path.child(key), shown, IMMUTABLE_MSG))
    grace, old_grace = new.get("deletionGracePeriodSeconds"), \
        old.get("deletionGracePeriodSeconds")
    if not semantic_equal(grace, old_grace):
        errs.extend(immutable(grace, old_grace, path.child("deletionGracePeriodSeconds")))
    for key, check in (("labels", validate_labels), ("annotations", validate_annotations),
                       ("ownerReferences", validate_owner_references)):
        value = new.get(key)
        # What the stored version already holds passed these checks when it was
        # written: only a change is checked again (most updates change neither).
        if value is not None and value != old.get(key):
            errs.extend(check(value, path.child(key)))
    finalizers = as_list(new.get("finalizers"))
    if finalizers != as_list(old.get("finalizers")):
        for i, finalizer in enumerate(finalizers):
            errs.extend(kube_finalizer_name(as_str(finalizer),
                                            path.child("finalizers").index(i)))
    return errs
