"""Load a scheduler :class:`~.framework.Profile` from a KubeSchedulerConfiguration file.

Accepted (a subset of ``kubescheduler.config.k8s.io/v1``)::

    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    percentageOfNodesToScore: 0          # 0 = adaptive; 1..100 = fixed
    profiles:
    - schedulerName: default-scheduler
      percentageOfNodesToScore: 50       # overrides the global value
      plugins:
        multiPoint | filter | score | postFilter:
          enabled:  [{name: ImageLocality, weight: 2}]
          disabled: [{name: NodeResourcesBalancedAllocation}]   # "*" = all defaults
      pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated          # LeastAllocated | MostAllocated | RequestedToCapacityRatio
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
            requestedToCapacityRatio:
              shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]

Merging follows kube-scheduler's ``mergePluginSet``: defaults minus the
disabled ones (``*`` drops them all), a default plugin that is enabled again
keeps its place with the new weight, other enabled plugins are appended.
``multiPoint`` applies to every point a plugin implements. PreFilter and
PreScore follow Filter and Score: a plugin disabled under ``preFilter``
(``preScore``) is disabled as a filter (scorer), since this framework runs a
plugin's PreFilter exactly when its Filter is enabled. A score weight of 0 or none means the
plugin's default weight.

Contract: every mistake raises :class:`ConfigError` whose message names the
file and the field, worded like Kubernetes' validation (``<file>:
profiles[0].plugins.score.enabled[0].weight: Invalid value: 101: not in valid
range [1, 100]``). Only one profile is supported (the scheduler runs one).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import yaml

from .framework import (
    DEFAULT_FILTERS,
    DEFAULT_POST_FILTERS,
    DEFAULT_SCORES,
    Factory,
    FilterPlugin,
    Handle,
    PluginArgsError,
    PostFilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    Profile,
    ScorePlugin,
    default_profile,
    in_tree_registry,
)

__all__ = ["API_VERSION", "KIND", "ConfigError", "load_profile", "parse_profile"]

API_VERSION: Final = "kubescheduler.config.k8s.io/v1"
KIND: Final = "KubeSchedulerConfiguration"
_TOP_FIELDS: Final = frozenset({
    "apiVersion", "kind", "profiles", "percentageOfNodesToScore", "parallelism",
    "leaderElection", "clientConnection", "healthzBindAddress", "metricsBindAddress",
    "enableProfiling", "enableContentionProfiling", "podInitialBackoffSeconds",
    "podMaxBackoffSeconds", "extenders", "delayCacheUntilActive",
})
_PROFILE_FIELDS: Final = frozenset({"schedulerName", "percentageOfNodesToScore", "plugins",
                                    "pluginConfig"})
_POINTS: Final = ("multiPoint", "preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
                  "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind")
_SUPPORTED_POINTS: Final = frozenset({"multiPoint", "preFilter", "filter", "postFilter",
                                      "preScore", "score"})
_DEFAULT_WEIGHTS: Final = dict(DEFAULT_SCORES)


class ConfigError(ValueError):
    """A scheduler configuration mistake; the message names file and field."""


class _Errors:
    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(f"{path}: {message}" if path else message)

    def raise_if_any(self) -> None:
        if self.items:
            body = self.items[0] if len(self.items) == 1 else "[" + ", ".join(self.items) + "]"
            raise ConfigError(f"{self.source}: {body}")


def load_profile(path: str | Path | None) -> Profile:
    """The profile in ``path``, or kube-scheduler's default profile for None."""
    if path is None:
        return default_profile()
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the scheduler configuration: "
                          f"{exc.strerror or exc}") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    return parse_profile(doc, source=source)


def _quote(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unknown_fields(obj: Mapping[str, Any], allowed: frozenset[str], path: str,
                    errors: _Errors) -> None:
    for key in obj:
        if key not in allowed:
            errors.add(path, f'unknown field "{path + "." if path else ""}{key}"')


def _percentage(value: object, path: str, errors: _Errors) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or not 0 <= int(str(value)) <= 100:
        errors.add(path, f"Invalid value: {_quote(value)}: not in valid range [0-100]")
        return None
    return int(str(value))


def parse_profile(doc: object, *, source: str = "<config>",
                  registry: Mapping[str, Factory] | None = None) -> Profile:
    """Validate a decoded KubeSchedulerConfiguration and build its profile."""
    errors = _Errors(source)
    if not isinstance(doc, Mapping):
        errors.add("", "must be a KubeSchedulerConfiguration object")
        errors.raise_if_any()
        raise AssertionError  # unreachable: raise_if_any raised
    if doc.get("apiVersion") != API_VERSION:
        errors.add("apiVersion", f"Unsupported value: {_quote(doc.get('apiVersion'))}: "
                                 f'supported values: "{API_VERSION}"')
    if doc.get("kind") != KIND:
        errors.add("kind", f'Unsupported value: {_quote(doc.get("kind"))}: '
                           f'supported values: "{KIND}"')
    _unknown_fields(doc, _TOP_FIELDS, "", errors)
    global_pct = _percentage(doc.get("percentageOfNodesToScore"), "percentageOfNodesToScore",
                             errors)
    profiles = doc.get("profiles")
    if profiles is None:
        profiles = [{}]
    if not isinstance(profiles, list) or not profiles:
        errors.add("profiles", "Required value: at least one profile is required")
        errors.raise_if_any()
        raise AssertionError
    if len(profiles) > 1:
        errors.add("profiles", f"Too many: {len(profiles)}: minikube-py runs one profile")
    raw = profiles[0]
    if not isinstance(raw, Mapping):
        errors.add("profiles[0]", "must be an object")
        errors.raise_if_any()
        raise AssertionError
    reg = dict(registry) if registry is not None else in_tree_registry()
    profile = _profile(raw, "profiles[0]", global_pct, reg, errors)
    errors.raise_if_any()
    return profile


def _capabilities(reg: Mapping[str, Factory]) -> dict[str, set[str]]:
    caps: dict[str, set[str]] = {}
    for name, factory in reg.items():
        try:
            plugin = factory({}, Handle())
        except (PluginArgsError, TypeError, ValueError):
            caps[name] = set()
            continue
        points: set[str] = set()
        if isinstance(plugin, FilterPlugin):
            points.add("filter")
        if isinstance(plugin, PreFilterPlugin):
            points.add("preFilter")
        if isinstance(plugin, ScorePlugin):
            points.add("score")
        if isinstance(plugin, PreScorePlugin):
            points.add("preScore")
        if isinstance(plugin, PostFilterPlugin):
            points.add("postFilter")
        caps[name] = points
    return caps


def _plugin_list(section: object, path: str, key: str, reg: Mapping[str, Factory],
                 errors: _Errors, *, weights: bool) -> list[tuple[str, int]]:
    if section is None:
        return []
    if not isinstance(section, list):
        errors.add(f"{path}.{key}", "must be a list of plugins")
        return []
    out: list[tuple[str, int]] = []
    for i, item in enumerate(section):
        ipath = f"{path}.{key}[{i}]"
        if not isinstance(item, Mapping):
            errors.add(ipath, "must be an object with a name")
            continue
        _unknown_fields(item, frozenset({"name", "weight"}), ipath, errors)
        name = item.get("name")
        if not isinstance(name, str) or not name:
            errors.add(f"{ipath}.name", "Required value")
            continue
        if name != "*" and name not in reg:
            errors.add(f"{ipath}.name", f'Invalid value: "{name}": plugin "{name}" does not exist')
            continue
        weight = item.get("weight")
        if weight is not None and (not _is_int(weight) or not 0 <= int(str(weight)) <= 100):
            errors.add(f"{ipath}.weight", f"Invalid value: {_quote(weight)}: "
                                          "not in valid range [1, 100]")
            continue
        if weight is not None and not weights and key == "enabled":
            errors.add(f"{ipath}.weight", "Forbidden: weight only applies to score plugins")
        out.append((name, int(str(weight)) if weight is not None else 0))
    return out


def _merge(defaults: list[tuple[str, int]], enabled: list[tuple[str, int]],
           disabled: set[str]) -> list[tuple[str, int]]:
    """``mergePluginSet``: defaults minus disabled, re-enabled ones in place."""
    custom = {name: (i, weight) for i, (name, weight) in enumerate(enabled)}
    replaced: set[int] = set()
    out: list[tuple[str, int]] = []
    if "*" not in disabled:
        for name, weight in defaults:
            if name in disabled:
                continue
            if name in custom:
                index, new_weight = custom[name]
                replaced.add(index)
                weight = new_weight or weight
            out.append((name, weight))
    out.extend(p for i, p in enumerate(enabled) if i not in replaced)
    return out


def _profile(raw: Mapping[str, Any], path: str, global_pct: int | None,
             reg: Mapping[str, Factory], errors: _Errors) -> Profile:
    _unknown_fields(raw, _PROFILE_FIELDS, path, errors)
    name = raw.get("schedulerName", "default-scheduler")
    if not isinstance(name, str) or not name:
        errors.add(f"{path}.schedulerName", "Required value")
        name = "default-scheduler"
    pct = _percentage(raw.get("percentageOfNodesToScore"), f"{path}.percentageOfNodesToScore",
                      errors)
    caps = _capabilities(reg)
    plugins = raw.get("plugins") or {}
    sets: dict[str, tuple[list[tuple[str, int]], set[str]]] = {}
    if not isinstance(plugins, Mapping):
        errors.add(f"{path}.plugins", "must be an object")
        plugins = {}
    for point, section in plugins.items():
        ppath = f"{path}.plugins.{point}"
        if point not in _POINTS:
            errors.add(f"{path}.plugins", f'unknown field "{point}"')
            continue
        if section is None:
            continue
        if not isinstance(section, Mapping):
            errors.add(ppath, "must be an object with enabled/disabled lists")
            continue
        _unknown_fields(section, frozenset({"enabled", "disabled"}), ppath, errors)
        enabled = _plugin_list(section.get("enabled"), ppath, "enabled", reg, errors,
                               weights=point in ("score", "multiPoint"))
        disabled = {n for n, _ in _plugin_list(section.get("disabled"), ppath, "disabled", reg,
                                               errors, weights=True)}
        if point not in _SUPPORTED_POINTS and enabled:
            errors.add(ppath, f"Unsupported value: {point}: minikube-py's framework has no "
                              f"{point} extension point")
            continue
        for i, (plugin, _) in enumerate(enabled):
            needed = point
            if point in ("preFilter", "preScore", "multiPoint"):
                continue
            if needed not in caps.get(plugin, set()):
                errors.add(f"{ppath}.enabled[{i}].name",
                           f'Invalid value: "{plugin}": plugin "{plugin}" does not extend '
                           f"{point} plugin")
        sets[point] = (enabled, disabled)

    multi_enabled, multi_disabled = sets.get("multiPoint", ([], set()))

    def point_list(point: str, defaults: list[tuple[str, int]]) -> list[tuple[str, int]]:
        # multiPoint first (restricted to the plugins implementing the point),
        # then the point's own section on top.
        enabled = [p for p in multi_enabled if point in caps.get(p[0], set())]
        merged = _merge(defaults, enabled, multi_disabled)
        own_enabled, own_disabled = sets.get(point, ([], set()))
        for pre, main in (("preFilter", "filter"), ("preScore", "score")):
            if point == main:
                _, pre_disabled = sets.get(pre, ([], set()))
                own_disabled = own_disabled | pre_disabled
        return _merge(merged, own_enabled, own_disabled)

    filters = point_list("filter", [(n, 0) for n in DEFAULT_FILTERS])
    scores = point_list("score", list(DEFAULT_SCORES))
    post = point_list("postFilter", [(n, 0) for n in DEFAULT_POST_FILTERS])
    for point, items in (("filter", filters), ("score", scores), ("postFilter", post)):
        seen: set[str] = set()
        for plugin, _ in items:
            if plugin in seen:
                errors.add(f"{path}.plugins.{point}",
                           f'Duplicate value: "{plugin}": plugin enabled more than once')
            seen.add(plugin)

    args = _plugin_config(raw.get("pluginConfig"), f"{path}.pluginConfig", reg, errors)
    return Profile(
        scheduler_name=name,
        filters=tuple(n for n, _ in filters),
        scores=tuple((n, w or _DEFAULT_WEIGHTS.get(n, 1)) for n, w in scores),
        post_filters=tuple(n for n, _ in post),
        plugin_args=args,
        percentage_of_nodes_to_score=pct if pct is not None else global_pct,
    )


def _plugin_config(raw: object, path: str, reg: Mapping[str, Factory],
                   errors: _Errors) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    if raw is None:
        return out
    if not isinstance(raw, list):
        errors.add(path, "must be a list")
        return out
    for i, item in enumerate(raw):
        ipath = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            errors.add(ipath, "must be an object with name and args")
            continue
        _unknown_fields(item, frozenset({"name", "args"}), ipath, errors)
        name = item.get("name")
        if not isinstance(name, str) or not name:
            errors.add(f"{ipath}.name", "Required value")
            continue
        if name not in reg:
            errors.add(f"{ipath}.name", f'Invalid value: "{name}": plugin "{name}" does not exist')
            continue
        if name in out:
            errors.add(f"{ipath}.name", f'Duplicate value: "{name}"')
            continue
        args = item.get("args") or {}
        if not isinstance(args, Mapping):
            errors.add(f"{ipath}.args", "must be an object")
            continue
        try:
            reg[name](args, Handle())
        except PluginArgsError as exc:
            for field, message in exc.errors:
                errors.add(f"{ipath}.args.{field}" if field else f"{ipath}.args", message)
            continue
        except (TypeError, ValueError) as exc:
            errors.add(f"{ipath}.args", f"Invalid value: {exc}")
            continue
        out[name] = dict(args)
    return out
