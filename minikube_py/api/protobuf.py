"""Decoding Kubernetes protobuf request bodies into the JSON shape of the object.

client-go sends typed objects as ``application/vnd.kubernetes.protobuf`` (kubectl
``create namespace|deployment|priorityclass|job`` does, and does not retry with
JSON on a 415). :func:`decode_k8s_protobuf` turns such a body into the dict the
JSON body of the same object would have parsed to, so the rest of the server
never sees protobuf. Nothing here encodes protobuf.

The envelope (``k8s.io/apimachinery/pkg/runtime/serializer/protobuf``) is the
4-byte magic ``k8s\\x00`` followed by a ``runtime.Unknown`` message::

    Unknown  { TypeMeta typeMeta = 1; bytes raw = 2;
               string contentEncoding = 3; string contentType = 4; }
    TypeMeta { string apiVersion = 1; string kind = 2; }

``raw`` is the object's own message (``Pod``, ``Deployment``, ...), decoded
with the field table of :mod:`.proto_schema` by a small proto2 wire decoder
(varint, 64-bit, length-delimited and 32-bit fields; repeated fields packed or
not; map entries with key = 1, value = 2).

The result is what Kubernetes' JSON serialization of the decoded Go object
would be:

* fields absent on the wire are absent; a scalar present with its zero value
  is kept when the Go field is a pointer or has no ``omitempty`` and dropped
  otherwise (go-protobuf writes plain scalars even when zero);
* ``json:",inline"`` messages are merged into their parent;
* ``Time`` is RFC 3339 in UTC with whole seconds (Kubernetes drops the
  nanoseconds of a ``Time`` read from protobuf), ``MicroTime`` has six
  fractional digits; the zero time (an empty message) is omitted, as JSON
  ``null`` would be;
* ``Quantity`` is its canonical string, ``IntOrString`` an int or a string,
  ``FieldsV1`` and ``RawExtension`` the JSON they hold, ``bytes`` base64, and a
  ``StringList`` (a Go ``[]string`` type such as a user's ``ExtraValue``, which
  the proto wraps in a message of ``items``) a plain array of strings.

Anything the table does not describe is refused, never dropped: an unknown
field number raises :class:`~.errors.BadRequest` naming the message, the field
number and where it was found; malformed input raises ``BadRequest`` starting
``invalid protobuf body:``. Lists are not accepted.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from .errors import BadRequest
from .proto_schema import MESSAGES, ROOTS, SPECIAL, Field
from .quantity import QuantityError, canonical

__all__ = ["MAGIC", "PROTOBUF", "decode_k8s_protobuf"]

PROTOBUF: Final = "application/vnd.kubernetes.protobuf"
MAGIC: Final = b"k8s\x00"

_MAX_DEPTH = 100
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: ``time.Time{}.Unix()``: Go's zero time, serialized as JSON ``null``.
_GO_ZERO_SECONDS = -62135596800

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
_SCALAR_WIRE: Final = {
    "string": _BYTES, "bytes": _BYTES,
    "bool": _VARINT, "int32": _VARINT, "int64": _VARINT, "uint32": _VARINT, "uint64": _VARINT,
    "double": _FIXED64, "float": _FIXED32,
}

_Value = int | bytes
_Wire = tuple[int, _Value]


class _Omit:
    """Marks a value whose JSON form is ``null``: the field is left out."""


_OMIT: Final = _Omit()


def _invalid(message: str) -> BadRequest:
    return BadRequest(f"invalid protobuf body: {message}")


def decode_k8s_protobuf(body: bytes) -> dict[str, Any]:
    """The JSON-shaped object carried by a Kubernetes protobuf request body."""
    if not body.startswith(MAGIC):
        raise _invalid("the body does not start with the Kubernetes protobuf prefix 'k8s\\x00'")
    envelope = _fields(body[len(MAGIC):], "runtime.Unknown", "")
    type_meta: dict[int, list[_Wire]] = {}
    raw: list[_Wire] = []
    texts: dict[int, list[_Wire]] = {}
    for number, wire, value in envelope:
        if number == 1:
            _expect(wire, _BYTES, "runtime.Unknown", number, "")
            for item in _fields(_as_bytes(value), "runtime.TypeMeta", ""):
                if item[0] not in (1, 2):
                    raise _unknown_field("runtime.TypeMeta", item[0], "")
                type_meta.setdefault(item[0], []).append(item[1:])
        elif number == 2:
            raw.append((wire, value))
        elif number in (3, 4):
            texts.setdefault(number, []).append((wire, value))
        else:
            raise _unknown_field("runtime.Unknown", number, "")
    api_version = _scalar(type_meta.get(1), "string", "runtime.TypeMeta", 1, "") or ""
    kind = _scalar(type_meta.get(2), "string", "runtime.TypeMeta", 2, "") or ""
    encoding = _scalar(texts.get(3), "string", "runtime.Unknown", 3, "") or ""
    content_type = _scalar(texts.get(4), "string", "runtime.Unknown", 4, "") or ""
    if encoding:
        raise BadRequest(f"protobuf bodies with content encoding {encoding!r} are not supported")
    if content_type not in ("", PROTOBUF):
        raise BadRequest(f"the protobuf envelope holds {content_type!r}, which is not supported")
    if not kind:
        raise BadRequest("Object 'Kind' is missing in the protobuf body")
    message = ROOTS.get((api_version, kind))
    if message is None:
        if kind.endswith("List"):
            raise BadRequest(f"{kind} is not accepted as a protobuf request body: send the "
                             "items one by one")
        raise BadRequest(f'no kind "{kind}" is registered for version "{api_version}"')
    data = b""
    if raw:
        _expect(raw[-1][0], _BYTES, "runtime.Unknown", 2, "")
        data = _as_bytes(raw[-1][1])
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    obj.update(_message(data, message, "", 0))
    return obj


# ---------------------------------------------------------------- wire format


def _varint(data: bytes, pos: int, where: str) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise _invalid(f"truncated varint in {where}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _invalid(f"varint longer than 10 bytes in {where}")


def _fields(data: bytes, message: str, path: str) -> Iterator[tuple[int, int, _Value]]:
    """``(field number, wire type, value)`` for each field of one message."""
    where = _where(message, path)
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _varint(data, pos, where)
        number, wire = key >> 3, key & 7
        if number == 0 or number > 0x1FFFFFFF:
            raise _invalid(f"field number {number} is out of range in {where}")
        value: _Value
        if wire == _VARINT:
            value, pos = _varint(data, pos, where)
            value &= 0xFFFFFFFFFFFFFFFF
        elif wire == _FIXED64:
            if pos + 8 > end:
                raise _invalid(f"truncated 64-bit field {number} in {where}")
            value = int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        elif wire == _BYTES:
            length, pos = _varint(data, pos, where)
            if length > end - pos:
                raise _invalid(f"field {number} in {where} is longer than its message")
            value = data[pos:pos + length]
            pos += length
        elif wire == _FIXED32:
            if pos + 4 > end:
                raise _invalid(f"truncated 32-bit field {number} in {where}")
            value = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        else:
            raise _invalid(f"unsupported wire type {wire} for field {number} in {where}")
        yield number, wire, value


def _where(message: str, path: str) -> str:
    return f"{message} (at {path})" if path else message


def _unknown_field(message: str, number: int, path: str) -> BadRequest:
    return BadRequest(f"protobuf field number {number} of message {_where(message, path)} "
                      "is not known to this server")


def _expect(wire: int, wanted: int, message: str, number: int, path: str) -> None:
    if wire != wanted:
        raise _invalid(f"field {number} of {_where(message, path)} has wire type {wire}, "
                       f"expected {wanted}")


def _as_bytes(value: _Value) -> bytes:
    assert isinstance(value, bytes)
    return value


# -------------------------------------------------------------------- scalars


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _convert(wire: int, value: _Value, type_name: str, message: str, number: int,
             path: str) -> Any:
    wanted = _SCALAR_WIRE[type_name]
    _expect(wire, wanted, message, number, path)
    if type_name == "string":
        try:
            return _as_bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid(f"field {number} of {_where(message, path)} is not valid "
                           "UTF-8") from None
    if type_name == "bytes":
        return base64.b64encode(_as_bytes(value)).decode("ascii")
    assert isinstance(value, int)
    if type_name == "bool":
        return value != 0
    if type_name == "int32":
        return _signed(value, 32)
    if type_name == "int64":
        return _signed(value, 64)
    if type_name == "uint32":
        return value & 0xFFFFFFFF
    if type_name == "uint64":
        return value
    number_value: float = struct.unpack(
        "<d" if type_name == "double" else "<f",
        value.to_bytes(8 if type_name == "double" else 4, "little"))[0]
    if not math.isfinite(number_value):
        raise _invalid(f"field {number} of {_where(message, path)} is not a finite number")
    return number_value


def _scalar(items: list[_Wire] | None, type_name: str, message: str, number: int,
            path: str) -> Any:
    """The value of a singular scalar field (the last occurrence wins), or None."""
    if not items:
        return None
    wire, value = items[-1]
    return _convert(wire, value, type_name, message, number, path)


def _repeated_scalars(items: list[_Wire], type_name: str, message: str, number: int,
                      path: str) -> list[Any]:
    out: list[Any] = []
    wanted = _SCALAR_WIRE[type_name]
    for wire, value in items:
        if wire == _BYTES and wanted != _BYTES:  # packed
            data = _as_bytes(value)
            pos = 0
            while pos < len(data):
                element: int
                if wanted == _VARINT:
                    element, pos = _varint(data, pos, _where(message, path))
                    element &= 0xFFFFFFFFFFFFFFFF
                else:
                    size = 8 if wanted == _FIXED64 else 4
                    if pos + size > len(data):
                        raise _invalid(f"truncated packed field {number} in "
                                       f"{_where(message, path)}")
                    element = int.from_bytes(data[pos:pos + size], "little")
                    pos += size
                out.append(_convert(wanted, element, type_name, message, number, path))
        else:
            out.append(_convert(wire, value, type_name, message, number, path))
    return out


def _is_zero(value: Any) -> bool:
    return value is False or value == 0 or value == ""


# ------------------------------------------------------------------- messages


def _message(data: bytes, name: str, path: str, depth: int) -> dict[str, Any]:
    if depth > _MAX_DEPTH:
        raise _invalid(f"messages nested more than {_MAX_DEPTH} deep at {path or name}")
    spec = MESSAGES[name]
    seen: dict[int, list[_Wire]] = {}
    for number, wire, value in _fields(data, name, path):
        if number not in spec:
            raise _unknown_field(name, number, path)
        seen.setdefault(number, []).append((wire, value))
    out: dict[str, Any] = {}
    for number, field in spec.items():
        items = seen.get(number)
        if items is None:
            continue
        json_name, label, type_name, flags = field
        child = f"{path}.{json_name}" if path and json_name else (json_name or path)
        if label == "rep":
            out[json_name] = _repeated(items, field, name, number, child, depth)
        elif label == "map":
            out[json_name] = _map(items, field, name, number, child, depth)
        elif type_name in _SCALAR_WIRE:
            value = _scalar(items, type_name, name, number, child)
            if flags == "keep" or not _is_zero(value):
                out[json_name] = value
        else:
            merged = b"".join(_message_bytes(w, v, name, number, child) for w, v in items)
            decoded = _value(merged, type_name, child, depth + 1)
            if isinstance(decoded, _Omit):
                continue
            if flags == "inline":
                out.update(decoded)
            else:
                out[json_name] = decoded
    return out


def _message_bytes(wire: int, value: _Value, message: str, number: int, path: str) -> bytes:
    _expect(wire, _BYTES, message, number, path)
    return _as_bytes(value)


def _value(data: bytes, type_name: str, path: str, depth: int) -> Any:
    """A message-typed value: a special type's JSON form, or a decoded message."""
    if type_name in SPECIAL:
        return _special(data, type_name, path)
    return _message(data, type_name, path, depth)


def _repeated(items: list[_Wire], field: Field, message: str, number: int, path: str,
              depth: int) -> list[Any]:
    type_name = field[2]
    if type_name in _SCALAR_WIRE:
        return _repeated_scalars(items, type_name, message, number, path)
    out: list[Any] = []
    for index, (wire, value) in enumerate(items):
        element = f"{path}[{index}]"
        decoded = _value(_message_bytes(wire, value, message, number, element), type_name,
                         element, depth + 1)
        out.append(None if isinstance(decoded, _Omit) else decoded)
    return out


def _map(items: list[_Wire], field: Field, message: str, number: int, path: str,
         depth: int) -> dict[str, Any]:
    type_name = field[2]
    out: dict[str, Any] = {}
    entry_name = f"{message}.{field[0]}Entry"
    for wire, value in items:
        key: str = ""
        value_items: list[_Wire] = []
        for entry_number, entry_wire, entry_value in _fields(
                _message_bytes(wire, value, message, number, path), entry_name, path):
            if entry_number == 1:
                key = _convert(entry_wire, entry_value, "string", entry_name, 1, path)
            elif entry_number == 2:
                value_items.append((entry_wire, entry_value))
            else:
                raise _unknown_field(entry_name, entry_number, path)
        element = f"{path}[{key}]"
        if type_name in _SCALAR_WIRE:
            decoded = _scalar(value_items, type_name, entry_name, 2, element)
            if decoded is None:
                decoded = _zero(type_name)
        else:
            merged = b"".join(_message_bytes(w, v, entry_name, 2, element)
                              for w, v in value_items)
            decoded = _value(merged, type_name, element, depth + 1)
            if isinstance(decoded, _Omit):
                decoded = None
        out[key] = decoded
    return out


def _zero(type_name: str) -> Any:
    if type_name in ("string", "bytes"):
        return ""
    if type_name == "bool":
        return False
    return 0.0 if type_name in ("double", "float") else 0


# --------------------------------------------------------------- special types

#: The wire layout of the special types: field number -> (name, scalar type).
_SPECIAL_FIELDS: Final[dict[str, dict[int, tuple[str, str]]]] = {
    "Time": {1: ("seconds", "int64"), 2: ("nanos", "int32")},
    "MicroTime": {1: ("seconds", "int64"), 2: ("nanos", "int32")},
    "Quantity": {1: ("string", "string")},
    "IntOrString": {1: ("type", "int64"), 2: ("intVal", "int32"), 3: ("strVal", "string")},
    "FieldsV1": {1: ("Raw", "bytes")},
    "RawExtension": {1: ("raw", "bytes")},
    "StringList": {1: ("items", "string")},
}


def _special(data: bytes, type_name: str, path: str) -> Any:
    layout = _SPECIAL_FIELDS[type_name]
    seen: dict[int, list[_Wire]] = {}
    for number, wire, value in _fields(data, type_name, path):
        if number not in layout:
            raise _unknown_field(type_name, number, path)
        seen.setdefault(number, []).append((wire, value))

    def get(number: int) -> Any:
        items = seen.get(number)
        if not items:
            return None
        wire, value = items[-1]
        kind = layout[number][1]
        if kind == "bytes":  # raw bytes, not base64: these hold JSON
            _expect(wire, _BYTES, type_name, number, path)
            return _as_bytes(value)
        return _convert(wire, value, kind, type_name, number, path)

    if type_name == "StringList":
        return [_convert(wire, value, "string", type_name, 1, path)
                for wire, value in seen.get(1, [])]
    if type_name in ("Time", "MicroTime"):
        if not data:
            return _OMIT
        seconds = get(1) or 0
        nanos = (get(2) or 0) if type_name == "MicroTime" else 0
        return _format_time(seconds, nanos, micro=type_name == "MicroTime", path=path)
    if type_name == "Quantity":
        text = get(1)
        if text is None:
            return "0"
        try:
            return canonical(text)
        except QuantityError as exc:
            raise _invalid(f"quantity {text!r} at {path or 'the object'}: {exc}") from None
    if type_name == "IntOrString":
        kind = get(1) or 0
        if kind == 0:
            return get(2) or 0
        if kind == 1:
            return get(3) or ""
        raise _invalid(f"IntOrString at {path or 'the object'} has unknown type {kind}")
    raw = get(1)  # FieldsV1, RawExtension
    if raw is None:
        return _OMIT
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise _invalid(f"{type_name} at {path or 'the object'} does not hold JSON: "
                       f"{exc}") from None


def _format_time(seconds: int, nanos: int, *, micro: bool, path: str) -> Any:
    total = seconds * 1_000_000_000 + nanos
    if total == _GO_ZERO_SECONDS * 1_000_000_000:
        return _OMIT
    whole, remainder = divmod(total, 1_000_000_000)
    try:
        moment = _EPOCH + timedelta(seconds=whole, microseconds=remainder // 1000)
    except OverflowError:
        moment = None
    if moment is None or not 1 <= moment.year <= 9999:
        raise _invalid(f"time at {path or 'the object'} is out of range "
                       f"({seconds} seconds since 1970)")
    text = (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
            f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}")
    return f"{text}.{moment.microsecond:06d}Z" if micro else f"{text}Z"
