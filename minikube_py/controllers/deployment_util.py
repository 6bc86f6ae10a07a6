"""What Deployments and their ReplicaSets are made of, as
``pkg/controller/deployment/util`` defines it: names, fenceposts, hashing,
revisions, ordering, counts and annotations.

Pure functions over Kubernetes-shaped dicts: no API calls, no clock, no
mutation of their arguments unless the name says so (``set_*``, ``copy_*``).
The deployment controller (with :mod:`.deployment_scaling` for the scaling
math and :mod:`.deployment_progress` for conditions and status) and
``minikube-py rollout`` share them, so a rule is written once.

What is Kubernetes' to the letter:

* **Fenceposts** (:func:`resolve_fenceposts`): ``maxSurge`` percentages round
  up, ``maxUnavailable`` percentages round down, and when both resolve to 0
  ``maxUnavailable`` becomes 1. Strings without ``%`` are errors, as in
  ``intstr.GetScaledValueFromIntOrPercent``.
* **Revisions and annotations**: revision = max of the old ReplicaSets + 1,
  revision-history kept when an old ReplicaSet becomes new again (capped at
  2000 characters), desired-replicas / max-replicas, and the deployment's own
  annotations copied to its new ReplicaSet except :data:`ANNOTATIONS_TO_SKIP`.
* **Ordering**: by creation time then name, by size (newer or older first on
  ties), by revision; the new ReplicaSet is the oldest one whose template
  equals the deployment's once ``pod-template-hash`` is ignored.

What differs: :func:`compute_hash` is FNV-32a over canonical JSON of the
template (Kubernetes hashes Go's ``spew`` dump of the struct), so a template
gets another ``pod-template-hash`` here than on a real cluster; the
properties that matter hold (stable for the same template, different when
``collisionCount`` changes, rendered with ``SafeEncodeString``'s alphabet).
Template equality treats nulls and empty maps/lists as absent, as
``apiequality.Semantic`` and omitempty do.
"""

from __future__ import annotations

import functools
import json
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..api import access
from ..api.jsoncopy import deep_copy
from ..api.timefmt import parse_time

Obj = dict[str, Any]

# ----------------------------------------------------------------- names

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to"
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
CHANGE_CAUSE_ANNOTATION = "kubernetes.io/change-cause"
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"

#: Annotations never copied from a Deployment to its ReplicaSets (nor back by
#: ``rollout undo``).
ANNOTATIONS_TO_SKIP = frozenset({
    LAST_APPLIED_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, ROLLBACK_TO_ANNOTATION,
})

#: The revision-history annotation stops growing past this many characters.
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000

#: ``math.MaxInt32``: progressDeadlineSeconds / revisionHistoryLimit "unset".
MAX_INT32 = 2**31 - 1

ROLLING_UPDATE = "RollingUpdate"
RECREATE = "Recreate"

# Condition types and reasons (deployment_util.go's constants).
PROGRESSING = "Progressing"
AVAILABLE = "Available"
REPLICA_FAILURE = "ReplicaFailure"
REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_REPLICA_SET_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_DEPLOY_REASON = "DeploymentPaused"
RESUMED_DEPLOY_REASON = "DeploymentResumed"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"


# ----------------------------------------------------------------- accessors


# meta, spec, status, name_of, uid_of and annotations_of are the shared
# accessors (minikube_py.api.access), under the names this package uses.
meta = access.meta
spec = access.spec_of
status = access.status_of
name_of = access.name_of
uid_of = access.uid_of
annotations_of = access.annotations_of


def int_value(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


def replicas(obj: Mapping[str, Any] | None) -> int:
    """``*spec.replicas`` (defaulted to 1 by the API, as for both kinds)."""
    if obj is None:
        return 0
    return int_value(spec(obj).get("replicas"), 1)


def status_int(obj: Mapping[str, Any] | None, field: str) -> int:
    return 0 if obj is None else int_value(status(obj).get(field))


def strategy_type(d: Mapping[str, Any]) -> str:
    return str(access.mapping(spec(d).get("strategy")).get("type") or ROLLING_UPDATE)


def is_rolling_update(d: Mapping[str, Any]) -> bool:
    return strategy_type(d) == ROLLING_UPDATE


def controller_of(obj: Mapping[str, Any]) -> Obj | None:
    """``metav1.GetControllerOf``: the owner reference with ``controller: true``."""
    for ref in meta(obj).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def controller_ref(d: Mapping[str, Any]) -> Obj:
    """``metav1.NewControllerRef(d, apps/v1 Deployment)``."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "name": name_of(d),
            "uid": uid_of(d), "controller": True, "blockOwnerDeletion": True}


# ----------------------------------------------------------------- time


# ----------------------------------------------------------------- intstr


class IntOrStringError(ValueError):
    """An IntOrString that is neither an int nor a percentage."""


def scaled_value(value: int | str | None, total: int, *, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent`` (``None`` reads as 0, like
    ``ValueOrDefault(nil, 0)``)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise IntOrStringError("invalid value for IntOrString: invalid type: neither int nor "
                               "percentage")
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise IntOrStringError("invalid value for IntOrString: invalid type: string is not a "
                               "percentage")
    digits = value[:-1]
    try:
        percent = int(digits, 10)
    except ValueError:
        raise IntOrStringError(f'invalid value for IntOrString: invalid value "{value}": '
                               f'strconv.Atoi: parsing "{digits}": invalid syntax') from None
    product = percent * total
    # Integer ceil/floor of product/100: exactly what float64 math gives for
    # int32-sized operands, without float surprises.
    return -(-product // 100) if round_up else product // 100


def resolve_fenceposts(max_surge: int | str | None, max_unavailable: int | str | None,
                       desired: int) -> tuple[int, int]:
    """``ResolveFenceposts``: (surge, unavailable) for ``desired`` replicas."""
    surge = scaled_value(max_surge, desired, round_up=True)
    unavailable = scaled_value(max_unavailable, desired, round_up=False)
    if surge == 0 and unavailable == 0:
        # Validation forbids both 0, but rounding down can still produce it;
        # surge might be blocked by quota, so allow one unavailable pod.
        unavailable = 1
    return surge, unavailable


def rolling_params(d: Mapping[str, Any]) -> tuple[Any, Any]:
    rolling = access.mapping(access.mapping(spec(d).get("strategy")).get("rollingUpdate"))
    return rolling.get("maxSurge"), rolling.get("maxUnavailable")


def max_surge(d: Mapping[str, Any]) -> int:
    """``MaxSurge``: 0 for Recreate; an unparsable value counts as 0."""
    if not is_rolling_update(d):
        return 0
    try:
        surge, _ = resolve_fenceposts(*rolling_params(d), replicas(d))
    except IntOrStringError:
        return 0
    return surge


def max_unavailable(d: Mapping[str, Any]) -> int:
    """``MaxUnavailable``: 0 for Recreate or 0 replicas, at most ``replicas``."""
    want = replicas(d)
    if not is_rolling_update(d) or want == 0:
        return 0
    try:
        _, unavailable = resolve_fenceposts(*rolling_params(d), want)
    except IntOrStringError:
        return 0
    return min(unavailable, want)


def min_available(d: Mapping[str, Any]) -> int:
    if not is_rolling_update(d):
        return 0
    return replicas(d) - max_unavailable(d)


def has_progress_deadline(d: Mapping[str, Any]) -> bool:
    value = spec(d).get("progressDeadlineSeconds")
    return isinstance(value, int) and not isinstance(value, bool) and value != MAX_INT32


def has_revision_history_limit(d: Mapping[str, Any]) -> bool:
    value = spec(d).get("revisionHistoryLimit")
    return isinstance(value, int) and not isinstance(value, bool) and value != MAX_INT32


# ----------------------------------------------------------------- hashing


def _fnv32a(data: bytes, h: int = 0x811C9DC5) -> int:
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


_SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def safe_encode_string(text: str) -> str:
    """``rand.SafeEncodeString``: every byte mapped into an alphabet with no
    vowels (no words) and no confusable characters."""
    return "".join(_SAFE_ALPHANUMS[b % len(_SAFE_ALPHANUMS)] for b in text.encode())


def _semantic(value: Any) -> Any:
    """Drop nulls and empty maps/lists, recursively: ``apiequality.Semantic``
    treats nil and empty alike, and omitempty fields vanish on the wire."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            norm = _semantic(v)
            if norm is None or norm == {} or norm == []:
                continue
            out[k] = norm
        return out
    if isinstance(value, list | tuple):
        return [_semantic(v) for v in value]
    return value


def compute_hash(template: Mapping[str, Any], collision_count: int | None) -> str:
    """``controller.ComputeHash``: the ``pod-template-hash`` of a template.

    The collision count, when set, is mixed in as 8 bytes (uint32 little
    endian, zero padded), as Kubernetes writes it.
    """
    body = json.dumps(_semantic(template), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()
    h = _fnv32a(body)
    if collision_count is not None:
        h = _fnv32a(struct.pack("<I", collision_count & 0xFFFFFFFF) + b"\0\0\0\0", h)
    return safe_encode_string(str(h))


def template_without_hash(template: Mapping[str, Any]) -> Obj:
    out = deep_copy(dict(template))
    labels = access.mapping(out.get("metadata")).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH_LABEL, None)
    return out


def equal_ignore_hash(t1: Mapping[str, Any], t2: Mapping[str, Any]) -> bool:
    """``EqualIgnoreHash``: templates equal once ``pod-template-hash`` is gone."""
    return bool(_semantic(template_without_hash(t1)) == _semantic(template_without_hash(t2)))


# ----------------------------------------------------------------- revisions


def revision(obj: Mapping[str, Any]) -> int:
    """``Revision``: the revision annotation, 0 when absent; ValueError when it
    is not an integer."""
    value = annotations_of(obj).get(REVISION_ANNOTATION)
    if value is None:
        return 0
    return int(str(value), 10)


def max_revision(rss: Iterable[Mapping[str, Any] | None]) -> int:
    best = 0
    for rs in rss:
        if rs is None:
            continue
        try:
            v = revision(rs)
        except ValueError:
            continue  # Kubernetes logs and skips it
        best = max(best, v)
    return best


def _creation(obj: Mapping[str, Any]) -> float:
    ts = parse_time(meta(obj).get("creationTimestamp"))
    return ts if ts is not None else float("-inf")


def _cmp_creation(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    """``ReplicaSetsByCreationTimestamp``: older first, then by name."""
    ta, tb = _creation(a), _creation(b)
    if ta == tb:
        na, nb = name_of(a), name_of(b)
        return -1 if na < nb else (1 if na > nb else 0)
    return -1 if ta < tb else 1


def by_creation(rss: Iterable[Obj]) -> list[Obj]:
    return sorted(rss, key=functools.cmp_to_key(_cmp_creation))


def by_size_newer(rss: Iterable[Obj]) -> list[Obj]:
    """``ReplicaSetsBySizeNewer``: larger first; equal sizes, newer first."""
    def cmp(a: Obj, b: Obj) -> int:
        if replicas(a) == replicas(b):
            return _cmp_creation(b, a)
        return -1 if replicas(a) > replicas(b) else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


def by_size_older(rss: Iterable[Obj]) -> list[Obj]:
    """``ReplicaSetsBySizeOlder``: larger first; equal sizes, older first."""
    def cmp(a: Obj, b: Obj) -> int:
        if replicas(a) == replicas(b):
            return _cmp_creation(a, b)
        return -1 if replicas(a) > replicas(b) else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


def by_revision(rss: Iterable[Obj]) -> list[Obj]:
    """``ReplicaSetsByRevision``: lower revision first; ties or unparsable
    revisions by creation time."""
    def cmp(a: Obj, b: Obj) -> int:
        try:
            ra, rb = revision(a), revision(b)
        except ValueError:
            return _cmp_creation(a, b)
        if ra == rb:
            return _cmp_creation(a, b)
        return -1 if ra < rb else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


# ----------------------------------------------------------------- finding


def find_new_replica_set(d: Mapping[str, Any], rs_list: Iterable[Obj]) -> Obj | None:
    """``FindNewReplicaSet``: the oldest ReplicaSet whose template is the
    deployment's (ignoring ``pod-template-hash``)."""
    template = access.mapping(spec(d).get("template"))
    for rs in by_creation(rs_list):
        if equal_ignore_hash(access.mapping(spec(rs).get("template")), template):
            return rs
    return None


def find_old_replica_sets(d: Mapping[str, Any], rs_list: Sequence[Obj]
                          ) -> tuple[list[Obj], list[Obj]]:
    """``FindOldReplicaSets``: (old ones with replicas, all old ones)."""
    new_rs = find_new_replica_set(d, rs_list)
    required: list[Obj] = []
    every: list[Obj] = []
    for rs in rs_list:
        if new_rs is not None and (rs is new_rs or (uid_of(rs) != "" and
                                                     uid_of(rs) == uid_of(new_rs))):
            continue
        every.append(rs)
        if replicas(rs) != 0:
            required.append(rs)
    return required, every


def filter_active(rss: Iterable[Obj | None]) -> list[Obj]:
    """``FilterActiveReplicaSets``: those with ``spec.replicas > 0``."""
    return [rs for rs in rss if rs is not None and replicas(rs) > 0]


def find_active_or_latest(new_rs: Obj | None, old_rss: Sequence[Obj]) -> Obj | None:
    """``FindActiveOrLatest``: the only active ReplicaSet, else the newest one
    when none is active, else None (several are active)."""
    if new_rs is None and not old_rss:
        return None
    newest_first = list(reversed(by_creation(old_rss)))
    active = filter_active([*newest_first, new_rs])
    if not active:
        return new_rs if new_rs is not None else newest_first[0]
    if len(active) == 1:
        return active[0]
    return None


# ----------------------------------------------------------------- counts


def total_replicas(rss: Iterable[Obj | None]) -> int:
    """``GetReplicaCountForReplicaSets``: the sum of ``spec.replicas``."""
    return sum(replicas(rs) for rs in rss if rs is not None)


def actual_replicas(rss: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "replicas") for rs in rss if rs is not None)


def ready_replicas(rss: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "readyReplicas") for rs in rss if rs is not None)


def available_replicas(rss: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "availableReplicas") for rs in rss if rs is not None)


# ----------------------------------------------------------------- annotations


def _annotation_int(rs: Mapping[str, Any], key: str) -> int | None:
    """``getNonNegativeInt32FromAnnotation``."""
    value = annotations_of(rs).get(key)
    if value is None:
        return None
    try:
        number = int(str(value), 10)
    except ValueError:
        return None
    if number < 0 or number > MAX_INT32:
        return None
    return number


def desired_replicas_annotation(rs: Mapping[str, Any]) -> int | None:
    return _annotation_int(rs, DESIRED_REPLICAS_ANNOTATION)


def max_replicas_annotation(rs: Mapping[str, Any]) -> int | None:
    return _annotation_int(rs, MAX_REPLICAS_ANNOTATION)


def _ensure_annotations(obj: Obj) -> dict[str, str]:
    md = obj.setdefault("metadata", {})
    ann: dict[str, str] | None = md.get("annotations")
    if not isinstance(ann, dict):
        ann = md["annotations"] = {}
    return ann


def set_replicas_annotations(rs: Obj, desired: int, max_replicas: int) -> bool:
    """``SetReplicasAnnotations``: True when something changed."""
    ann = _ensure_annotations(rs)
    changed = False
    for key, value in ((DESIRED_REPLICAS_ANNOTATION, str(desired)),
                       (MAX_REPLICAS_ANNOTATION, str(max_replicas))):
        if ann.get(key) != value:
            ann[key] = value
            changed = True
    return changed


def replicas_annotations_need_update(rs: Mapping[str, Any], desired: int,
                                     max_replicas: int) -> bool:
    ann = annotations_of(rs)
    return (ann.get(DESIRED_REPLICAS_ANNOTATION) != str(desired)
            or ann.get(MAX_REPLICAS_ANNOTATION) != str(max_replicas))


def copy_deployment_annotations(d: Mapping[str, Any], rs: Obj) -> bool:
    """``copyDeploymentAnnotationsToReplicaSet``: all but the skipped ones."""
    ann = _ensure_annotations(rs)
    changed = False
    for key, value in annotations_of(d).items():
        if key in ANNOTATIONS_TO_SKIP or ann.get(key) == value:
            continue
        ann[key] = value
        changed = True
    return changed


def set_new_replica_set_annotations(d: Mapping[str, Any], rs: Obj, new_revision: str, *,
                                    exists: bool,
                                    history_limit: int = MAX_REV_HISTORY_LENGTH_IN_CHARS
                                    ) -> bool:
    """``SetNewReplicaSetAnnotations``: copy the deployment's annotations,
    raise the revision to ``new_revision`` (remembering the old one in
    revision-history when this is a rollback to an existing ReplicaSet), and
    on creation set desired-replicas / max-replicas. True when changed."""
    changed = copy_deployment_annotations(d, rs)
    ann = _ensure_annotations(rs)
    had = REVISION_ANNOTATION in ann
    old_revision = ann.get(REVISION_ANNOTATION, "")
    try:
        old_int = int(old_revision, 10)
    except ValueError:
        if old_revision != "":
            return False
        old_int = 0
    try:
        new_int = int(new_revision, 10)
    except ValueError:
        return False
    if old_int < new_int:
        ann[REVISION_ANNOTATION] = new_revision
        changed = True
        if had:
            history = ann.get(REVISION_HISTORY_ANNOTATION, "")
            olds = history.split(",")
            if not olds[0]:
                ann[REVISION_HISTORY_ANNOTATION] = old_revision
            else:
                total = len(history) + len(old_revision) + 1
                start = 0
                while total > history_limit and start < len(olds):
                    total -= len(olds[start]) + 1
                    start += 1
                if total <= history_limit:
                    ann[REVISION_HISTORY_ANNOTATION] = ",".join([*olds[start:], old_revision])
    if not exists and set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def set_deployment_revision(d: Obj, new_revision: str) -> bool:
    """``SetDeploymentRevision``: True when the annotation changed."""
    ann = _ensure_annotations(d)
    if ann.get(REVISION_ANNOTATION) != new_revision:
        ann[REVISION_ANNOTATION] = new_revision
        return True
    return False
