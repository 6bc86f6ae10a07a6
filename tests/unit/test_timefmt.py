"""format_time / format_micro_time: exactly datetime's text, second cache included."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from minikube_py.api import timefmt
from minikube_py.api.timefmt import format_micro_time, format_time


def _reference(ts: float) -> tuple[str, str]:
    dt = datetime.fromtimestamp(ts, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ"), dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.mark.parametrize(("ts", "seconds", "micro"), [
    (0.0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000Z"),
    (1_700_000_000.25, "2023-11-14T22:13:20Z", "2023-11-14T22:13:20.250000Z"),
    # Rounded to the microsecond (half to even), carried into the next second.
    (1_700_000_000.9999996, "2023-11-14T22:13:21Z", "2023-11-14T22:13:21.000000Z"),
    (1_700_000_000.0000004, "2023-11-14T22:13:20Z", "2023-11-14T22:13:20.000000Z"),
    (-0.25, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.750000Z"),
])
def test_known_values(ts: float, seconds: str, micro: str) -> None:
    assert (format_time(ts), format_micro_time(ts)) == (seconds, micro)
    assert _reference(ts) == (seconds, micro)


def test_agrees_with_datetime_on_random_times() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        ts = rng.choice([rng.uniform(-1e9, 4e9), rng.randint(0, 4_000_000_000) + rng.choice(
            [0.5e-6, 1.5e-6, 2.5e-6, 0.9999995, 0.9999985, 0.0])])
        assert (format_time(ts), format_micro_time(ts)) == _reference(ts), ts


def test_the_cached_second_is_never_served_for_another() -> None:
    # Alternate between two seconds: each call must format its own.
    for ts in (100.5, 200.5, 100.7, 100.7, 200.1):
        assert format_time(ts) == _reference(ts)[0]
    # The cache is what is read within its second, and only within it.
    timefmt._last_second = (300, "poisoned")
    try:
        assert format_time(300.2) == "poisonedZ"
        assert format_time(301.0) == _reference(301.0)[0]
        assert format_time(300.2) == _reference(300.2)[0]
    finally:
        timefmt._last_second = (0, "1970-01-01T00:00:00")
