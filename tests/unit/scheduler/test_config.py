"""load_profile: KubeSchedulerConfiguration files and their mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from minikube_py.scheduler.config import ConfigError, load_profile
from minikube_py.scheduler.framework import DEFAULT_SCORES, Framework, default_profile

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def write(tmp_path: Path, body: str, header: str = HEADER) -> Path:
    path = tmp_path / "scheduler.yaml"
    path.write_text(header + body)
    return path


def test_none_is_the_default_profile() -> None:
    assert load_profile(None) == default_profile()


def test_minimal_file_is_the_default_profile(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, ""))
    assert profile.scores == DEFAULT_SCORES
    assert profile.filters == default_profile().filters


def test_weights_enable_disable_and_strategy(tmp_path: Path) -> None:
    path = write(tmp_path, """\
percentageOfNodesToScore: 30
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: ImageLocality
        weight: 5
      - name: NodeResourcesFit
      disabled:
      - name: NodeResourcesBalancedAllocation
    filter:
      disabled:
      - name: NodePorts
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
""")
    profile = load_profile(path)
    assert dict(profile.scores) == {"TaintToleration": 3, "NodeAffinity": 2,
                                    "NodeResourcesFit": 1, "PodTopologySpread": 2,
                                    "InterPodAffinity": 2, "ImageLocality": 5}
    # A re-enabled default keeps its place.
    assert [n for n, _ in profile.scores][-1] == "ImageLocality"
    assert "NodePorts" not in profile.filters
    assert profile.percentage_of_nodes_to_score == 30
    assert profile.scoring_strategy["type"] == "RequestedToCapacityRatio"
    Framework(profile)  # builds


def test_disable_all_with_star_and_multipoint(tmp_path: Path) -> None:
    path = write(tmp_path, """\
profiles:
- percentageOfNodesToScore: 70
  plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled:
      - name: NodeResourcesFit
        weight: 4
      - name: TaintToleration
""")
    profile = load_profile(path)
    assert profile.filters == ("NodeResourcesFit", "TaintToleration")
    assert profile.scores == (("NodeResourcesFit", 4), ("TaintToleration", 3))
    assert profile.post_filters == ()
    assert profile.percentage_of_nodes_to_score == 70


ERRORS = [
    ("unknown plugin", "profiles:\n- plugins:\n    score:\n      enabled: [{name: Magic}]\n",
     'profiles[0].plugins.score.enabled[0].name: Invalid value: "Magic": plugin "Magic" '
     "does not exist"),
    ("weight above 100",
     "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 101}]\n",
     "profiles[0].plugins.score.enabled[0].weight: Invalid value: 101: not in valid range "
     "[1, 100]"),
    ("negative weight",
     "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: -1}]\n",
     "profiles[0].plugins.score.enabled[0].weight: Invalid value: -1"),
    ("filter that is no filter",
     "profiles:\n- plugins:\n    filter:\n      enabled: [{name: ImageLocality}]\n",
     'profiles[0].plugins.filter.enabled[0].name: Invalid value: "ImageLocality": plugin '
     '"ImageLocality" does not extend filter plugin'),
    ("percentage out of range", "percentageOfNodesToScore: 101\n",
     "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    ("unknown strategy",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
     "      scoringStrategy: {type: Random}\n",
     'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Random": '
     'supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'),
    ("resource weight",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
     "      scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 0}]}\n",
     "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 0: "
     "resource weight of cpu not in valid range (0, 100]"),
    ("shape required",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
     "      scoringStrategy: {type: RequestedToCapacityRatio}\n",
     "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: "
     "Required value: at least one point must be specified"),
    ("shape score out of range",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
     "      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
     "        requestedToCapacityRatio: {shape: [{utilization: 0, score: 11}]}\n",
     "shape[0].score: Invalid value: 11: not in valid range [0, 10]"),
    ("shape not increasing",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
     "      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
     "        requestedToCapacityRatio: {shape: [{utilization: 50, score: 1}, "
     "{utilization: 10, score: 2}]}\n",
     "shape[1].utilization: Invalid value: 10: utilization values must be sorted in "
     "increasing order"),
    ("unknown pluginConfig plugin", "profiles:\n- pluginConfig:\n  - name: Nope\n",
     'profiles[0].pluginConfig[0].name: Invalid value: "Nope": plugin "Nope" does not exist'),
    ("duplicate pluginConfig",
     "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n  - name: NodeResourcesFit\n",
     'profiles[0].pluginConfig[1].name: Duplicate value: "NodeResourcesFit"'),
    ("unknown field", "profiles:\n- plugins: {}\n  colour: blue\n",
     'profiles[0]: unknown field "profiles[0].colour"'),
    ("unknown extension point", "profiles:\n- plugins:\n    scoring: {}\n",
     'profiles[0].plugins: unknown field "scoring"'),
    ("two profiles", "profiles:\n- schedulerName: a\n- schedulerName: b\n",
     "profiles: Too many: 2: minikube-py runs one profile"),
    ("interpod weight", "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n"
     "    args: {hardPodAffinityWeight: 500}\n",
     "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 500: not in "
     "valid range [0, 100]"),
]


@pytest.mark.parametrize(("name", "body", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_the_file_and_field(tmp_path: Path, name: str, body: str,
                                        message: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(ConfigError) as err:
        load_profile(path)
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)


def test_wrong_api_version_and_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "", header="apiVersion: v1\nkind: Pod\n")
    with pytest.raises(ConfigError) as err:
        load_profile(path)
    text = str(err.value)
    assert 'apiVersion: Unsupported value: "v1": supported values: ' \
           '"kubescheduler.config.k8s.io/v1"' in text
    assert 'kind: Unsupported value: "Pod"' in text


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=f"^{missing}: cannot read"):
        load_profile(missing)
    bad = write(tmp_path, "profiles: [\n")
    with pytest.raises(ConfigError, match=f"^{bad}: not valid YAML"):
        load_profile(bad)
    with pytest.raises(ConfigError, match="must be a KubeSchedulerConfiguration object"):
        load_profile(write(tmp_path, "", header="- just a list\n"))
