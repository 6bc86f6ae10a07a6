"""A pod's or a pod template's Volumes section: one block per volume, laid
out by its source (host path, emptyDir, secret, config map, projected, CSI,
an ephemeral claim template, ...)."""

from __future__ import annotations

from collections.abc import Mapping

from ..access import mapping as _m
from ..access import mappings as _maps
from .sections import MAX_ANNOTATION_LEN, print_annotations, print_labels
from .values import Obj, go_bool, quantity, shorten, str_map
from .values import int_field as _i
from .values import str_field as _s
from .writer import Out


def describe_volumes(volumes: list[Obj], w: Out, space: str) -> None:
    """The Volumes section (``space`` is the pod template's extra indent)."""
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for volume in volumes:
        name_indent = " " if space else ""
        w.write(1, f"{name_indent}{_s(volume.get('name'))}:\n")
        _describe_volume_source(volume, w)


def _describe_volume_source(volume: Obj, w: Out) -> None:
    src = {k: v for k, v in volume.items() if isinstance(v, Mapping)}
    if "hostPath" in src:
        hp = src["hostPath"]
        host_path_type = _s(hp["type"]) if hp.get("type") is not None else "<none>"
        w.write(2, "Type:\tHostPath (bare host directory volume)\n"
                   f"    Path:\t{_s(hp.get('path'))}\n"
                   f"    HostPathType:\t{host_path_type}\n")
    elif "emptyDir" in src:
        ed = src["emptyDir"]
        size = quantity(ed.get("sizeLimit"))
        size_text = str(size) if size is not None and size.sign() > 0 else "<unset>"
        w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
                   f"    Medium:\t{_s(ed.get('medium'))}\n"
                   f"    SizeLimit:\t{size_text}\n")
    elif "gitRepo" in src:
        git = src["gitRepo"]
        w.write(2, "Type:\tGitRepo (a volume that is pulled from git when the pod is created)\n"
                   f"    Repository:\t{_s(git.get('repository'))}\n"
                   f"    Revision:\t{_s(git.get('revision'))}\n")
    elif "secret" in src:
        secret = src["secret"]
        w.write(2, "Type:\tSecret (a volume populated by a Secret)\n"
                   f"    SecretName:\t{_s(secret.get('secretName'))}\n"
                   f"    Optional:\t{go_bool(secret.get('optional'))}\n")
    elif "configMap" in src:
        cm = src["configMap"]
        w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"
                   f"    Name:\t{_s(cm.get('name'))}\n"
                   f"    Optional:\t{go_bool(cm.get('optional'))}\n")
    elif "nfs" in src:
        nfs = src["nfs"]
        w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n"
                   f"    Server:\t{_s(nfs.get('server'))}\n"
                   f"    Path:\t{_s(nfs.get('path'))}\n"
                   f"    ReadOnly:\t{go_bool(nfs.get('readOnly'))}\n")
    elif "persistentVolumeClaim" in src:
        pvc = src["persistentVolumeClaim"]
        w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in "
                   "the same namespace)\n"
                   f"    ClaimName:\t{_s(pvc.get('claimName'))}\n"
                   f"    ReadOnly:\t{go_bool(pvc.get('readOnly'))}\n")
    elif "ephemeral" in src:
        w.write(2, "Type:\tEphemeralVolume (an inline specification for a volume that gets "
                   "created and deleted with the pod)\n")
        template = src["ephemeral"].get("volumeClaimTemplate")
        if isinstance(template, Mapping):
            _print_claim_template(w.nested(2), template)
    elif "downwardAPI" in src:
        w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n"
                   "    Items:\n")
        for item in _maps(src["downwardAPI"].get("items")):
            field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
            if isinstance(field_ref, Mapping):
                w.write(3, f"{_s(field_ref.get('fieldPath'))} -> {_s(item.get('path'))}\n")
            if isinstance(resource_ref, Mapping):
                w.write(3, f"{_s(resource_ref.get('resource'))} -> {_s(item.get('path'))}\n")
    elif "projected" in src:
        _describe_projected(src["projected"], w)
    elif "csi" in src:
        csi = src["csi"]
        w.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"
                   f"    Driver:\t{_s(csi.get('driver'))}\n"
                   f"    FSType:\t{_s(csi.get('fsType'))}\n"
                   f"    ReadOnly:\t{go_bool(csi.get('readOnly'))}\n")
        _print_csi_attributes(w, str_map(csi.get("volumeAttributes")))
    elif "image" in src:
        image = src["image"]
        w.write(2, "Type:\tImage (a container image or OCI artifact)\n"
                   f"    Reference:\t{_s(image.get('reference'))}\n"
                   f"    PullPolicy:\t{_s(image.get('pullPolicy'))}\n")
    else:
        w.write(1, "<unknown>\n")


def _describe_projected(projected: Obj, w: Out) -> None:
    w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
    for source in _maps(projected.get("sources")):
        secret, downward = source.get("secret"), source.get("downwardAPI")
        config_map, token = source.get("configMap"), source.get("serviceAccountToken")
        if isinstance(secret, Mapping):
            w.write(2, f"SecretName:\t{_s(secret.get('name'))}\n"
                       f"    Optional:\t{go_bool(secret.get('optional'))}\n")
        elif isinstance(downward, Mapping):
            w.write(2, "DownwardAPI:\ttrue\n")
        elif isinstance(config_map, Mapping):
            w.write(2, f"ConfigMapName:\t{_s(config_map.get('name'))}\n"
                       f"    Optional:\t{go_bool(config_map.get('optional'))}\n")
        elif isinstance(token, Mapping):
            w.write(2, f"TokenExpirationSeconds:\t{_i(token.get('expirationSeconds'))}\n")


def _print_csi_attributes(w: Out, attributes: Mapping[str, str]) -> None:
    """``printCSIPersistentVolumeAttributesMultilineIndent`` (its continuation
    lines really are indented twice)."""
    w.write(2, "VolumeAttributes:\t")
    if not attributes:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(attributes)):
        if i:
            w.write(2, "")
            w.write(2, "\t")
        line = f"{key}={attributes[key]}"
        w.write(2, f"{shorten(line, MAX_ANNOTATION_LEN)}\n")


def _print_claim_template(w: Out, template: Obj) -> None:
    """``printPersistentVolumeClaim`` for an ephemeral volume's claim template."""
    meta, spec = _m(template.get("metadata")), _m(template.get("spec"))
    annotations = str_map(meta.get("annotations"))
    storage_class = _s(spec.get("storageClassName")) if spec.get(
        "storageClassName") is not None else annotations.get(
        "volume.beta.kubernetes.io/storage-class", "")
    w.write(0, f"StorageClass:\t{storage_class}\n")
    volume_name = _s(spec.get("volumeName"))
    w.write(0, f"Volume:\t{volume_name}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", annotations)
    # A template has no status: capacity is the zero quantity once bound, and
    # the access modes shown are the (empty) status ones.
    w.write(0, f"Capacity:\t{'0' if volume_name else ''}\n")
    w.write(0, "Access Modes:\t\n")
    if spec.get("volumeMode") is not None:
        w.write(0, f"VolumeMode:\t{_s(spec.get('volumeMode'))}\n")
    data_source = spec.get("dataSource")
    if isinstance(data_source, Mapping):
        w.write(0, "DataSource:\n")
        if data_source.get("apiGroup") is not None:
            w.write(1, f"APIGroup:\t{_s(data_source.get('apiGroup'))}\n")
        w.write(1, f"Kind:\t{_s(data_source.get('kind'))}\n")
        w.write(1, f"Name:\t{_s(data_source.get('name'))}\n")
