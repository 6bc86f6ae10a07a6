"""Job validation, as ``pkg/apis/batch/validation`` and the job registry strategy (v1.32).

* Create (``ValidateJob``): metadata with a DNS-subdomain name; unless
  ``manualSelector`` the generated selector must be there: the template carries
  ``controller-uid`` / ``job-name`` and their ``batch.kubernetes.io/`` twins with
  the job's uid and name, and the selector matches them (``selector`` not
  auto-generated otherwise); ``ValidateJobSpec``: non-negative counts, the
  completion mode, per-index limits only for Indexed jobs, the pod template
  (``restartPolicy`` ``OnFailure`` or ``Never``; ``Always``, which an omitted
  policy defaults to, is reported as *Required*), a valid selector that matches
  the template labels; an Indexed job's last pod hostname must be a DNS label.
* Update of the main resource (``ValidateJob`` + ``ValidateJobUpdate``): the
  above, plus immutable ``selector``, ``template`` (node affinity, node
  selector, tolerations, labels, annotations and scheduling gates may change
  while the job is suspended and never started), ``completionMode``,
  ``podFailurePolicy``, ``backoffLimitPerIndex``, ``managedBy`` and
  ``successPolicy``; ``completions`` may change only for Indexed jobs and only
  together with ``parallelism`` (``ElasticIndexedJob``, GA).
* Status (``ValidateJobStatusUpdate`` with the options the strategy picks
  while ``JobManagedBy`` is on, 1.32's default): counters non-negative and
  never decreasing, terminal conditions never withdrawn, ``Complete`` only with
  ``SuccessCriteriaMet`` and a ``completionTime``, ``Failed`` only with
  ``FailureTarget``, no active, terminating or uncounted pods once finished,
  and so on. As in Kubernetes most of these checks only run when the fields
  they look at change, so a controller can still fix an odd status.

The registry validates status and spec on every update of a Job: an update of
the main resource keeps the stored status (so the status checks see no change)
and a ``status`` update keeps the stored spec (so the spec checks pass as they
did before).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .errors import FieldError, FieldPath, duplicate, forbidden, invalid, not_supported, required
from .labels import SelectorError, selector_from_label_selector, validate_label_selector
from .names import is_dns1123_label
from .timefmt import parse_time as _time
from .validation_meta import (
    IMMUTABLE_MSG,
    Errs,
    GoValue,
    as_int,
    as_list,
    as_map,
    as_str,
    go_label_selector,
    go_string_map,
    immutable,
    nonnegative,
    semantic_equal,
    validate_object_meta,
    validate_object_meta_update,
)
from .validation_pod import validate_pod_template_spec

__all__ = [
    "CONTROLLER_UID_LABEL",
    "JOB_NAME_LABEL",
    "LEGACY_CONTROLLER_UID_LABEL",
    "LEGACY_JOB_NAME_LABEL",
    "is_job_finished",
    "validate_job",
    "validate_job_update",
]

LEGACY_JOB_NAME_LABEL: Final = "job-name"
LEGACY_CONTROLLER_UID_LABEL: Final = "controller-uid"
JOB_NAME_LABEL: Final = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL: Final = "batch.kubernetes.io/controller-uid"

_MAX_PARALLELISM_INDEXED: Final = 100_000
_MAX_FAILED_INDEXES: Final = 100_000
_COMPLETIONS_SOFT_LIMIT: Final = 100_000
_PARALLELISM_LIMIT_HIGH_COMPLETIONS: Final = 10_000
_MAX_FAILED_INDEXES_HIGH_COMPLETIONS: Final = 10_000
_MAX_MANAGED_BY_LENGTH: Final = 63
_COMPLETION_MODES: Final = ("NonIndexed", "Indexed")
_REPLACEMENT_POLICIES: Final = ("Failed", "TerminatingOrFailed")
_FAILURE_ACTIONS: Final = ("Count", "FailIndex", "FailJob", "Ignore")


# ------------------------------------------------------------------ helpers


def _condition_true(job: Mapping[str, Any], kind: str) -> bool:
    for cond in as_list(as_map(job.get("status")).get("conditions")):
        cond = as_map(cond)
        if cond.get("type") == kind:
            return cond.get("status") == "True"
    return False


def is_job_finished(job: Mapping[str, Any]) -> bool:
    """``IsJobFinished``: a ``Complete`` or ``Failed`` condition is True."""
    return _condition_true(job, "Complete") or _condition_true(job, "Failed")


def _has_label(meta: Mapping[str, Any], path: FieldPath, key: str, expected: str) -> Errs:
    """``ValidateHasLabel``."""
    labels = as_map(meta.get("labels"))
    label_path = path.child("labels").key(key)
    if key not in labels:
        return [required(label_path, f"must be '{expected}'")]
    if as_str(labels.get(key)) != expected:
        return [invalid(label_path, go_string_map(labels), f"must be '{expected}'")]
    return []


def _generated_selector(job: Mapping[str, Any], *, prefixed: bool) -> Errs:
    """``validateGeneratedSelector``."""
    spec = as_map(job.get("spec"))
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return []
    meta = as_map(job.get("metadata"))
    uid, name = as_str(meta.get("uid")), as_str(meta.get("name"))
    errs: Errs = []
    if not uid:
        errs.append(required(FieldPath.root("metadata", "uid"), ""))
    template_meta = as_map(as_map(spec.get("template")).get("metadata"))
    template_path = FieldPath.root("spec", "template", "metadata")
    expected = {LEGACY_CONTROLLER_UID_LABEL: uid, LEGACY_JOB_NAME_LABEL: name}
    checks = [(LEGACY_CONTROLLER_UID_LABEL, uid), (LEGACY_JOB_NAME_LABEL, name)]
    if prefixed:
        checks += [(CONTROLLER_UID_LABEL, uid), (JOB_NAME_LABEL, name)]
        expected.update({CONTROLLER_UID_LABEL: uid, JOB_NAME_LABEL: name})
    for key, value in checks:
        errs.extend(_has_label(template_meta, template_path, key, value))
    try:
        selector = selector_from_label_selector(as_map(spec.get("selector")))
    except SelectorError:
        return errs
    if not selector.matches(expected):
        errs.append(invalid(FieldPath.root("spec", "selector"),
                            go_label_selector(spec.get("selector")),
                            "`selector` not auto-generated"))
    return errs


def _pod_failure_policy(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    """The parts of ``validatePodFailurePolicy`` that concern the shape of rules."""
    errs: Errs = []
    rules = as_list(as_map(spec.get("podFailurePolicy")).get("rules"))
    rules_path = path.child("rules")
    if len(rules) > 20:
        errs.append(FieldError("TooMany", str(rules_path),
                               detail=f"must have at most 20 items (got {len(rules)})"))
    indexed = as_str(spec.get("completionMode")) == "Indexed"
    for i, raw in enumerate(rules):
        rule = as_map(raw)
        rule_path = rules_path.index(i)
        action = as_str(rule.get("action"))
        if action not in _FAILURE_ACTIONS:
            errs.append(not_supported(rule_path.child("action"), action, _FAILURE_ACTIONS))
        elif action == "FailIndex" and not (indexed and spec.get("backoffLimitPerIndex")
                                            is not None):
            errs.append(forbidden(rule_path.child("action"),
                                  "requires the backoffLimitPerIndex to be set"))
        on_codes, on_conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
        if on_codes is not None and on_conditions is not None:
            errs.append(invalid(rule_path, GoValue("specifying both OnExitCodes and "
                                                   "OnPodConditions is not supported"),
                                "specifying both OnExitCodes and OnPodConditions is not "
                                "supported"))
        elif on_codes is None and on_conditions is None:
            errs.append(invalid(rule_path, GoValue("specifying one of OnExitCodes and "
                                                   "OnPodConditions is required"),
                                "specifying one of OnExitCodes and OnPodConditions is "
                                "required"))
        if on_codes is not None:
            codes = as_map(on_codes)
            operator = as_str(codes.get("operator"))
            codes_path = rule_path.child("onExitCodes")
            if operator not in ("In", "NotIn"):
                errs.append(not_supported(codes_path.child("operator"), operator,
                                          ("In", "NotIn")))
            values = [as_int(v) for v in as_list(codes.get("values"))]
            if not values:
                errs.append(required(codes_path.child("values"), "at least one value is "
                                     "required"))
            if operator == "In" and 0 in values:
                errs.append(invalid(codes_path.child("values").index(values.index(0)), 0,
                                    "must not be 0 for the In operator"))
    return errs


def _job_spec_body(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validateJobSpec``."""
    errs: Errs = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                "ttlSecondsAfterFinished", "backoffLimitPerIndex"):
        errs.extend(nonnegative(spec.get(key), path.child(key)))
    parallelism, completions = as_int(spec.get("parallelism")), as_int(spec.get("completions"))
    per_index, max_failed = as_int(spec.get("backoffLimitPerIndex")), as_int(
        spec.get("maxFailedIndexes"))
    if max_failed is not None:
        errs.extend(nonnegative(max_failed, path.child("maxFailedIndexes")))
        if per_index is None:
            errs.append(required(path.child("backoffLimitPerIndex"),
                                 "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if managed_by is not None:
        value = as_str(managed_by)
        if "/" not in value or not value.split("/", 1)[0]:
            errs.append(invalid(path.child("managedBy"), value,
                                "must be a domain-prefixed path (such as \"acme.io/foo\")"))
        if len(value) > _MAX_MANAGED_BY_LENGTH:
            errs.append(FieldError("TooLong", str(path.child("managedBy")),
                                   detail=f"may not be more than {_MAX_MANAGED_BY_LENGTH} "
                                   "bytes"))
    mode = spec.get("completionMode")
    if mode is not None:
        mode_text = as_str(mode)
        if mode_text not in _COMPLETION_MODES:
            errs.append(not_supported(path.child("completionMode"), mode_text,
                                      _COMPLETION_MODES))
        if mode_text == "Indexed":
            if completions is None:
                errs.append(required(path.child("completions"),
                                     "when completion mode is Indexed"))
            if parallelism is not None and parallelism > _MAX_PARALLELISM_INDEXED:
                errs.append(invalid(path.child("parallelism"), parallelism,
                                    f"must be less than or equal to {_MAX_PARALLELISM_INDEXED} "
                                    "when completion mode is Indexed"))
            if completions is not None and max_failed is not None and max_failed > completions:
                errs.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                    "must be less than or equal to completions"))
            if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
                errs.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                    f"must be less than or equal to {_MAX_FAILED_INDEXES}"))
            if completions is not None and completions > _COMPLETIONS_SOFT_LIMIT and \
                    per_index is not None:
                if max_failed is None:
                    errs.append(required(path.child("maxFailedIndexes"),
                                         "must be specified when completions is above "
                                         f"{_COMPLETIONS_SOFT_LIMIT}"))
                high = (f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with "
                        "backoff limit per index")
                if parallelism is not None and parallelism > _PARALLELISM_LIMIT_HIGH_COMPLETIONS:
                    errs.append(invalid(path.child("parallelism"), parallelism,
                                        "must be less than or equal to "
                                        f"{_PARALLELISM_LIMIT_HIGH_COMPLETIONS} {high}"))
                if max_failed is not None and max_failed > _MAX_FAILED_INDEXES_HIGH_COMPLETIONS:
                    errs.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                        "must be less than or equal to "
                                        f"{_MAX_FAILED_INDEXES_HIGH_COMPLETIONS} {high}"))
    if mode is None or as_str(mode) == "NonIndexed":
        if per_index is not None:
            errs.append(invalid(path.child("backoffLimitPerIndex"), per_index,
                                "requires indexed completion mode"))
        if max_failed is not None:
            errs.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                "requires indexed completion mode"))
    if spec.get("podFailurePolicy") is not None:
        errs.extend(_pod_failure_policy(spec, path.child("podFailurePolicy")))
    if spec.get("successPolicy") is not None and as_str(mode) != "Indexed":
        errs.append(invalid(path.child("successPolicy"), GoValue("batch.SuccessPolicy{...}"),
                            "requires indexed completion mode"))
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        value = as_str(replacement)
        if value not in _REPLACEMENT_POLICIES:
            errs.append(not_supported(path.child("podReplacementPolicy"), value,
                                      _REPLACEMENT_POLICIES))
        elif spec.get("podFailurePolicy") is not None and value != "Failed":
            errs.append(not_supported(path.child("podReplacementPolicy"), value, ("Failed",)))
    template = as_map(spec.get("template"))
    template_path = path.child("template")
    errs.extend(validate_pod_template_spec(template, template_path))
    restart = as_str(as_map(template.get("spec")).get("restartPolicy"))
    restart_path = template_path.child("spec", "restartPolicy")
    if restart in ("Always", ""):
        # SetDefaults_PodSpec turns an omitted policy into Always.
        errs.append(required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(not_supported(restart_path, restart, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        errs.append(invalid(restart_path, restart,
                            'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _job_spec(spec_value: Any, path: FieldPath) -> Errs:
    """``ValidateJobSpec``."""
    spec = as_map(spec_value)
    errs = _job_spec_body(spec, path)
    selector = spec.get("selector")
    selector_path = path.child("selector")
    if selector is None:
        errs.append(required(selector_path, ""))
    else:
        errs.extend(validate_label_selector(selector, selector_path))
    try:
        compiled = selector_from_label_selector(None if selector is None else as_map(selector))
    except SelectorError:
        return errs
    labels = as_map(as_map(spec.get("template")).get("metadata")).get("labels")
    if selector is not None and not compiled.matches(as_map(labels)):
        errs.append(invalid(path.child("template", "metadata", "labels"),
                            go_string_map(labels), "`selector` does not match template "
                            "`labels`"))
    return errs


def _validate(job: Mapping[str, Any], *, prefixed: bool) -> Errs:
    """``ValidateJob``."""
    meta = as_map(job.get("metadata"))
    errs = validate_object_meta(meta, namespaced=True, name_rule="subdomain")
    errs.extend(_generated_selector(job, prefixed=prefixed))
    spec = as_map(job.get("spec"))
    errs.extend(_job_spec(spec, FieldPath.root("spec")))
    completions = as_int(spec.get("completions"))
    if as_str(spec.get("completionMode")) == "Indexed" and completions is not None and \
            completions > 0:
        name = as_str(meta.get("name"))
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(invalid(FieldPath.root("metadata", "name"), name,
                                "will not able to create pod with invalid DNS label: "
                                f"{hostname}"))
    return errs


def validate_job(job: Mapping[str, Any]) -> Errs:
    """``ValidateJob`` for a new job (the strategy requires the prefixed labels)."""
    return _validate(job, prefixed=True)


# ------------------------------------------------------------------- update


_SCHEDULING_DIRECTIVES: Final = ("nodeSelector", "tolerations", "schedulingGates")


def _template_update(spec: Mapping[str, Any], old_spec: Mapping[str, Any], path: FieldPath, *,
                     mutable_scheduling: bool) -> Errs:
    """``validatePodTemplateUpdate``."""
    template = as_map(spec.get("template"))
    old_template: dict[str, Any] = {k: v for k, v in as_map(old_spec.get("template")).items()}
    if mutable_scheduling:
        old_meta = dict(as_map(old_template.get("metadata")))
        new_meta = as_map(template.get("metadata"))
        for key in ("labels", "annotations"):
            old_meta[key] = new_meta.get(key)
        old_pod = dict(as_map(old_template.get("spec")))
        new_pod = as_map(template.get("spec"))
        for key in _SCHEDULING_DIRECTIVES:
            old_pod[key] = new_pod.get(key)
        old_affinity, new_affinity = old_pod.get("affinity"), new_pod.get("affinity")
        if new_affinity is None and old_affinity is not None:
            rest = {k: v for k, v in as_map(old_affinity).items() if k != "nodeAffinity"}
            old_pod["affinity"] = rest or None
        elif new_affinity is not None:
            rest = {k: v for k, v in as_map(old_affinity).items() if k != "nodeAffinity"}
            node = as_map(new_affinity).get("nodeAffinity")
            old_pod["affinity"] = {**rest, **({"nodeAffinity": node} if node is not None
                                              else {})}
        old_template = {**old_template, "metadata": old_meta, "spec": old_pod}
    if semantic_equal(template, old_template):
        return []
    # Kubernetes prints the whole core.PodTemplateSpec with %#v here.
    return [invalid(path.child("template"), GoValue("core.PodTemplateSpec{...}"),
                    IMMUTABLE_MSG)]


def _completions_update(spec: Mapping[str, Any], old_spec: Mapping[str, Any],
                        path: FieldPath) -> Errs:
    """``validateCompletions`` with ``ElasticIndexedJob`` on."""
    new, old = spec.get("completions"), old_spec.get("completions")
    if as_str(spec.get("completionMode")) != "Indexed":
        return immutable(new, old, path.child("completions"))
    if semantic_equal(new, old) or new is None:
        return []
    if as_int(new) != as_int(spec.get("parallelism")):
        return [invalid(path.child("completions"), new,
                        "can only be modified in tandem with spec.parallelism")]
    return []


def _spec_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateJobSpecUpdate`` (the ``ValidateJobSpec`` part runs in ``_validate``)."""
    spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    path = FieldPath.root("spec")
    errs = _completions_update(spec, old_spec, path)
    errs.extend(immutable(spec.get("selector"), old_spec.get("selector"), path.child("selector"),
                          shown=go_label_selector(spec.get("selector"))))
    suspended = old_spec.get("suspend") is True
    not_started = as_map(old.get("status")).get("startTime") is None
    errs.extend(_template_update(spec, old_spec, path,
                                 mutable_scheduling=suspended and not_started))
    for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy",
                "successPolicy"):
        errs.extend(immutable(spec.get(key), old_spec.get(key), path.child(key)))
    return errs


# ------------------------------------------------------------------- status


def _parse_indexes(text: str, completions: int) -> str:
    """``validateIndexesFormat``'s error, ``""`` when ``text`` is well formed."""
    if not text:
        return ""
    previous = -1
    for part in text.split(","):
        bounds = part.split("-")
        if len(bounds) > 2:
            return f'the fragment "{part}" violates the requirement that an index interval ' \
                   "can have at most two parts"
        try:
            first, last = int(bounds[0]), int(bounds[-1])
        except ValueError:
            return f'cannot convert string to integer for index: "{part}"'
        if first < 0 or last >= completions:
            return f"too large index: {max(first, last)}"
        if first <= previous:
            return f"non-increasing order, previous: {previous}, current: {first}"
        if len(bounds) == 2 and first >= last:
            return f'the fragment "{part}" violates the requirement that first index must ' \
                   "be less than last index"
        previous = last
    return ""


def _status_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``validateJobStatus`` + ``ValidateJobStatusUpdate``, gated as the strategy does."""
    status, old_status = as_map(new.get("status")), as_map(old.get("status"))
    spec = as_map(new.get("spec"))
    path = FieldPath.root("status")
    errs: Errs = []
    for key in ("active", "succeeded", "failed", "ready", "terminating"):
        errs.extend(nonnegative(status.get(key), path.child(key)))
    uncounted = as_map(status.get("uncountedTerminatedPods"))
    seen: set[str] = set()
    for kind in ("succeeded", "failed"):
        for i, uid in enumerate(as_list(uncounted.get(kind))):
            uid_path = path.child("uncountedTerminatedPods", kind).index(i)
            text = as_str(uid)
            if not text:
                errs.append(invalid(uid_path, text, "must not be empty"))
            elif text in seen:
                errs.append(duplicate(uid_path, text))
            else:
                seen.add(text)

    def changed(key: str) -> bool:
        return not semantic_equal(status.get(key), old_status.get(key))

    complete, old_complete = _condition_true(new, "Complete"), _condition_true(old, "Complete")
    failed, old_failed = _condition_true(new, "Failed"), _condition_true(old, "Failed")
    target, old_target = (_condition_true(new, "FailureTarget"),
                          _condition_true(old, "FailureTarget"))
    met, old_met = (_condition_true(new, "SuccessCriteriaMet"),
                    _condition_true(old, "SuccessCriteriaMet"))
    finished, old_finished = complete or failed, old_complete or old_failed
    complete_changed, failed_changed = complete != old_complete, failed != old_failed
    finished_changed = finished != old_finished
    conditions = path.child("conditions")
    start, completion = _time(status.get("startTime")), _time(status.get("completionTime"))

    if (complete_changed or failed_changed) and complete and failed:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set Complete=True and Failed=true conditions"))
    if (complete_changed or target != old_target) and complete and target:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set Complete=True and FailureTarget=true "
                               "conditions"))
    if complete_changed or changed("completionTime"):
        if status.get("completionTime") is not None and not complete:
            errs.append(invalid(path.child("completionTime"), status.get("completionTime"),
                                "cannot set completionTime when there is no Complete=True "
                                "condition"))
        if status.get("completionTime") is None and complete:
            errs.append(required(path.child("completionTime"),
                                 "completionTime is required for Complete jobs"))
    if (changed("startTime") or changed("completionTime")) and start is not None and \
            completion is not None and completion < start:
        errs.append(invalid(path.child("completionTime"), status.get("completionTime"),
                            "completionTime cannot be set before startTime"))
    if (failed_changed or target != old_target) and failed and not target:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set Failed=True condition without the "
                               "FailureTarget=true condition"))
    if (complete_changed or met != old_met) and complete and not met:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set Complete=True condition without the "
                               "SuccessCriteriaMet=true condition"))
    active = as_int(status.get("active")) or 0
    if (finished_changed or changed("active")) and finished and active > 0:
        errs.append(invalid(path.child("active"), active, "active>0 is invalid for finished "
                            "job"))
    if (finished_changed or changed("startTime")) and finished and status.get(
            "startTime") is None:
        errs.append(required(path.child("startTime"), "startTime is required for finished "
                             "job"))
    if (finished_changed or changed("uncountedTerminatedPods")) and finished and (
            as_list(uncounted.get("succeeded")) or as_list(uncounted.get("failed"))):
        errs.append(invalid(path.child("uncountedTerminatedPods"),
                            GoValue("&batch.UncountedTerminatedPods{...}"),
                            "uncountedTerminatedPods needs to be empty for finished job"))
    terminating = as_int(status.get("terminating")) or 0
    if (finished_changed or changed("terminating")) and finished and terminating > 0:
        errs.append(invalid(path.child("terminating"), terminating,
                            "terminating>0 is invalid for finished job"))
    ready = as_int(status.get("ready"))
    if (changed("ready") or changed("active")) and ready is not None and ready > active:
        errs.append(invalid(path.child("ready"), ready, "cannot set more ready pods than "
                            "active"))
    indexed = as_str(spec.get("completionMode")) == "Indexed"
    completed_indexes = as_str(status.get("completedIndexes"))
    if changed("completedIndexes"):
        completions = as_int(spec.get("completions"))
        if completions is not None:
            problem = _parse_indexes(completed_indexes, completions)
            if problem:
                errs.append(invalid(path.child("completedIndexes"), completed_indexes,
                                    f"error parsing completedIndexes: {problem}"))
        if completed_indexes and not indexed:
            errs.append(invalid(path.child("completedIndexes"), completed_indexes,
                                "cannot set non-empty completedIndexes when non-indexed "
                                "completion mode"))
    if met and failed:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set SuccessCriteriaMet=True and Failed=true "
                               "conditions"))
    if met and target:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set SuccessCriteriaMet=True and "
                               "FailureTarget=true conditions"))
    # ValidateJobStatusUpdate proper.
    for kind, was, now in (("Failed", old_failed, failed), ("Complete", old_complete, complete),
                           ("FailureTarget", old_target, target)):
        if was and not now:
            errs.append(FieldError("Invalid", str(conditions),
                                   detail=f"cannot disable the terminal {kind}=True condition"))
    for key in ("failed", "succeeded"):
        if key == "succeeded" and indexed and semantic_equal(spec.get("completions"),
                                                              spec.get("parallelism")):
            continue  # elastic Indexed jobs may scale down
        new_count, old_count = as_int(status.get(key)) or 0, as_int(old_status.get(key)) or 0
        if new_count < old_count:
            errs.append(invalid(path.child(key), new_count, f"cannot decrease the {key} "
                                "counter"))
    if status.get("completionTime") is not None and old_status.get("completionTime") is not \
            None and changed("completionTime"):
        errs.append(invalid(path.child("completionTime"), status.get("completionTime"),
                            "completionTime cannot be mutated"))
    if changed("startTime") and old_status.get("startTime") is not None and \
            spec.get("suspend") is not True:
        errs.append(required(path.child("startTime"), "startTime cannot be removed for "
                             "unsuspended job"))
    if old_met and not met:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot disable the SuccessCriteriaMet=True condition"))
    if old_complete and not old_met and met:
        errs.append(FieldError("Invalid", str(conditions),
                               detail="cannot set SuccessCriteriaMet=True for Job already has "
                               "Complete=true conditions"))
    return errs


def validate_job_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateJob`` + ``ValidateJobUpdate`` (main resource) followed by the status
    checks (see the module docstring)."""
    old_labels = as_map(as_map(as_map(as_map(old.get("spec")).get("template")).get(
        "metadata")).get("labels"))
    # Jobs created before the prefixed labels existed are not required to have them.
    prefixed = JOB_NAME_LABEL in old_labels and CONTROLLER_UID_LABEL in old_labels
    errs = _validate(new, prefixed=prefixed)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    errs.extend(_spec_update(new, old))
    errs.extend(_status_errors(new, old))
    return errs
