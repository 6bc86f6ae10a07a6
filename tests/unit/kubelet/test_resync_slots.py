"""When a pod's next periodic resync falls (minikube_py.kubelet.resync): slots."""

from __future__ import annotations

import pytest

from minikube_py.kubelet.resync import resync_delay, resync_period

KEYS = [f"default/bench-{i:06d}" for i in range(20_000)]


@pytest.mark.parametrize("interval, granularity, now, expected", [
    (30.0, 0.0, 1000.0, 30.0),        # Podman nodes: exactly the interval
    (30.0, 0.0, 1234.567, 30.0),
    (30.0, 7.0, 1000.0, 36.0),        # ... put off to the next multiple of 7 (1036)
    (30.0, 1.0, 1000.5, 30.5),        # 1030.5 -> 1031
    (30.0, 5.0, 1000.0, 35.0),        # on a multiple already: the next one (as next_tick)
])
def test_without_jitter_the_interval_is_kept(interval, granularity, now, expected):
    assert resync_delay("default/web", now, interval=interval,
                        granularity=granularity) == pytest.approx(expected)


@pytest.mark.parametrize("interval, jitter", [(600.0, 0.5), (30.0, 0.5), (10.0, 1.0)])
def test_with_jitter_a_pod_resyncs_on_its_own_slot(interval, jitter):
    """Never sooner than the interval, less than an interval and a period
    later, and always on the same slot (a multiple of the period apart), from
    whatever instant the sync came."""
    period = resync_period(interval, jitter)
    assert period == pytest.approx(interval * (1 + jitter / 2))
    for key in KEYS[:200]:
        dues = []
        for now in (1000.0, 1000.25, 1317.0, 5_000.5, 123_456.0):
            delay = resync_delay(key, now, interval=interval, jitter=jitter)
            assert interval <= delay < interval + period
            dues.append(now + delay)
        for due in dues[1:]:
            steps = (due - dues[0]) / period
            assert steps == pytest.approx(round(steps), abs=1e-6)


def test_a_pod_left_alone_resyncs_once_a_period():
    """Resync after resync, each counted from the moment the last one ran
    (a little after its slot, as a busy worker runs it): one period apart,
    the mean of Kubernetes' jittered draw, so the steady load is the same."""
    interval, jitter = 600.0, 0.5
    for key in KEYS[:50]:
        now = 1000.0
        now += resync_delay(key, now, interval=interval, jitter=jitter)
        for late in (0.0, 0.5, 3.0, 29.0):
            delay = resync_delay(key, now + late, interval=interval, jitter=jitter)
            assert late + delay == pytest.approx(750.0)
            now += late + delay


def test_pods_synced_in_a_burst_resync_spread_over_a_whole_period():
    """20,000 pods synced within one second (created in a burst): their first
    resyncs fall evenly over a period (750 s), not within the jitter's 300 s
    as Kubernetes' draw would put them (every tenth of the period gets its
    share: past the draw's 300 s, the fifth and later tenths would get none)."""
    interval, jitter = 600.0, 0.5
    period = resync_period(interval, jitter)
    start = 10_000.0
    dues = [start + i / len(KEYS) + resync_delay(
        key, start + i / len(KEYS), interval=interval, jitter=jitter)
        for i, key in enumerate(KEYS)]
    first = start + interval
    assert min(dues) >= first and max(dues) < first + 1.0 + period
    tenths = [0] * 10
    for due in dues:
        tenths[min(9, int((due - first) / period * 10))] += 1
    share = len(KEYS) / 10
    assert all(0.8 * share < n < 1.2 * share for n in tenths), tenths


def test_granularity_puts_the_slot_off_to_the_next_tick():
    interval, jitter, tick = 600.0, 0.5, 30.0
    for key in KEYS[:200]:
        slot = resync_delay(key, 1000.0, interval=interval, jitter=jitter)
        ticked = resync_delay(key, 1000.0, interval=interval, jitter=jitter,
                              granularity=tick)
        assert slot < ticked <= slot + tick
        assert (1000.0 + ticked) % tick == pytest.approx(0.0, abs=1e-6)
