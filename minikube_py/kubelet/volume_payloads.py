"""What the files of a ``configMap``, ``secret``, ``downwardAPI`` or
``projected`` volume hold: the payloads of the kubelet's volume plugins
(pkg/volume/configmap, secret, downwardapi, projected; v1.32).

:func:`volume_payload` returns relative path -> :class:`~.atomic_writer.
FileProjection` for one volume of a pod, or raises
:class:`~.sources.ConfigError` with the message the plugin's ``SetUp``
fails with (the kubelet reports ``MountVolume.SetUp failed for volume "v" :
<message>``):

* ``configMap`` / ``secret``: without ``items``, every key (a ConfigMap's
  ``data`` and ``binaryData``) as a file of that name; with ``items``, each
  ``key`` at its ``path``. Modes: an item's ``mode``, else ``defaultMode``
  (0644 when the API did not default it). A missing object is ``configmap
  "x" not found`` / ``secret "x" not found`` unless ``optional`` (then the
  volume is empty); a missing item key is ``configmap references
  non-existent config key: k`` / ``references non-existent secret key: k``
  unless ``optional`` (then that file is left out).
* ``downwardAPI``: each item's ``fieldRef`` or ``resourceFieldRef``
  (:mod:`.downward`; a volume's ``resourceFieldRef`` names its container),
  at its ``path`` with its ``mode`` or ``defaultMode``.
* ``projected``: its ``sources`` in order, a later one overriding an
  earlier one's path: ``configMap``, ``secret`` and ``downwardAPI`` as above
  (with the projection's ``defaultMode``), and ``serviceAccountToken``: a
  token for the pod (:mod:`.tokens`) at ``path``, mode ``defaultMode``.
  Errors of several sources are reported together as Kubernetes'
  ``utilerrors.NewAggregate`` prints them (``[a, b]``).

Every object is read through the :class:`~.sources.ObjectSource` (a GET) on
each call: the caller compares before writing (:mod:`.atomic_writer`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from .atomic_writer import FileProjection
from .downward import field_value, resource_value
from .sources import CONFIGMAP, SECRET, ConfigError, ObjectSource, not_found
from .tokens import TokenCache

__all__ = ["DEFAULT_MODE", "volume_payload"]

#: ``defaultMode`` when the API did not set one (``SetDefaults_*VolumeSource``).
DEFAULT_MODE: Final = 0o644

Payload = dict[str, FileProjection]
_MISSING_KEY = {CONFIGMAP: "configmap references non-existent config key: {key}",
                SECRET: "references non-existent secret key: {key}"}


def _mode(raw: Any, default: int) -> int:
    return int(raw) if isinstance(raw, int) and not isinstance(raw, bool) else default


def aggregate(errors: list[str]) -> ConfigError:
    """``utilerrors.NewAggregate(errs).Error()``: one message as it is, more in brackets."""
    return ConfigError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")


def _object_files(kind: str, source: Mapping[str, Any], pod_ns: str,
                  sources: ObjectSource, default_mode: int) -> Payload:
    """``configmap.MakePayload`` / ``secret.MakePayload`` after the object's GET."""
    name = str(source.get("secretName" if kind == SECRET and "secretName" in source
                          else "name") or "")
    optional = bool(source.get("optional"))
    found = sources.get(kind, pod_ns, name)
    if found is None and not optional:
        raise not_found(kind, name)
    files = found.files() if found is not None else {}
    items = source.get("items") or []
    if not items:
        return {key: FileProjection(data, default_mode) for key, data in files.items()}
    out: Payload = {}
    for item in items:
        key, path = str(item.get("key") or ""), str(item.get("path") or "")
        if key not in files:
            if optional:
                continue
            raise ConfigError(_MISSING_KEY[kind].format(key=key))
        out[path] = FileProjection(files[key], _mode(item.get("mode"), default_mode))
    return out


def _downward_files(pod: Mapping[str, Any], items: list[Any], default_mode: int,
                    allocatable: tuple[int, int]) -> Payload:
    """``downwardapi.CollectData``: every item, errors aggregated."""
    out: Payload = {}
    errors: list[str] = []
    for item in items:
        field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
        try:
            if isinstance(field_ref, Mapping):
                text = field_value(pod, str(field_ref.get("fieldPath") or ""))
            elif isinstance(resource_ref, Mapping):
                text = resource_value(pod, None, resource_ref, allocatable)
            else:
                text = ""
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        out[str(item.get("path") or "")] = FileProjection(
            text.encode(), _mode(item.get("mode"), default_mode))
    if errors:
        raise aggregate(errors)
    return out


def _projected_files(pod: Mapping[str, Any], body: Mapping[str, Any], *,
                     sources: ObjectSource, tokens: TokenCache,
                     allocatable: tuple[int, int]) -> Payload:
    """``projectedVolumeMounter.collectData``."""
    namespace = str((pod.get("metadata") or {}).get("namespace") or "")
    default_mode = _mode(body.get("defaultMode"), DEFAULT_MODE)
    out: Payload = {}
    errors: list[str] = []
    for projection in body.get("sources") or []:
        try:
            if isinstance(projection.get("configMap"), Mapping):
                out.update(_object_files(CONFIGMAP, projection["configMap"], namespace,
                                         sources, default_mode))
            elif isinstance(projection.get("secret"), Mapping):
                out.update(_object_files(SECRET, projection["secret"], namespace, sources,
                                         default_mode))
            elif isinstance(projection.get("downwardAPI"), Mapping):
                out.update(_downward_files(pod, projection["downwardAPI"].get("items") or [],
                                           default_mode, allocatable))
            elif isinstance(projection.get("serviceAccountToken"), Mapping):
                token = projection["serviceAccountToken"]
                value = tokens.get(pod, str(token.get("audience") or ""),
                                   int(token.get("expirationSeconds") or 3600))
                out[str(token.get("path") or "")] = FileProjection(value.encode(),
                                                                   default_mode)
        except ConfigError as exc:
            errors.append(str(exc))
        except Exception as exc:  # the token source's failure: the set-up fails with it
            errors.append(str(exc) or type(exc).__name__)
    if errors:
        raise aggregate(errors)
    return out


#: Volume source field -> payload builder.
_Builder = Callable[..., Payload]


def volume_payload(pod: Mapping[str, Any], volume: Mapping[str, Any], *,
                   sources: ObjectSource, tokens: TokenCache,
                   allocatable: tuple[int, int]) -> Payload:
    """The files of ``volume`` (one of the four kinds; see the module contract)."""
    namespace = str((pod.get("metadata") or {}).get("namespace") or "")
    for kind, field in ((CONFIGMAP, "configMap"), (SECRET, "secret")):
        body = volume.get(field)
        if isinstance(body, Mapping):
            return _object_files(kind, body, namespace, sources,
                                 _mode(body.get("defaultMode"), DEFAULT_MODE))
    downward = volume.get("downwardAPI")
    if isinstance(downward, Mapping):
        return _downward_files(pod, downward.get("items") or [],
                               _mode(downward.get("defaultMode"), DEFAULT_MODE), allocatable)
    projected = volume.get("projected")
    if isinstance(projected, Mapping):
        return _projected_files(pod, projected, sources=sources, tokens=tokens,
                                allocatable=allocatable)
    raise ConfigError(f'volume "{volume.get("name")}" has no source the kubelet writes')
