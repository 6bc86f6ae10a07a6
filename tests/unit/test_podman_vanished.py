"""Podman 4.3 answers an inspect of a container whose process just ended with a
500 ("read /proc/<pid>/cgroup: no such process"); the runtime asks again
instead of failing, and gives every other error through at once."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from minikube_py.runtime.base import ContainerRuntimeError
from minikube_py.runtime.podman import PodmanRuntime
from minikube_py.runtime.podman_api import PodmanNotFound

VANISHED = "container abc: read /proc/21594/cgroup: no such process"


class FlakyApi:
    def __init__(self, errors: list[Exception]) -> None:
        self.errors = errors
        self.calls = 0

    def json(self, method: str, path: str, *, what: str) -> Any:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return {"Id": "abc"}


def get(api: FlakyApi) -> Any:
    return PodmanRuntime._get_json(SimpleNamespace(_api=api),  # type: ignore[arg-type]
                                   "/containers/abc/json", "container abc")


def test_a_vanished_process_is_asked_again():
    api = FlakyApi([ContainerRuntimeError(VANISHED), ContainerRuntimeError(VANISHED)])
    assert get(api) == {"Id": "abc"} and api.calls == 3


@pytest.mark.parametrize("error", [ContainerRuntimeError("container abc: some other failure"),
                                   PodmanNotFound("container abc: no such container")])
def test_other_errors_pass_at_once(error: Exception):
    api = FlakyApi([error])
    with pytest.raises(type(error)):
        get(api)
    assert api.calls == 1


def test_it_gives_up_after_a_few_tries():
    api = FlakyApi([ContainerRuntimeError(VANISHED) for _ in range(20)])
    with pytest.raises(ContainerRuntimeError, match="no such process"):
        get(api)
    assert api.calls == 6


# Force-removing a pod whose container exits meanwhile (Podman 4.3): the kill
# finds the container stopped and the removal fails; asked again, it succeeds.
STOPPED = ("removing pod p: 2 errors occurred: * removing container c from pod p: cannot "
           "remove container c as it could not be stopped: sending SIGKILL to container c: "
           "container state improper: stopped")


class FlakyDelete:
    def __init__(self, errors: list[Exception]) -> None:
        self.errors = errors
        self.calls: list[tuple[str, str]] = []

    def json(self, method: str, path: str, **_: Any) -> Any:
        self.calls.append((method, path))
        if self.errors:
            raise self.errors.pop(0)
        return {}


def delete(api: FlakyDelete) -> None:
    PodmanRuntime._delete_pod(SimpleNamespace(_api=api), "p")  # type: ignore[arg-type]


@pytest.mark.parametrize("errors, calls", [
    ([], 1),
    ([ContainerRuntimeError(STOPPED)], 2),
    ([ContainerRuntimeError(STOPPED), ContainerRuntimeError(STOPPED)], 3),
    ([PodmanNotFound("no such pod")], 1),  # gone already: done
])
def test_a_pod_removal_is_asked_again_when_a_member_stopped_meanwhile(
        errors: list[Exception], calls: int) -> None:
    api = FlakyDelete(errors)
    delete(api)
    assert api.calls == [("DELETE", "/pods/p")] * calls


def test_other_removal_errors_pass_at_once_and_retries_end():
    api = FlakyDelete([ContainerRuntimeError("removing pod p: some other failure")])
    with pytest.raises(ContainerRuntimeError, match="some other failure"):
        delete(api)
    assert len(api.calls) == 1
    api = FlakyDelete([ContainerRuntimeError(STOPPED) for _ in range(20)])
    with pytest.raises(ContainerRuntimeError, match="state improper"):
        delete(api)
    assert len(api.calls) == 6
