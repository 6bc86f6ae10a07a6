"""Image pulls back off like the kubelet's: ErrImagePull, then ImagePullBackOff
until the back-off (10 s doubling to 300 s) has passed, then a new attempt."""

from __future__ import annotations

from typing import Any

from minikube_py.kubelet.pull import ImagePuller
from minikube_py.runtime.fake import FakeRuntime
from tests.clock import FakeClock


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def record(self, obj: Any, type_: str, reason: str, message: str, **_: Any) -> None:
        self.events.append((reason, message))


POD = {"metadata": {"uid": "u1", "name": "p", "namespace": "default"}}
MISSING = {"name": "c", "image": "example.org/missing:1", "imagePullPolicy": "IfNotPresent"}


def test_failed_pull_backs_off_then_retries():
    clock = FakeClock(0.0)
    runtime = FakeRuntime(missing_images=("example.org/missing:1",))
    rec = Recorder()
    puller = ImagePuller(runtime, rec, clock=clock)  # type: ignore[arg-type]
    assert puller.ensure(POD, MISSING, "spec.containers{c}")[0] == "ErrImagePull"
    clock.set(5)
    reason, message = puller.ensure(POD, MISSING, "spec.containers{c}")
    assert (reason, message) == ("ImagePullBackOff",
                                 'Back-off pulling image "example.org/missing:1"')
    assert ("BackOff", 'Back-off pulling image "example.org/missing:1"') in rec.events
    pulls = sum(1 for r, _ in rec.events if r == "Pulling")
    assert pulls == 1  # no pull during the back-off
    clock.set(10.1)
    assert puller.ensure(POD, MISSING, "spec.containers{c}")[0] == "ErrImagePull"
    assert puller.retry_in("u1", "example.org/missing:1") == 20.0  # doubled
    clock.set(10.1 + 20.1)
    assert puller.ensure(POD, MISSING, "spec.containers{c}")[0] == "ErrImagePull"
    assert puller.retry_in("u1", "example.org/missing:1") == 40.0


def test_backoff_caps_at_300_seconds_and_is_forgotten_with_the_pod():
    clock = FakeClock(0.0)
    runtime = FakeRuntime(missing_images=("example.org/missing:1",))
    puller = ImagePuller(runtime, Recorder(), clock=clock)  # type: ignore[arg-type]
    for _ in range(10):
        puller.ensure(POD, MISSING, "f")
        clock.advance(1000)
    assert puller.retry_in("u1", "example.org/missing:1") == 0
    puller.ensure(POD, MISSING, "f")
    assert puller.retry_in("u1", "example.org/missing:1") == 300.0
    puller.forget("u1")
    assert puller.retry_in("u1", "example.org/missing:1") == 0


def test_success_clears_the_backoff():
    clock = FakeClock(0.0)
    runtime = FakeRuntime(missing_images=("example.org/flaky:1",))
    puller = ImagePuller(runtime, Recorder(), clock=clock)  # type: ignore[arg-type]
    spec = {**MISSING, "image": "example.org/flaky:1"}
    assert puller.ensure(POD, spec, "f")[0] == "ErrImagePull"
    runtime.missing_images = frozenset()  # the registry came back
    clock.set(11)
    assert puller.ensure(POD, spec, "f") is None
    assert puller.retry_in("u1", "example.org/flaky:1") == 0
