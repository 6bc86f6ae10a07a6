"""``rollout undo`` and ``rollout history``, as kubectl does them client-side,
against an in-process control plane whose history the deployment controller
wrote (no HTTP: the logic takes any Client)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.cli import rollout as rollout_command
from minikube_py.cli.main import main
from minikube_py.controllers import deployment_util as du
from minikube_py.ops import rollout
from minikube_py.ops.errors import OpError
from tests.unit.controllers.test_deployment import Env, deployment, make_env, roll_to_end, rolling

CAUSE = "kubernetes.io/change-cause"


def change(env: Env, image: str, cause: str | None) -> None:
    def edit(d: dict[str, Any]) -> None:
        d["spec"]["template"]["spec"]["containers"][0]["image"] = image
        annotations = d["metadata"].setdefault("annotations", {})
        if cause is None:
            annotations.pop(CAUSE, None)
        else:
            annotations[CAUSE] = cause
    env.edit(edit)
    roll_to_end(env)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    with make_env(tmp_path) as e:
        yield e


@pytest.fixture
def history3(env: Env) -> Env:
    """web at revision 3: nginx:1.25 ("v1"), nginx:1.26 (no cause), nginx:1.27 ("v3")."""
    obj = deployment(1, strategy=rolling(1, 0))
    obj["metadata"]["annotations"] = {CAUSE: "v1"}
    env.client.create(obj)
    roll_to_end(env)
    change(env, "nginx:1.26", None)
    change(env, "nginx:1.27", "v3")
    return env


def image(env: Env) -> str:
    return str(env.deployment()["spec"]["template"]["spec"]["containers"][0]["image"])


def revision(env: Env) -> str:
    return str(env.deployment()["metadata"]["annotations"][du.REVISION_ANNOTATION])


# ------------------------------------------------------------------ history


def test_history_table(history3: Env):
    assert rollout.history(history3.client, "default", "web") == (
        "REVISION  CHANGE-CAUSE\n"
        "1         v1\n"
        "2         <none>\n"
        "3         v3\n")


def test_history_of_one_revision_prints_its_pod_template(history3: Env):
    rs = next(r for r in history3.replica_sets()
              if du.annotations_of(r)[du.REVISION_ANNOTATION] == "1")
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    text = rollout.history(history3.client, "default", "web", 1)
    assert text.startswith(
        "Pod Template:\n"
        "  Labels:\tapp=web\n"
        f"\tpod-template-hash={pod_hash}\n"
        "  Annotations:\tkubernetes.io/change-cause: v1\n"
        "  Containers:\n"
        "   web:\n"
        "    Image:\tnginx:1.25\n")


def test_history_errors(history3: Env):
    with pytest.raises(OpError, match=r"^unable to find the specified revision$"):
        rollout.history(history3.client, "default", "web", 9)


def test_history_without_replica_sets(env: Env):
    env.client.create(deployment(1, paused=True))
    assert rollout.history(env.client, "default", "web") == "No rollout history found."


# ------------------------------------------------------------------ undo


def test_undo_goes_back_to_the_previous_revision(history3: Env):
    env = history3
    assert rollout.undo(env.client, "default", "web") == "rolled back"
    d = env.deployment()
    assert image(env) == "nginx:1.26"
    assert "pod-template-hash" not in d["spec"]["template"]["metadata"]["labels"]
    # The deployment's own revision annotation stays; the change-cause is the
    # ReplicaSet's (none for revision 2).
    assert d["metadata"]["annotations"] == {du.REVISION_ANNOTATION: "3"}

    roll_to_end(env)
    assert revision(env) == "4"
    # No new ReplicaSet: the one of revision 2 became revision 4.
    assert len(env.replica_sets()) == 3
    assert rollout.history(env.client, "default", "web") == (
        "REVISION  CHANGE-CAUSE\n"
        "1         v1\n"
        "3         v3\n"
        "4         <none>\n")
    rs4 = env.replica_sets()[-1]
    assert du.annotations_of(rs4)[du.REVISION_HISTORY_ANNOTATION] == "2"


def test_undo_to_a_revision(history3: Env):
    env = history3
    assert rollout.undo(env.client, "default", "web", 1) == "rolled back"
    assert image(env) == "nginx:1.25"
    assert env.deployment()["metadata"]["annotations"][CAUSE] == "v1"
    roll_to_end(env)
    assert revision(env) == "4"


def test_undo_to_the_current_revision_is_skipped(history3: Env):
    assert rollout.undo(history3.client, "default", "web", 3) == (
        "skipped rollback (current template already matches revision 3)")
    assert image(history3) == "nginx:1.27"


@pytest.mark.parametrize("to_revision", [7, -1])
def test_undo_to_a_missing_revision(history3: Env, to_revision: int):
    with pytest.raises(OpError) as info:
        rollout.undo(history3.client, "default", "web", to_revision)
    assert str(info.value) == f"unable to find specified revision {to_revision} in history"


def test_undo_without_history(env: Env):
    env.client.create(deployment(1))
    roll_to_end(env)
    with pytest.raises(OpError) as info:
        rollout.undo(env.client, "default", "web")
    assert str(info.value) == 'no rollout history found for deployment "web"'


def test_undo_of_a_paused_deployment_is_refused(history3: Env):
    def pause(d: dict[str, Any]) -> None:
        d["spec"]["paused"] = True
    history3.edit(pause)
    with pytest.raises(OpError) as info:
        rollout.undo(history3.client, "default", "web")
    assert str(info.value) == ("you cannot rollback a paused deployment; resume it first with "
                               "'kubectl rollout resume' and try again")


# ------------------------------------------------------------------ the command


@pytest.fixture
def cli(history3: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    monkeypatch.setattr(rollout_command, "connect", lambda args: history3.client)
    monkeypatch.setattr(rollout_command, "namespace", lambda args, client: "default")
    return history3


def test_command_output(cli: Env, capsys: pytest.CaptureFixture[str]):
    assert main(["rollout", "history", "deployment", "web"]) == 0
    assert capsys.readouterr().out == (
        "deployment.apps/web \n"
        "REVISION  CHANGE-CAUSE\n"
        "1         v1\n"
        "2         <none>\n"
        "3         v3\n"
        "\n")
    assert main(["rollout", "history", "deployment/web", "--revision", "3"]) == 0
    assert capsys.readouterr().out.startswith(
        "deployment.apps/web with revision #3\nPod Template:\n")

    assert main(["rollout", "undo", "deploy/web", "--to-revision", "3"]) == 0
    assert capsys.readouterr().out == (
        "deployment.apps/web skipped rollback (current template already matches revision 3)\n")
    assert main(["rollout", "undo", "deployment", "web", "--to-revision", "7"]) == 1
    assert capsys.readouterr().err == "error: unable to find specified revision 7 in history\n"
    assert main(["rollout", "undo", "deployment", "web"]) == 0
    assert capsys.readouterr().out == "deployment.apps/web rolled back\n"
    assert image(cli) == "nginx:1.26"


def test_command_needs_a_deployment(cli: Env, capsys: pytest.CaptureFixture[str]):
    assert main(["rollout", "undo", "pods", "web"]) == 1
    assert capsys.readouterr().err == "error: rollout undo supports deployment NAME\n"
