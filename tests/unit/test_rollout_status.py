"""`rollout status` decisions, as kubectl's DeploymentStatusViewer makes them."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.ops.rollout import RolloutFailed, status_message


def dep(generation: int = 2, desired: int = 3, **status: Any) -> dict[str, Any]:
    return {"metadata": {"name": "web", "generation": generation},
            "spec": {"replicas": desired}, "status": status}


@pytest.mark.parametrize("obj, message, done", [
    (dep(observedGeneration=1), "Waiting for deployment spec update to be observed...", False),
    (dep(observedGeneration=2, updatedReplicas=1, replicas=3),
     'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been '
     "updated...", False),
    (dep(observedGeneration=2, updatedReplicas=3, replicas=4),
     'Waiting for deployment "web" rollout to finish: 1 old replicas are pending '
     "termination...", False),
    (dep(observedGeneration=2, updatedReplicas=3, replicas=3, availableReplicas=2),
     'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are '
     "available...", False),
    (dep(observedGeneration=2, updatedReplicas=3, replicas=3, availableReplicas=3),
     'deployment "web" successfully rolled out', True),
    (dep(desired=0, observedGeneration=2), 'deployment "web" successfully rolled out', True),
])
def test_status_message(obj: dict[str, Any], message: str, done: bool):
    assert status_message(obj) == (message, done)


def test_progress_deadline_exceeded_fails():
    obj = dep(observedGeneration=2, conditions=[
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}])
    with pytest.raises(RolloutFailed, match='deployment "web" exceeded its progress deadline'):
        status_message(obj)
