"""What a resource declares: its kind facts and its strategy.

Kubernetes keeps everything about one resource in one place
(``pkg/registry/<group>/<resource>/strategy.go`` plus the types, defaults and
validation of ``pkg/apis/<group>``). Here every served kind is one module under
its API group's package (``api/core/pod.py``, ``api/apps/deployment.py``, ...)
that builds a :class:`Resource` and registers it with :mod:`.kinds`. The store,
registry, API server, printers, describe and the CLI ask the resource; none of
them branches on a kind's name.

Contract of the hooks (all optional; the defaults are what a plain kind with no
spec/status split does):

* ``defaults(obj, create)`` fills API defaults in place (``SetDefaults_<Kind>``).
* ``validate(obj)`` / ``validate_update(new, old)`` return field errors.
* ``generation``: ``"none"`` (never set), ``"create"`` (1 on create, never
  bumped: PriorityClass) or ``"spec"`` (1 on create, +1 whenever ``spec``
  changes).
* ``"status" in info.subresources`` means the main resource never changes
  ``status`` and the ``status`` subresource changes nothing else.
* ``initial_status(obj)`` is the status a create starts from (clients cannot
  create an object in a state of their choosing); ``None`` keeps what was sent.
* ``prepare_for_create(obj)`` / ``prepare_for_update(new, old)`` run after the
  generic preparation (uid, timestamps, generation, status rules).
* ``update_subresource[name](new, old)`` builds what a write to a subresource
  other than ``status`` stores (a namespace's ``finalize``).
* ``field_value(obj, label)`` derives a field-selector value that is not read
  at its dotted path; ``None`` means "read the path".
* ``grace_period(obj, requested)`` is the graceful-deletion period
  (``CheckGracefulDelete``); 0 deletes at once.
* ``columns`` / ``row(obj, now) -> (cells, condition)`` are the server-side
  table; ``None`` gives the apiserver's default Name / Created At table.
* ``describe(obj, related, events, ctx)`` is ``kubectl describe``'s text;
  ``None`` gives the generic describer. ``related`` says what describe lists
  along with the object (a node's pods, a deployment's replica sets).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .schema_model import Schema

Obj = dict[str, Any]
Errs = list[Any]
#: ``(cells, row condition or None)`` for one object.
Row = tuple[list[Any], dict[str, str] | None]


@dataclass(frozen=True, slots=True)
class KindInfo:
    """Static facts about one kind: routing, storage and naming."""

    kind: str
    group: str
    version: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    #: Field selector labels beyond ``metadata.name`` / ``metadata.namespace``.
    field_labels: tuple[str, ...] = ()
    #: Subresources served under ``<plural>/<name>/`` (``status``, ``scale``, ...).
    subresources: tuple[str, ...] = ()
    #: Discovery categories (``all`` makes ``kubectl get all`` list the kind).
    categories: tuple[str, ...] = ()
    #: A delete answers with the object rather than a ``Status`` (graceful kinds).
    returns_deleted_object: bool = False
    #: A terminating object also waits for ``spec.finalizers`` to empty.
    spec_finalizers: bool = False

    @property
    def api_version(self) -> str:
        """``v1`` for the core group, ``group/version`` otherwise."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``deployments.apps`` style name used in messages; bare for core."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


@dataclass(frozen=True, slots=True)
class Column:
    """One ``TableColumnDefinition``."""

    name: str
    type: str
    description: str
    format: str = ""
    priority: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


@dataclass(frozen=True, slots=True)
class Related:
    """Objects ``describe`` lists with an object: ``key`` in the ``related``
    mapping, read from ``resource`` in the object's namespace (all namespaces
    for cluster-scoped owners) with the selectors the functions build."""

    key: str
    resource: str
    field_selector: Callable[[Mapping[str, Any]], str | None] = lambda obj: None
    label_selector: Callable[[Mapping[str, Any]], str | None] = lambda obj: None


def match_labels(obj: Mapping[str, Any]) -> str:
    """The ``spec.selector.matchLabels`` of ``obj`` as a label selector string
    (what ``kubectl describe`` lists a workload's replica sets or pods by)."""
    selector = (obj.get("spec") or {}).get("selector") or {}
    return ",".join(f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items())


def _no_defaults(obj: Obj, create: bool) -> None:
    return None


def _no_errors(obj: Mapping[str, Any]) -> Errs:
    return []


def _no_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    return []


def _nothing(obj: Obj) -> None:
    return None


def _nothing_on_update(new: Obj, old: Obj) -> None:
    return None


def _no_field_value(obj: Mapping[str, Any], label: str) -> object | None:
    return None


def _immediate(obj: Mapping[str, Any], requested: int | None) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class Resource:
    """One served kind: its facts and its strategy (see the module contract)."""

    info: KindInfo
    schema: Schema
    defaults: Callable[[Obj, bool], None] = _no_defaults
    validate: Callable[[Mapping[str, Any]], Errs] = _no_errors
    validate_update: Callable[[Mapping[str, Any], Mapping[str, Any]], Errs] = _no_update_errors
    generation: Literal["none", "create", "spec"] = "none"
    initial_status: Callable[[Obj], Obj] | None = None
    prepare_for_create: Callable[[Obj], None] = _nothing
    prepare_for_update: Callable[[Obj, Obj], None] = _nothing_on_update
    update_subresource: Mapping[str, Callable[[Obj, Obj], Obj]] = field(default_factory=dict)
    #: A subresource write validated its own way instead of ``validate_update``
    #: (``pods/ephemeralcontainers``: only additions of ephemeral containers).
    validate_subresource_update: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any]],
                                                       Errs]] = field(default_factory=dict)
    field_value: Callable[[Mapping[str, Any], str], object | None] = _no_field_value
    grace_period: Callable[[Mapping[str, Any], int | None], int] = _immediate
    columns: tuple[Column, ...] | None = None
    row: Callable[[Mapping[str, Any], float], Row] | None = None
    describe: Callable[..., str] | None = None
    related: Sequence[Related] = ()
    #: Events about the object are matched by uid too (not for nodes: kubelets
    #: report node events with the node's name as the uid).
    events_by_uid: bool = True

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def status_subresource(self) -> bool:
        """The main resource keeps ``status``; only ``<plural>/status`` writes it."""
        return "status" in self.info.subresources
