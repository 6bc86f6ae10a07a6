"""Image pulls per ``imagePullPolicy``, with the kubelet's events
(``pkg/kubelet/images``).

:meth:`ImagePuller.ensure` makes a container's image present, or says why it
is not:

* present and the policy is not ``Always``: a ``Pulled`` event ``Container
  image "x" already present on machine``;
* ``Never`` and absent: ``ErrImageNeverPull`` (``Container image "x" is not
  present with pull policy of Never``);
* otherwise ``Pulling`` then, on success, ``Pulled`` with the time taken and
  the size, or on failure ``Failed`` events and ``ErrImagePull``.

It returns ``None`` when the image is there, else the waiting ``(reason,
message)`` for the container's status. Pull policy defaults as the API does
(``Always`` for ``:latest`` or no tag, else ``IfNotPresent``).

A failed pull backs off per pod and image, as the kubelet does: 10 s doubling
to 300 s. Until the back-off has passed no pull is tried, the status says
``ImagePullBackOff`` (``Back-off pulling image "x"``) and a ``BackOff`` event is
recorded; a success forgets the back-off.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..api.defaults import image_pull_policy
from ..client.base import Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..runtime.base import ContainerRuntime, ContainerRuntimeError

__all__ = ["ImagePuller", "go_duration"]


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String`` prints it (``1.5s``, ``12ms``)."""
    if seconds >= 60:
        m, s = divmod(seconds, 60)
        return f"{int(m)}m{s:g}s"
    if seconds >= 1:
        return f"{round(seconds, 9):g}s"
    if seconds >= 1e-3:
        return f"{round(seconds * 1e3, 6):g}ms"
    return f"{round(seconds * 1e6, 3):g}µs"


class ImagePuller:
    """Ensures container images (see the module contract)."""

    def __init__(self, runtime: ContainerRuntime, recorder: EventRecorder, *,
                 clock: Callable[[], float] = time.monotonic,
                 backoff: tuple[float, float] = (10.0, 300.0)) -> None:
        self.runtime = runtime
        self.recorder = recorder
        self._clock = clock
        self._base, self._cap = backoff
        self._lock = threading.Lock()
        #: (pod uid, image) -> (failures so far, no pull before this time)
        self._failures: dict[tuple[str, str], tuple[int, float]] = {}

    def forget(self, uid: str) -> None:
        """Drop the back-off of a pod that is gone."""
        with self._lock:
            for key in [k for k in self._failures if k[0] == uid]:
                del self._failures[key]

    def retry_in(self, uid: str, image: str) -> float:
        """Seconds until a pull of ``image`` for pod ``uid`` may be tried again."""
        with self._lock:
            entry = self._failures.get((uid, image))
        return 0.0 if entry is None else max(0.0, entry[1] - self._clock())

    def ensure(self, pod: Object, c: Mapping[str, Any],
               field_path: str) -> tuple[str, str] | None:
        """``None`` once the image of container ``c`` is present, else why not."""
        image = str(c.get("image", ""))
        policy = c.get("imagePullPolicy") or image_pull_policy(image)
        present = self.runtime.image_status(image)
        if present is not None and policy != "Always":
            self.recorder.record(pod, EVENT_NORMAL, "Pulled",
                                 f'Container image "{image}" already present on machine',
                                 field_path=field_path)
            return None
        if policy == "Never":
            message = f'Container image "{image}" is not present with pull policy of Never'
            self.recorder.record(pod, EVENT_WARNING, "ErrImageNeverPull", message,
                                 field_path=field_path)
            self.recorder.record(pod, EVENT_WARNING, "Failed", "Error: ErrImageNeverPull",
                                 field_path=field_path)
            return "ErrImageNeverPull", message
        uid = str((pod.get("metadata") or {}).get("uid", ""))
        if self.retry_in(uid, image) > 0:
            message = f'Back-off pulling image "{image}"'
            self.recorder.record(pod, EVENT_NORMAL, "BackOff", message, field_path=field_path)
            return "ImagePullBackOff", message
        self.recorder.record(pod, EVENT_NORMAL, "Pulling", f'Pulling image "{image}"',
                             field_path=field_path)
        started = time.monotonic()
        try:
            self.runtime.pull_image(image)
        except ContainerRuntimeError as exc:
            with self._lock:
                failures = self._failures.get((uid, image), (0, 0.0))[0] + 1
                delay = min(self._base * 2 ** (failures - 1), self._cap)
                self._failures[(uid, image)] = (failures, self._clock() + delay)
            self.recorder.record(pod, EVENT_WARNING, "Failed",
                                 f'Failed to pull image "{image}": {exc}', field_path=field_path)
            self.recorder.record(pod, EVENT_WARNING, "Failed", "Error: ErrImagePull",
                                 field_path=field_path)
            return "ErrImagePull", str(exc)
        with self._lock:
            self._failures.pop((uid, image), None)
        took = go_duration(time.monotonic() - started)
        pulled = self.runtime.image_status(image)
        size = f" Image size: {pulled.size_bytes} bytes." if pulled is not None else ""
        self.recorder.record(pod, EVENT_NORMAL, "Pulled",
                             f'Successfully pulled image "{image}" in {took} '
                             f"({took} including waiting).{size}", field_path=field_path)
        return None
