"""Volume validation, and the downward-API field selectors env vars share.

``ValidateVolumes`` / ``validateVolumeSource`` of ``pkg/apis/core/validation``
(v1.32): exactly one source per volume (extra sources are reported in the order
Kubernetes checks them, including its ``downwarAPI`` typo), and for the sources
minikube-py acts on (``emptyDir``, ``hostPath``, ``secret``, ``configMap``,
``persistentVolumeClaim``, ``projected``, ``downwardAPI``) the per-source checks.

minikube-py's own rule on top: a volume type its kubelet cannot provide
(anything but :data:`SUPPORTED_VOLUMES`: ``persistentVolumeClaim``, ``nfs``,
``csi``, ``ephemeral``, ``image``, ...) and a projection it cannot provide
(``clusterTrustBundle``) are refused when the pod or pod template is written,
with a ``Forbidden`` error at the source's field path (``spec.volumes[0].
persistentVolumeClaim: Forbidden: persistentVolumeClaim volumes are not
supported by minikube-py ...``), never accepted and skipped by the kubelet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FieldPath, duplicate, forbidden, invalid, not_supported, required
from .quantity import Quantity, QuantityError
from .validation_meta import (
    Errs,
    as_int,
    as_list,
    as_map,
    as_str,
    dns_label,
    file_mode,
    local_non_reserved_path,
    no_backsteps,
    qualified_name,
)

__all__ = [
    "ENV_FIELD_PATHS",
    "SUPPORTED_PROJECTIONS",
    "SUPPORTED_VOLUMES",
    "object_field_selector",
    "resource_field_selector",
    "validate_volumes",
]

# ---------------------------------------------------------------- volumes

#: Volume sources in the order ``validateVolumeSource`` checks them, with the
#: path segment it reports "more than 1 volume type" at (sic: "downwarAPI").
_VOLUME_SOURCES = (
    ("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"),
    ("flocker", "flocker"), ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"),
    ("cinder", "cinder"), ("cephfs", "cephFS"), ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"), ("fc", "fc"), ("flexVolume", "flexVolume"),
    ("configMap", "configMap"), ("azureFile", "azureFile"), ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"), ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"), ("storageos", "storageos"), ("projected", "projected"),
    ("scaleIO", "scaleIO"), ("csi", "csi"), ("ephemeral", "ephemeral"), ("image", "image"),
)
#: The volume types minikube-py's kubelet provides; any other is refused.
SUPPORTED_VOLUMES = ("configMap", "downwardAPI", "emptyDir", "hostPath", "projected", "secret")
#: The sources of a ``projected`` volume it provides.
SUPPORTED_PROJECTIONS = ("configMap", "downwardAPI", "secret", "serviceAccountToken")


def _unsupported(kind: str, supported: tuple[str, ...], what: str, path: FieldPath) -> Errs:
    return [forbidden(path, f"{kind} {what} are not supported by minikube-py "
                            f"(supported: {', '.join(supported)})")]


def _not_provided(volume: Mapping[str, Any], path: FieldPath) -> Errs:
    """minikube-py's refusal of what its kubelet cannot provide: the volume's
    (first) source, and ``projected`` sources. A volume refused so stays
    known to its mounts (one error, not a "Not found" for each mount too)."""
    key = next((k for k, _ in _VOLUME_SOURCES if volume.get(k) is not None), None)
    if key is None:
        return []
    if key not in SUPPORTED_VOLUMES:
        return _unsupported(key, SUPPORTED_VOLUMES, "volumes", path.child(key))
    errs: Errs = []
    if key == "projected":
        for i, raw in enumerate(as_list(as_map(volume.get(key)).get("sources"))):
            for kind in as_map(raw):
                if kind not in SUPPORTED_PROJECTIONS:
                    errs.extend(_unsupported(
                        kind, SUPPORTED_PROJECTIONS, "projections",
                        path.child(key).child("sources").index(i).child(kind)))
    return errs


_HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File",
                    "FileOrCreate", "Socket")
_VOLUME_FIELD_PATHS = ("metadata.annotations", "metadata.labels", "metadata.name",
                       "metadata.namespace", "metadata.uid")
ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                    "spec.serviceAccountName", "status.hostIP", "status.hostIPs",
                    "status.podIP", "status.podIPs")
#: Labels ``ConvertDownwardAPIFieldLabel`` understands at all.
_CONVERTIBLE_FIELD_PATHS = frozenset({
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
    "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
    "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
    "status.podIPs", "spec.host",
})
_RESOURCE_FIELD_PATHS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory",
                         "requests.cpu", "requests.ephemeral-storage", "requests.memory")
_DIVISORS = {
    "cpu": ("1m", "1"),
    "memory": ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"),
}


def _key_to_path(item: Any, path: FieldPath) -> Errs:
    kp = as_map(item)
    errs: Errs = []
    key, file_path = as_str(kp.get("key")), as_str(kp.get("path"))
    if not key:
        errs.append(required(path.child("key"), ""))
    if not file_path:
        errs.append(required(path.child("path"), ""))
    errs.extend(local_non_reserved_path(file_path, path.child("path")))
    errs.extend(file_mode(kp.get("mode"), path.child("mode")))
    return errs


def _split_subscript(field_path: str) -> tuple[str, str] | None:
    """``fieldpath.SplitMaybeSubscriptedPath``."""
    if not field_path.endswith("']"):
        return None
    head, sep, subscript = field_path[:-2].partition("['")
    if not sep or not head:
        return None
    return head, subscript


def object_field_selector(ref: Any, allowed: tuple[str, ...], path: FieldPath) -> Errs:
    """``validateObjectFieldSelector``."""
    fs = as_map(ref)
    api_version, field_path = as_str(fs.get("apiVersion")), as_str(fs.get("fieldPath"))
    if not api_version:
        return [required(path.child("apiVersion"), "")]
    if not field_path:
        return [required(path.child("fieldPath"), "")]
    subscripted = _split_subscript(field_path)
    problem = ""
    if api_version != "v1":
        problem = f"unsupported pod version: {api_version}"
    elif subscripted is not None:
        if subscripted[0] not in ("metadata.annotations", "metadata.labels"):
            problem = f"field label does not support subscript: {field_path}"
    elif field_path not in _CONVERTIBLE_FIELD_PATHS:
        problem = f"field label not supported: {field_path}"
    if problem:
        return [invalid(path.child("fieldPath"), field_path,
                        f"error converting fieldPath: {problem}")]
    if subscripted is not None:
        head, subscript = subscripted
        key = subscript.lower() if head == "metadata.annotations" else subscript
        return qualified_name(key, path)
    internal = "spec.nodeName" if field_path == "spec.host" else field_path
    if internal not in allowed:
        return [not_supported(path.child("fieldPath"), internal, allowed)]
    return []


def resource_field_selector(ref: Any, path: FieldPath, *, volume: bool) -> Errs:
    """``validateContainerResourceFieldSelector`` and the divisor check."""
    fs = as_map(ref)
    resource = as_str(fs.get("resource"))
    errs: Errs = []
    if volume and not as_str(fs.get("containerName")):
        errs.append(required(path.child("containerName"), ""))
    elif not resource:
        errs.append(required(path.child("resource"), ""))
    elif resource not in _RESOURCE_FIELD_PATHS and not resource.startswith(
            ("requests.hugepages-", "limits.hugepages-")):
        errs.append(not_supported(path.child("resource"), resource, _RESOURCE_FIELD_PATHS))
    divisor = fs.get("divisor")
    if divisor is not None:
        try:
            q = Quantity.parse(divisor)
        except QuantityError:
            return errs
        if q.nanos:
            kind = resource.split(".", 1)[-1]
            if kind in ("cpu", "memory", "ephemeral-storage") or kind.startswith("hugepages-"):
                accepted = _DIVISORS["cpu" if kind == "cpu" else "memory"]
                if str(q) not in accepted:
                    what = {"cpu": "cpu", "memory": "memory",
                            "ephemeral-storage": "local ephemeral storage"}.get(kind, "hugepages")
                    errs.append(invalid(
                        path.child("divisor"), resource,
                        f"only divisor's values {', '.join(accepted)} are supported with the "
                        f"{what} resource"))
    return errs


def _downward_api_file(item: Any, path: FieldPath) -> Errs:
    """``validateDownwardAPIVolumeFile``; Kubernetes reports at the source's path,
    not the item's."""
    file = as_map(item)
    file_path = as_str(file.get("path"))
    errs: Errs = []
    if not file_path:
        errs.append(required(path.child("path"), ""))
    errs.extend(local_non_reserved_path(file_path, path.child("path")))
    if file.get("fieldRef") is not None:
        errs.extend(object_field_selector(file.get("fieldRef"), _VOLUME_FIELD_PATHS,
                                           path.child("fieldRef")))
        if file.get("resourceFieldRef") is not None:
            errs.append(invalid(
                path, "resource",
                "fieldRef and resourceFieldRef can not be specified simultaneously"))
    elif file.get("resourceFieldRef") is not None:
        errs.extend(resource_field_selector(file.get("resourceFieldRef"),
                                             path.child("resourceFieldRef"), volume=True))
    else:
        errs.append(required(path, "one of fieldRef and resourceFieldRef is required"))
    errs.extend(file_mode(file.get("mode"), path.child("mode")))
    return errs


def _projected(source: Mapping[str, Any], path: FieldPath) -> Errs:
    errs = file_mode(source.get("defaultMode"), path.child("defaultMode"))
    seen: set[str] = set()
    for i, raw in enumerate(as_list(source.get("sources"))):
        projection = as_map(raw)
        src_path = path.child("sources").index(i)
        count = 0
        for kind, name_key in (("secret", "name"), ("configMap", "name")):
            body = projection.get(kind)
            if body is None:
                continue
            count += 1
            body = as_map(body)
            if not as_str(body.get(name_key)):
                errs.append(required(src_path.child(kind).child("name"), ""))
            for j, item in enumerate(as_list(body.get("items"))):
                errs.extend(_key_to_path(item, src_path.child(kind).child("items").index(j)))
                item_path = as_str(as_map(item).get("path"))
                if item_path:
                    if item_path in seen:
                        errs.append(invalid(path, as_str(body.get("name")),
                                            "conflicting duplicate paths"))
                    seen.add(item_path)
        if projection.get("downwardAPI") is not None:
            count += 1
            for item in as_list(as_map(projection.get("downwardAPI")).get("items")):
                errs.extend(_downward_api_file(item, src_path.child("downwardAPI")))
                item_path = as_str(as_map(item).get("path"))
                if item_path:
                    if item_path in seen:
                        errs.append(invalid(path, item_path, "conflicting duplicate paths"))
                    seen.add(item_path)
        if projection.get("serviceAccountToken") is not None:
            count += 1
            token = as_map(projection.get("serviceAccountToken"))
            seconds = as_int(token.get("expirationSeconds")) or 0
            token_path = src_path.child("serviceAccountToken")
            if seconds < 600:
                errs.append(invalid(token_path.child("expirationSeconds"), seconds,
                                    "may not specify a duration less than 10 minutes"))
            if seconds > 1 << 32:
                errs.append(invalid(token_path.child("expirationSeconds"), seconds,
                                    "may not specify a duration larger than 2^32 seconds"))
            if not as_str(token.get("path")):
                errs.append(required(path.child("path"), ""))
            else:
                errs.extend(local_non_reserved_path(as_str(token.get("path")),
                                                     path.child("path")))
        if projection.get("clusterTrustBundle") is not None:
            count += 1
        if count > 1:
            errs.append(forbidden(src_path, "may not specify more than 1 volume type per source"))
    return errs


def _volume_source(volume: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validateVolumeSource`` for the sources minikube-py knows in detail;
    the others are only counted."""
    errs: Errs = []
    count = 0
    for key, reported in _VOLUME_SOURCES:
        source = volume.get(key)
        if source is None:
            continue
        if count:
            errs.append(forbidden(path.child(reported), "may not specify more than 1 volume type"))
            continue
        count += 1
        body = as_map(source)
        sub = path.child(key)
        if key == "emptyDir":
            limit = body.get("sizeLimit")
            try:
                negative = limit is not None and Quantity.parse(limit).nanos < 0
            except QuantityError:
                negative = False
            if negative:
                errs.append(forbidden(sub.child("sizeLimit"),
                                      "SizeLimit field must be a valid resource quantity"))
        elif key == "hostPath":
            host_path = as_str(body.get("path"))
            if not host_path:
                errs.append(required(sub.child("path"), ""))
                continue
            errs.extend(no_backsteps(host_path, sub.child("path")))
            host_type = body.get("type")
            if isinstance(host_type, str) and host_type not in _HOST_PATH_TYPES:
                errs.append(not_supported(sub.child("type"), host_type, _HOST_PATH_TYPES))
        elif key in ("secret", "configMap"):
            name_key = "secretName" if key == "secret" else "name"
            if not as_str(body.get(name_key)):
                errs.append(required(sub.child(name_key), ""))
            errs.extend(file_mode(body.get("defaultMode"), sub.child("defaultMode")))
            for i, item in enumerate(as_list(body.get("items"))):
                errs.extend(_key_to_path(item, sub.child("items").index(i)))
        elif key == "persistentVolumeClaim":
            if not as_str(body.get("claimName")):
                errs.append(required(sub.child("claimName"), ""))
        elif key == "downwardAPI":
            errs.extend(file_mode(body.get("defaultMode"), sub.child("defaultMode")))
            for item in as_list(body.get("items")):
                errs.extend(_downward_api_file(item, sub))
        elif key == "projected":
            errs.extend(_projected(body, sub))
    if not count:
        errs.append(required(path, "must specify a volume type"))
    return errs


def validate_volumes(volumes: Any, path: FieldPath) -> tuple[dict[str, Mapping[str, Any]], Errs]:
    """``ValidateVolumes``: the valid volumes by name, and the errors."""
    errs: Errs = []
    valid: dict[str, Mapping[str, Any]] = {}
    for i, raw in enumerate(as_list(volumes)):
        volume = as_map(raw)
        name = as_str(volume.get("name"))
        name_path = path.index(i).child("name")
        errors = _volume_source(volume, path.index(i))
        if not name:
            errors.append(required(name_path, ""))
        else:
            errors.extend(dns_label(name, name_path))
        if name in valid:
            errors.append(duplicate(name_path, name))
        if errors:
            errs.extend(errors)
        else:
            valid[name] = volume
        errs.extend(_not_provided(volume, path.index(i)))
    return valid, errs
