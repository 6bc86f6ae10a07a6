"""Tests for minikube_py.api.quantity.

Every expectation below is taken from Kubernetes' own tests or documentation for
k8s.io/apimachinery/pkg/api/resource (quantity.go / quantity_test.go /
scale_int_test.go, and core validation's ValidateNonnegativeQuantity); the Go test
each table comes from is named above it. Go's ``decQuantity(i, exp, fmt)`` means
``i * 10**exp`` in format ``fmt``; :func:`dec` turns that into nanos here.
"""

from __future__ import annotations

import dataclasses

import pytest

from minikube_py.api.errors import FieldPath
from minikube_py.api.quantity import (
    ERR_FORMAT_WRONG,
    ERR_SUFFIX,
    Format,
    Quantity,
    QuantityError,
    canonical,
    parse_quantity,
    validate_quantity,
)

DSI: Format = "DecimalSI"
BSI: Format = "BinarySI"
DEX: Format = "DecimalExponent"

MAX_INT64 = 2**63 - 1
MOST_NEGATIVE = -(2**63)
NANO = 10**9

REGEX_MESSAGE = (
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_MESSAGE = "unable to parse quantity's suffix"


def dec(i: int, exponent: int) -> int:
    """Go's decQuantity(i, exponent) as nanos (i * 10**exponent * 10**9)."""
    assert exponent >= -9
    scale: int = 10 ** (exponent + 9)
    return i * scale


# --------------------------------------------------------------------------------
# Parse -> canonical string.
# --------------------------------------------------------------------------------

# TestQuantityParseEmit: input -> String(); the test also checks "-"+input.
PARSE_EMIT = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),  # 1.024n rounds up
]

# TestQuantityString: each expected string must parse back to itself ...
STRING_ROUND_TRIP = [
    "1Gi", "300Mi", "6Ki", "1001Gi", "1Ti", "5", "500m", "1G", "1m", "80m",
    "1080m", "300M", "1T", "1E",
    # DecimalSI has no suffix past E: exponent notation, not a dropped magnitude.
    "1e21", "5e21", "1e24", "10e69", "20e69", "1e72",
    "1234567M", "1234567m", "3k", "1025", "0", "1e9", "1e-3", "1e-9", "80e-3",
    "300e6", "1e12", "1e3", "3e3", "1n", "80n", "1080n", "1u", "80u", "1080u",
]  # fmt: skip

# ... and each "alternate" spelling must canonicalize to the expected string.
STRING_ALTERNATES = [
    ("1024Mi", "1Gi"),
    ("307200Ki", "300Mi"),
    ("1025024Mi", "1001Gi"),
    ("1024Gi", "1Ti"),
    ("5000m", "5"),
    ("0.5", "500m"),
    ("1000M", "1G"),
    ("0.001T", "1G"),
    ("1000u", "1m"),
    ("1.08", "1080m"),
    ("1080000000n", "1080m"),
    ("1000E", "1e21"),
    ("5000E", "5e21"),
    ("1000000E", "1e24"),
    (".001e12", "1e9"),
    ("0.001e0", "1e-3"),
    ("1000e-12", "1e-9"),
    ("00", "0"),
]

# The Quantity type's doc comment: "1.5 will be serialized as 1500m, 1.5Gi will be
# serialized as 1536Mi"; TestNewSet: 1000 (DecimalSI) is "1k".
DOC_EXAMPLES = [
    ("1.5", "1500m"),
    ("1.5Gi", "1536Mi"),
    ("1000", "1k"),
    ("1234000", "1234k"),
]

# TestParseQuantity: values around and beyond int64; canonical defaults to input.
HUGE = [
    ("-999999999999999999", "-999999999999999999"),
    ("999999999999999999", "999999999999999999"),
    ("999999999999999999.0", "999999999999999999"),
    ("999999999999999999.1", "999999999999999999100m"),
    ("-999999999999999999.1", "-999999999999999999100m"),
    ("9999999999999999999", "9999999999999999999"),
    ("1000000000000000000", "1E"),
    ("-1000000000000000000", "-1E"),
    ("1.0E", "1E"),
    ("9999999999999999999000m", "9999999999999999999"),
    ("1.0000000000000000001E", "1000000000000000000100m"),
    ("1.000000000000000001E", "1000000000000000001"),
    ("10E", "10E"),
    ("10000000000000000000", "10E"),
    ("10000000000000000000000m", "10E"),
    ("-10.0000000000000000001E", "-10000000000000000000100m"),
    ("10.000000000000000001E", "10000000000000000001"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775807", "9223372036854775807"),
    ("9223372036854775808", "9223372036854775808"),
    ("9223372036854775808.1", "9223372036854775808100m"),
    ("-9223372036854775808000m", "-9223372036854775808"),
]

CANONICAL_CASES = (
    PARSE_EMIT
    + [("-" + i, "-" + e) for i, e in PARSE_EMIT]
    + [(s, s) for s in STRING_ROUND_TRIP]
    + [("-" + s, "-" + s) for s in STRING_ROUND_TRIP if s != "0"]
    + STRING_ALTERNATES
    + DOC_EXAMPLES
    + HUGE
)


@pytest.mark.parametrize(("text", "expected"), CANONICAL_CASES)
def test_canonical_string(text: str, expected: str) -> None:
    assert str(Quantity.parse(text)) == expected
    assert canonical(text) == expected


# --------------------------------------------------------------------------------
# Parse -> exact value and remembered format (TestQuantityParse).
# --------------------------------------------------------------------------------

PARSED = [
    ("0", 0, DSI),
    ("0n", 0, DSI),
    ("0u", 0, DSI),
    ("0m", 0, DSI),
    ("0Ki", 0, BSI),
    ("0k", 0, DSI),
    ("0Mi", 0, BSI),
    ("0M", 0, DSI),
    ("0Gi", 0, BSI),
    ("0G", 0, DSI),
    ("0Ti", 0, BSI),
    ("0T", 0, DSI),
    ("1", dec(1, 0), DSI),
    # Binary suffixes
    ("1Ki", dec(1024, 0), BSI),
    ("8Ki", dec(8 * 1024, 0), BSI),
    ("7Mi", dec(7 * 1024**2, 0), BSI),
    ("6Gi", dec(6 * 1024**3, 0), BSI),
    ("5Ti", dec(5 * 1024**4, 0), BSI),
    ("4Pi", dec(4 * 1024**5, 0), BSI),
    ("3Ei", dec(3 * 1024**6, 0), BSI),
    ("10Ti", dec(10 * 1024**4, 0), BSI),
    ("100Ti", dec(100 * 1024**4, 0), BSI),
    # Decimal suffixes
    ("5n", dec(5, -9), DSI),
    ("4u", dec(4, -6), DSI),
    ("3m", dec(3, -3), DSI),
    ("9", dec(9, 0), DSI),
    ("8k", dec(8, 3), DSI),
    ("50k", dec(5, 4), DSI),
    ("7M", dec(7, 6), DSI),
    ("6G", dec(6, 9), DSI),
    ("5T", dec(5, 12), DSI),
    ("40T", dec(4, 13), DSI),
    ("300T", dec(3, 14), DSI),
    ("2P", dec(2, 15), DSI),
    ("1E", dec(1, 18), DSI),
    # Decimal exponents
    ("1E-3", dec(1, -3), DEX),
    ("1e3", dec(1, 3), DEX),
    ("1E6", dec(1, 6), DEX),
    ("1e9", dec(1, 9), DEX),
    ("1E12", dec(1, 12), DEX),
    ("1e15", dec(1, 15), DEX),
    ("1E18", dec(1, 18), DEX),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14), DEX),
    ("1e13", dec(1, 13), DEX),
    ("100.035k", dec(100035, 0), DSI),
    # Things that look like floating point
    ("0.001", dec(1, -3), DSI),
    ("0.0005k", dec(5, -1), DSI),
    ("0.005", dec(5, -3), DSI),
    ("0.05", dec(5, -2), DSI),
    ("0.5", dec(5, -1), DSI),
    ("0.00050k", dec(5, -1), DSI),
    ("0.00500", dec(5, -3), DSI),
    ("0.05000", dec(5, -2), DSI),
    ("0.50000", dec(5, -1), DSI),
    ("0.5e0", dec(5, -1), DEX),
    ("0.5e-1", dec(5, -2), DEX),
    ("0.5e-2", dec(5, -3), DEX),
    ("10.035M", dec(10035, 3), DSI),
    ("1.2e3", dec(12, 2), DEX),
    ("1.3E+6", dec(13, 5), DEX),
    ("1.40e9", dec(14, 8), DEX),
    ("1.53E12", dec(153, 10), DEX),
    ("1.6e15", dec(16, 14), DEX),
    ("1.7E18", dec(17, 17), DEX),
    ("9.01", dec(901, -2), DSI),
    ("8.1k", dec(81, 2), DSI),
    ("7.123456M", dec(7123456, 0), DSI),
    ("6.987654321G", dec(6987654321, 0), DSI),
    ("5.444T", dec(5444, 9), DSI),
    ("40.1T", dec(401, 11), DSI),
    ("300.2T", dec(3002, 11), DSI),
    ("2.5P", dec(25, 14), DSI),
    ("1.01E", dec(101, 16), DSI),
    # Things that saturate/round: sub-nano precision rounds UP; BinarySI caps.
    ("3.001n", dec(4, -9), DSI),
    ("1.1E-9", dec(2, -9), DEX),
    ("0.0000000001", dec(1, -9), DSI),
    ("0.0000000005", dec(1, -9), DSI),
    ("0.00000000050", dec(1, -9), DSI),
    ("0.5e-9", dec(1, -9), DEX),
    ("0.9n", dec(1, -9), DSI),
    ("0.00000012345", dec(124, -9), DSI),
    ("0.00000012354", dec(124, -9), DSI),
    ("9Ei", MAX_INT64 * NANO, BSI),
    ("9223372036854775807Ki", MAX_INT64 * NANO, BSI),
    ("12E", dec(12, 18), DSI),  # DecimalSI is not capped
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2), BSI),
    ("0.5Mi", dec(512 * 1024, 0), BSI),
    ("0.05Gi", dec(536870912, -1), BSI),
    ("0.025Ti", dec(274877906944, -1), BSI),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9), DSI),  # rounds up, changes format
    (".001", dec(1, -3), DSI),
    (".0001k", dec(100, -3), DSI),
    ("1.", dec(1, 0), DSI),
    ("1.G", dec(1, 9), DSI),
]


@pytest.mark.parametrize(("text", "nanos", "fmt"), PARSED)
@pytest.mark.parametrize("sign", ["", "-", "+"])
def test_parse_value_and_format(sign: str, text: str, nanos: int, fmt: str) -> None:
    # TestQuantityParse also runs every row with a leading "-" and "+".
    q = Quantity.parse(sign + text)
    assert q.nanos == (-nanos if sign == "-" else nanos)
    assert q.format == fmt


# --------------------------------------------------------------------------------
# Parse errors: TestQuantityParse's invalid list, TestQuantityParseNonNumericPanic,
# TestQuantityValueSet, the empty string, and the scanner's grammar.
# --------------------------------------------------------------------------------

PARSE_ERRORS = [
    ("", REGEX_MESSAGE),
    ("1.1.M", REGEX_MESSAGE),
    ("1+1.0M", REGEX_MESSAGE),
    ("0.1mi", SUFFIX_MESSAGE),
    ("0.1am", REGEX_MESSAGE),
    ("aoeu", REGEX_MESSAGE),
    (".5i", SUFFIX_MESSAGE),
    ("1i", SUFFIX_MESSAGE),
    ("-3.01i", SUFFIX_MESSAGE),
    ("-3.01e-", SUFFIX_MESSAGE),
    ("1e4294967297", SUFFIX_MESSAGE),  # exponent outside int32 is rejected
    (" 1", REGEX_MESSAGE),  # whitespace is forbidden
    ("1 ", REGEX_MESSAGE),
    ("Non-Numeric", REGEX_MESSAGE),
    ("invalid", REGEX_MESSAGE),
    # <number> has at most one ".", <sign> is a single character, suffixes are
    # case-sensitive (kubernetes/kubernetes#105335 to relax that was closed) and
    # nothing may separate the number from its suffix.
    ("1.1.1", REGEX_MESSAGE),
    ("1Kib", REGEX_MESSAGE),
    ("1KiB", REGEX_MESSAGE),
    ("500mi", SUFFIX_MESSAGE),
    ("1e", SUFFIX_MESSAGE),
    ("--1", SUFFIX_MESSAGE),
    ("1 Gi", REGEX_MESSAGE),
    ("abc", REGEX_MESSAGE),
]


@pytest.mark.parametrize(("text", "message"), PARSE_ERRORS)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        Quantity.parse(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_error_constants_are_kubernetes_text() -> None:
    assert ERR_FORMAT_WRONG == REGEX_MESSAGE
    assert ERR_SUFFIX == SUFFIX_MESSAGE


# --------------------------------------------------------------------------------
# Non-string inputs. A JSON number reaches ParseQuantity as its text
# (TestJSONWhitespace: 1 -> "1", 10 -> "10", -1 -> "-1"); JSON true reaches it as
# "true", which does not match the regular expression.
# --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected", "fmt"),
    [
        (1, "1", DSI),
        (10, "10", DSI),
        (-1, "-1", DSI),
        (1000, "1k", DSI),
        (0, "0", DSI),
        (0.5, "500m", DSI),
        (1.5, "1500m", DSI),
        (2.0, "2", DSI),
    ],
)
def test_parse_numbers(value: int | float, expected: str, fmt: str) -> None:
    q = parse_quantity(value)
    assert str(q) == expected
    assert q.format == fmt


def test_parse_float_uses_go_json_notation() -> None:
    # encoding/json writes 1e-7 in exponent form, so it is a DecimalExponent value.
    assert Quantity.parse(1e-7) == Quantity.parse("1e-07")
    assert Quantity.parse(1e-7).format == DEX


@pytest.mark.parametrize("value", [True, False, None, [1], {"a": 1}, float("nan"), float("inf")])
def test_parse_rejects_non_quantities(value: object) -> None:
    with pytest.raises(QuantityError) as info:
        Quantity.parse(value)  # type: ignore[arg-type]
    assert str(info.value) == REGEX_MESSAGE


# --------------------------------------------------------------------------------
# Value()/MilliValue(): rounded to an integer away from zero
# (TestNegativeValueRoundsAwayFromZero, scale_int_test.go).
# --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("-.484785E-7466", -1, -1),
        (".484785E-7466", 1, 1),
        ("-.484785E-1", -1, -49),
        (".484785E-1", 1, 49),
        ("-0.0005", -1, -1),
        ("0.0005", 1, 1),
        ("-1500m", -2, -1500),
        ("1500m", 2, 1500),
        ("-9.5000000001Gi", -10200547329, -10200547328108),
        ("9.5000000001Gi", 10200547329, 10200547328108),
        ("-1", -1, -1000),
        ("1", 1, 1000),
        ("0", 0, 0),
        ("1Mi", 1024 * 1024, 1024 * 1024 * 1000),  # TestQuantityValueSet
    ],
)
def test_value_and_milli_value(text: str, value: int, milli: int) -> None:
    q = Quantity.parse(text)
    assert q.value() == value
    assert q.milli_value() == milli


# TestNewSet / TestMilliNewSet: NewQuantity and NewMilliQuantity.
@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [(1, DSI, "1"), (1000, DSI, "1k"), (1234000, DSI, "1234k"), (1024, BSI, "1Ki"),
     (1024 * 1024, BSI, "1Mi")],
)  # fmt: skip
def test_from_int(value: int, fmt: Format, expected: str) -> None:
    q = Quantity.from_int(value, fmt)
    assert str(q) == expected
    assert Quantity.parse(expected).value() == value


@pytest.mark.parametrize(
    ("milli", "fmt", "expected", "exact"),
    [
        (1, DSI, "1m", True),
        (1000, DSI, "1", True),
        (1234000, DSI, "1234", True),
        (1024, BSI, "1024m", False),  # format changes
        (1024 * 1024, BSI, "1048576m", False),  # format changes
    ],
)
def test_from_milli(milli: int, fmt: Format, expected: str, exact: bool) -> None:
    q = Quantity.from_milli(milli, fmt)
    assert str(q) == expected
    if exact:
        assert Quantity.parse(expected).milli_value() == milli


def test_constructor_defaults_to_decimal_si() -> None:
    assert Quantity.from_int(5).format == DSI
    assert Quantity.from_milli(5).format == DSI


# --------------------------------------------------------------------------------
# Ordering and equality: numeric, format ignored (TestQuantityCmp,
# TestQuantityCmpInt64AndDec, TestQuantityString's alternates).
# --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "cmp"),
    [
        ("0", "0", 0),
        ("100m", "50m", 1),
        ("50m", "100m", -1),
        ("10000T", "100Gi", 1),
        ("1Gi", "1G", 1),
        ("1000m", "1", 0),
        ("0.5", "500m", 0),
        ("1024Mi", "1Gi", 0),
        ("0Ki", "0", 0),
        ("800m", "1", -1),
        ("800m", "790m", 1),
        ("9.01", "9.00", 1),
        ("-1", "0", -1),
        ("12E", "9Ei", 1),
    ],
)
def test_ordering(x: str, y: str, cmp: int) -> None:
    a, b = Quantity.parse(x), Quantity.parse(y)
    assert (a == b) is (cmp == 0)
    assert (a != b) is (cmp != 0)
    assert (a < b) is (cmp < 0)
    assert (a <= b) is (cmp <= 0)
    assert (a > b) is (cmp > 0)
    assert (a >= b) is (cmp >= 0)
    if cmp == 0:
        assert hash(a) == hash(b)


def test_equality_ignores_format_and_other_types() -> None:
    # TestQuantityString: decQuantity(500, -3, BinarySI) prints "500m", alternate "0.5".
    binary = Quantity(dec(500, -3), BSI)
    assert binary == Quantity.parse("0.5")
    assert str(binary) == "500m"
    assert len({Quantity.parse("1"), Quantity.parse("1000m"), Quantity.parse("1e0")}) == 1
    assert Quantity.parse("1") != "1"
    assert Quantity.parse("1") != 1
    with pytest.raises(TypeError):
        _ = Quantity.parse("1") < 2


def test_is_zero_and_sign() -> None:
    assert Quantity.parse("0Ki").is_zero()
    assert not Quantity.parse("1n").is_zero()
    assert Quantity.parse("-1n").sign() == -1
    assert Quantity.parse("0").sign() == 0
    assert Quantity.parse("3.001n").sign() == 1


def test_immutable() -> None:
    q = Quantity.parse("1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.nanos = 5  # type: ignore[misc]


# --------------------------------------------------------------------------------
# Arithmetic (TestAdd, TestSub, TestQuantityAddZeroPreservesSuffix,
# TestQuantitySubZeroPreservesSuffix, TestQuantityNeg, TestNeg, and the int64-edge
# tests TestNegAndSubAtMostNegative / TestSubMostNegativeCrossScale /
# TestZeroSubMostNegativeInheritsFormat / TestBinarySIPastEiArithmeticRoundTrip).
# --------------------------------------------------------------------------------

ADD_CASES = [
    (Quantity(dec(10, 0), DSI), Quantity(dec(1, 1), DSI), dec(20, 0), DSI),
    (Quantity(dec(10, 0), DSI), Quantity(dec(1, 0), BSI), dec(11, 0), DSI),
    (Quantity(dec(10, 0), BSI), Quantity(dec(1, 0), DSI), dec(11, 0), BSI),
    (Quantity(0, DSI), Quantity(dec(50, 0), DSI), dec(50, 0), DSI),
    (Quantity(dec(50, 0), DSI), Quantity(0, DSI), dec(50, 0), DSI),
    (Quantity(0, DSI), Quantity(0, DSI), 0, DSI),
]

SUB_CASES = [
    (Quantity(dec(10, 0), DSI), Quantity(dec(1, 1), DSI), 0, DSI),
    (Quantity(dec(10, 0), DSI), Quantity(dec(1, 0), BSI), dec(9, 0), DSI),
    (Quantity(dec(10, 0), BSI), Quantity(dec(1, 0), DSI), dec(9, 0), BSI),
    (Quantity(0, DSI), Quantity(dec(50, 0), DSI), dec(-50, 0), DSI),
    (Quantity(dec(50, 0), DSI), Quantity(0, DSI), dec(50, 0), DSI),
    (Quantity(0, DSI), Quantity(0, DSI), 0, DSI),
]


@pytest.mark.parametrize(("a", "b", "nanos", "fmt"), ADD_CASES)
def test_add(a: Quantity, b: Quantity, nanos: int, fmt: str) -> None:
    result = a + b
    assert result.nanos == nanos
    assert result.format == fmt


@pytest.mark.parametrize(("a", "b", "nanos", "fmt"), SUB_CASES)
def test_sub(a: Quantity, b: Quantity, nanos: int, fmt: str) -> None:
    result = a - b
    assert result.nanos == nanos
    assert result.format == fmt


@pytest.mark.parametrize("text", ["100m", "1Gi"])
def test_zero_preserves_suffix(text: str) -> None:
    value, zero = Quantity.parse(text), Quantity.parse("0")
    assert str(value + zero) == text
    assert str(zero + value) == text  # a zero receiver adopts the other's format
    assert str(value - zero) == text
    assert str(zero - value) == str(-value) == "-" + text


def test_negation() -> None:
    assert str(-Quantity(dec(901, -2), DSI)) == "-9010m"
    negated = -Quantity(dec(10, 0), BSI)
    assert negated.nanos == dec(-10, 0)
    assert negated.format == BSI
    assert (-Quantity(0, DSI)).nanos == 0
    assert -Quantity.parse("-1.5Gi") == Quantity.parse("1536Mi")


def test_arithmetic_past_int64() -> None:
    most_negative = Quantity(MOST_NEGATIVE * NANO, DSI)
    assert str(-most_negative) == "9223372036854775808"
    assert str(Quantity(0, DSI) - most_negative) == "9223372036854775808"
    assert str(Quantity.from_int(1) - most_negative) == "9223372036854775809"
    assert str(Quantity(dec(1, 1), DSI) - most_negative) == "9223372036854775818"
    scaled = Quantity.from_milli(1) - Quantity.from_milli(MOST_NEGATIVE)
    assert str(scaled) == "9223372036854775809m"
    # 2^63 is 8Ei; the zero receiver adopts BinarySI.
    inherited = Quantity(0, DSI) - Quantity(MOST_NEGATIVE * NANO, BSI)
    assert inherited.format == BSI
    assert str(inherited) == "8Ei"


def test_binary_si_past_ei_prints_exact_decimal() -> None:
    # "1Ei" grown to 2^70: no binary suffix exists, so the exact integer is printed
    # and it round-trips through parse.
    q = sum([Quantity.parse("1Ei")] * 1024)
    assert isinstance(q, Quantity)
    assert q.format == BSI
    assert str(q) == "1180591620717411303424"
    assert Quantity.parse(str(q)) == q


def test_sum_starts_from_int_zero() -> None:
    total = sum([Quantity.parse("100m"), Quantity.parse("250m"), Quantity.parse("1")])
    assert total == Quantity.parse("1350m")
    with pytest.raises(TypeError):
        _ = Quantity.parse("1") + 1  # type: ignore[operator]


# --------------------------------------------------------------------------------
# validate_quantity: decode errors and ValidateNonnegativeQuantity, which reports
# value.String() with "must be greater than or equal to 0".
# --------------------------------------------------------------------------------

CPU = "spec.containers[0].resources.requests.cpu"


@pytest.mark.parametrize("value", ["100m", "0", "1Gi", 2, 0.5, Quantity.parse("1")])
def test_validate_accepts(value: object) -> None:
    assert validate_quantity(value, CPU) == []


@pytest.mark.parametrize(
    ("value", "non_negative", "expected"),
    [
        ("1 Gi", True, f'{CPU}: Invalid value: "1 Gi": {REGEX_MESSAGE}'),
        ("", True, f'{CPU}: Invalid value: "": {REGEX_MESSAGE}'),
        ("1i", True, f'{CPU}: Invalid value: "1i": {SUFFIX_MESSAGE}'),
        (True, True, f"{CPU}: Invalid value: true: {REGEX_MESSAGE}"),
        (None, True, f"{CPU}: Invalid value: null: {REGEX_MESSAGE}"),
        ("-1", True, f'{CPU}: Invalid value: "-1": must be greater than or equal to 0'),
        ("-1000m", True, f'{CPU}: Invalid value: "-1": must be greater than or equal to 0'),
        (-2, True, f'{CPU}: Invalid value: "-2": must be greater than or equal to 0'),
        ("abc", False, f'{CPU}: Invalid value: "abc": {REGEX_MESSAGE}'),
    ],
)
def test_validate_errors(value: object, non_negative: bool, expected: str) -> None:
    errs = validate_quantity(value, CPU, non_negative=non_negative)
    assert [str(e) for e in errs] == [expected]
    assert errs[0].type == "Invalid"
    assert errs[0].path == CPU


def test_validate_negative_allowed_and_field_path() -> None:
    assert validate_quantity("-1", CPU, non_negative=False) == []
    path = FieldPath.root("spec").child("hard").key("requests.memory")
    (err,) = validate_quantity("-1Gi", path)
    assert str(err) == (
        'spec.hard[requests.memory]: Invalid value: "-1Gi": must be greater than or equal to 0'
    )
