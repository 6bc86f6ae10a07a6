"""Server-side Table printing: human durations and ages.

Expectations come from Kubernetes' own tests:
``apimachinery/pkg/util/duration/duration_test.go`` and
``pkg/printers/internalversion/printers_test.go`` (TestTranslateTimestampSince).
"""

from __future__ import annotations

import pytest

from minikube_py.api.printers import age, human_duration, short_human_duration

from .printers_helpers import DAY, HOUR, MINUTE, NOW, ts

MS = 0.001
NS = 1e-9


# ------------------------------------------------------------------ durations

# duration_test.go TestHumanDuration
@pytest.mark.parametrize(("seconds", "want"), [
    (1, "1s"),
    (70, "70s"),
    (190, "3m10s"),
    (70 * MINUTE, "70m"),
    (47 * HOUR, "47h"),
    (49 * HOUR, "2d1h"),
    ((8 * 24 + 2) * HOUR, "8d"),
    (367 * 24 * HOUR, "367d"),
    ((365 * 2 * 24 + 25) * HOUR, "2y1d"),
    ((365 * 8 * 24 + 2) * HOUR, "8y"),
])
def test_human_duration(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


# duration_test.go TestHumanDurationBoundaries
@pytest.mark.parametrize(("seconds", "want"), [
    (-2, "<invalid>"),
    (-2 + NS, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (2 * MINUTE - MS, "119s"),
    (2 * MINUTE, "2m"),
    (2 * MINUTE + 1, "2m1s"),
    (10 * MINUTE - MS, "9m59s"),
    (10 * MINUTE, "10m"),
    (10 * MINUTE + 1, "10m"),
    (3 * HOUR - MS, "179m"),
    (3 * HOUR, "3h"),
    (3 * HOUR + MINUTE, "3h1m"),
    (8 * HOUR - MS, "7h59m"),
    (8 * HOUR, "8h"),
    (8 * HOUR + 59 * MINUTE, "8h"),
    (2 * 24 * HOUR - MS, "47h"),
    (2 * 24 * HOUR, "2d"),
    (2 * 24 * HOUR + HOUR, "2d1h"),
    (8 * 24 * HOUR - MS, "7d23h"),
    (8 * 24 * HOUR, "8d"),
    (8 * 24 * HOUR + 23 * HOUR, "8d"),
    (2 * 365 * 24 * HOUR - MS, "729d"),
    (2 * 365 * 24 * HOUR, "2y"),
    (2 * 365 * 24 * HOUR + 23 * HOUR, "2y"),
    (2 * 365 * 24 * HOUR + 23 * HOUR + 59 * MINUTE, "2y"),
    (2 * 365 * 24 * HOUR + 24 * HOUR - MS, "2y"),
    (2 * 365 * 24 * HOUR + 24 * HOUR, "2y1d"),
    (3 * 365 * 24 * HOUR, "3y"),
    (4 * 365 * 24 * HOUR, "4y"),
    (5 * 365 * 24 * HOUR, "5y"),
    (6 * 365 * 24 * HOUR, "6y"),
    (7 * 365 * 24 * HOUR, "7y"),
    (8 * 365 * 24 * HOUR - MS, "7y364d"),
    (8 * 365 * 24 * HOUR, "8y"),
    (8 * 365 * 24 * HOUR + 364 * 24 * HOUR, "8y"),
    (9 * 365 * 24 * HOUR, "9y"),
])
def test_human_duration_boundaries(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


# duration_test.go TestShortHumanDurationBoundaries
@pytest.mark.parametrize(("seconds", "want"), [
    (-2, "<invalid>"),
    (-2 + NS, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (1, "1s"),
    (2 - MS, "1s"),
    (MINUTE - MS, "59s"),
    (MINUTE, "1m"),
    (2 * MINUTE - MS, "1m"),
    (HOUR - MS, "59m"),
    (HOUR, "1h"),
    (2 * HOUR - MS, "1h"),
    (24 * HOUR - MS, "23h"),
    (24 * HOUR, "1d"),
    (2 * 24 * HOUR - MS, "1d"),
    (365 * 24 * HOUR - MS, "364d"),
    (365 * 24 * HOUR, "1y"),
    (2 * 365 * 24 * HOUR - MS, "1y"),
    (2 * 365 * 24 * HOUR, "2y"),
])
def test_short_human_duration_boundaries(seconds: float, want: str) -> None:
    assert short_human_duration(seconds) == want


# printers_test.go TestTranslateTimestampSince
@pytest.mark.parametrize(("timestamp", "want"), [
    (ts(2.1), "<invalid>"),          # a while from now
    (ts(1.9), "0s"),                 # almost now
    (ts(0), "0s"),                   # now
    (None, "<unknown>"),             # unknown (zero time)
    ("", "<unknown>"),
    ("0001-01-01T00:00:00Z", "<unknown>"),
    (ts(-30), "30s"),                # 3e10 ns ago
    (ts(-300), "5m"),                # 3e11 ns ago
    (ts(-6000), "100m"),             # 6e12 ns ago
    (ts(-2 * DAY), "2d"),
    (ts(-90 * DAY), "90d"),
    (ts(-10 * 365 * DAY), "10y"),
])
def test_age(timestamp: str | None, want: str) -> None:
    assert age(timestamp, now=NOW) == want


def test_age_accepts_whole_second_and_nanosecond_timestamps() -> None:
    # metav1.Time is whole seconds, MicroTime has 6 digits; RFC3339Nano parses too.
    assert age("2023-11-14T22:13:20Z", now=NOW) == "0s"            # == NOW
    assert age("2023-11-14T22:12:20.123456Z", now=NOW) == "59s"
    assert age("2023-11-14T22:12:20.123456789Z", now=NOW) == "59s"
    assert age("2023-11-14T23:13:20+01:00", now=NOW) == "0s"
