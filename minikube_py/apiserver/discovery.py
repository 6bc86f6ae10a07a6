"""Discovery documents: ``/version``, ``/api``, ``/api/v1``, ``/apis``, ``/apis/apps/v1``.

Legacy (non-aggregated) discovery, which every kubectl and client library still
understands: when a client asks for aggregated discovery first (kubectl 1.30+),
the content negotiation answers with plain JSON and the client falls back.
"""

from __future__ import annotations

import platform
from typing import Any

from .. import __version__
from ..api import kinds
from ..api.core import serviceaccount
from .reviews import DISCOVERY as _REVIEWS

KUBE_MAJOR, KUBE_MINOR = "1", "32"
_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def version() -> dict[str, Any]:
    machine = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return {
        "major": KUBE_MAJOR, "minor": KUBE_MINOR,
        "gitVersion": f"v{KUBE_MAJOR}.{KUBE_MINOR}.0-minikube-py.{__version__}",
        "gitCommit": "", "gitTreeState": "clean", "buildDate": "",
        "goVersion": f"python{platform.python_version()}", "compiler": "cpython",
        "platform": f"linux/{machine}",
    }


def api_versions(server_address: str) -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                            "serverAddress": server_address}]}


def _groups() -> dict[str, list[kinds.KindInfo]]:
    out: dict[str, list[kinds.KindInfo]] = {}
    for info in kinds.KINDS:
        out.setdefault(info.group, []).append(info)
    return out


def _versions() -> dict[str, str]:
    """Every served group (core: ``""``) and its one version, the review
    groups (create-only resources, no stored kind) included."""
    out = {group: infos[0].version for group, infos in _groups().items()}
    for group, *_ in _REVIEWS:
        out.setdefault(group, "v1")
    return out


def api_group_list() -> dict[str, Any]:
    groups = []
    for group, version in sorted((g, v) for g, v in _versions().items() if g):
        gv = {"groupVersion": f"{group}/{version}", "version": version}
        groups.append({"name": group, "versions": [gv], "preferredVersion": gv})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(group: str) -> dict[str, Any] | None:
    version = _versions().get(group)
    if not group or version is None:
        return None
    gv = {"groupVersion": f"{group}/{version}", "version": version}
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": [gv],
            "preferredVersion": gv}


def _subresource(info: kinds.KindInfo, sub: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": f"{info.plural}/{sub}", "singularName": "",
                             "namespaced": info.namespaced, "kind": info.kind}
    if sub in ("status", "ephemeralcontainers"):
        entry["verbs"] = ["get", "patch", "update"]
    elif sub == "scale":
        entry.update(group="autoscaling", version="v1", kind="Scale",
                     verbs=["get", "patch", "update"])
    elif sub == "binding":
        entry.update(kind="Binding", verbs=["create"])
    elif sub == "finalize":
        entry["verbs"] = ["update"]
    elif sub == "log":
        entry["verbs"] = ["get"]
    elif sub in _CONNECT_KINDS:
        # What kube-apiserver lists for its connect subresources.
        entry.update(kind=_CONNECT_KINDS[sub].replace("*", info.kind),
                     verbs=["create", "get"] if sub != "proxy" else
                     ["create", "delete", "get", "patch", "update"])
    return entry


_CONNECT_KINDS = {"exec": "PodExecOptions", "attach": "PodAttachOptions",
                  "portforward": "PodPortForwardOptions", "proxy": "*ProxyOptions"}


def resource_list(group: str, version: str) -> dict[str, Any] | None:
    infos = [i for i in kinds.KINDS if i.group == group and i.version == version]
    virtual = [r for r in _REVIEWS if r[0] == group and version == "v1"]
    if not infos and not virtual:
        return None
    resources: list[dict[str, Any]] = []
    for info in infos:
        entry: dict[str, Any] = {
            "name": info.plural, "singularName": info.singular, "namespaced": info.namespaced,
            "kind": info.kind, "verbs": list(_VERBS),
        }
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        resources.append(entry)
        resources.extend(_subresource(info, sub) for sub in info.subresources)
        if info is serviceaccount.INFO:
            # TokenRequest: served by .reviews, not a stored subresource.
            resources.append({"name": f"{info.plural}/token", "singularName": "",
                              "namespaced": True, "group": "authentication.k8s.io",
                              "version": "v1", "kind": "TokenRequest", "verbs": ["create"]})
    for _group, resource, kind, namespaced in virtual:
        resources.append({"name": resource, "singularName": kind.lower(),
                          "namespaced": namespaced, "kind": kind, "verbs": ["create"]})
    if not group:
        resources.append({"name": "bindings", "singularName": "binding", "namespaced": True,
                          "kind": "Binding", "verbs": ["create"]})
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
            "resources": resources}
