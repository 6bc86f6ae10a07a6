"""Containers as ``kubectl describe`` lists them, in a pod or a pod template:
image and ports, command, state, resources, probes, environment and mounts."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ..access import mapping as _m
from ..access import mappings as _maps
from ..quantity import Quantity
from .values import Obj, go_bool, qstr, quantity, rfc1123z
from .values import int_field as _i
from .values import list_field as _l
from .values import str_field as _s
from .writer import Ctx, Out


def describe_resources(resources: Any, w: Out, level: int) -> None:
    """A container's (or a pod's) Limits and Requests at ``level``."""
    res = _m(resources)
    limits, requests = _m(res.get("limits")), _m(res.get("requests"))
    if limits:
        w.write(level, "Limits:\n")
    for name in sorted(limits):
        w.write(level + 1, f"{name}:\t{qstr(limits[name])}\n")
    if requests:
        w.write(level, "Requests:\n")
    for name in sorted(requests):
        w.write(level + 1, f"{name}:\t{qstr(requests[name])}\n")


def describe_containers(label: str, containers: list[Obj], statuses: list[Obj] | None,
                        pod: Obj | None, w: Out, space: str, ctx: Ctx) -> None:
    """``describeContainers``: ``statuses`` and ``pod`` are ``None`` in a pod
    template; ``space`` is the template's extra indent."""
    by_name = {_s(st.get("name")): st for st in statuses or []}
    w.write(0, f"{space}{label}:{'' if containers else ' <none>'}\n")
    for container in containers:
        status = by_name.get(_s(container.get("name")))
        _describe_container_basic(container, status, space, w)
        _describe_command(container, w)
        if status is not None:
            _describe_container_state(status, w, ctx)
        describe_resources(container.get("resources"), w, 2)
        _describe_probes(container, w)
        if _l(container.get("envFrom")):
            _describe_env_from(container, w)
        _describe_env(container, pod, w)
        _describe_mounts(container, w)


def _ports(ports: list[Obj], field: str) -> str:
    rendered = []
    for port in ports:
        text = f"{_i(port.get(field))}/{_s(port.get('protocol'))}"
        if port.get("name"):
            text += f" ({_s(port.get('name'))})"
        rendered.append(text)
    return ", ".join(rendered)


def _describe_container_basic(container: Obj, status: Obj | None, space: str,
                              w: Out) -> None:
    name_indent = " " if space else ""
    w.write(1, f"{name_indent}{_s(container.get('name'))}:\n")
    if status is not None:
        w.write(2, f"Container ID:\t{_s(status.get('containerID'))}\n")
    w.write(2, f"Image:\t{_s(container.get('image'))}\n")
    if status is not None:
        w.write(2, f"Image ID:\t{_s(status.get('imageID'))}\n")
    ports = _maps(container.get("ports"))
    port_string = _ports(ports, "containerPort")
    if "," in port_string:
        w.write(2, f"Ports:\t{port_string}\n")
    else:
        w.write(2, f"Port:\t{port_string or '<none>'}\n")
    host_string = _ports(ports, "hostPort")
    if "," in host_string:
        w.write(2, f"Host Ports:\t{host_string}\n")
    else:
        w.write(2, f"Host Port:\t{host_string or '<none>'}\n")
    seccomp = _m(container.get("securityContext")).get("seccompProfile")
    if isinstance(seccomp, Mapping):
        w.write(2, f"SeccompProfile:\t{_s(seccomp.get('type'))}\n")
        if seccomp.get("type") == "Localhost":
            w.write(3, f"LocalhostProfile:\t{_s(seccomp.get('localhostProfile'))}\n")


def _describe_command(container: Obj, w: Out) -> None:
    for title, key in (("Command", "command"), ("Args", "args")):
        items = _l(container.get(key))
        if items:
            w.write(2, f"{title}:\n")
            for item in items:
                for part in _s(item).split("\n"):
                    w.write(3, f"{part}\n")


def _describe_state(title: str, state: Obj, w: Out, ctx: Ctx) -> None:
    running, waiting = state.get("running"), state.get("waiting")
    terminated = state.get("terminated")
    if isinstance(running, Mapping):
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z(running.get('startedAt'), ctx)}\n")
    elif isinstance(waiting, Mapping):
        w.write(2, f"{title}:\tWaiting\n")
        if waiting.get("reason"):
            w.write(3, f"Reason:\t{_s(waiting.get('reason'))}\n")
    elif isinstance(terminated, Mapping):
        w.write(2, f"{title}:\tTerminated\n")
        if terminated.get("reason"):
            w.write(3, f"Reason:\t{_s(terminated.get('reason'))}\n")
        if terminated.get("message"):
            w.write(3, f"Message:\t{_s(terminated.get('message'))}\n")
        w.write(3, f"Exit Code:\t{_i(terminated.get('exitCode'))}\n")
        if _i(terminated.get("signal")) > 0:
            w.write(3, f"Signal:\t{_i(terminated.get('signal'))}\n")
        w.write(3, f"Started:\t{rfc1123z(terminated.get('startedAt'), ctx)}\n")
        w.write(3, f"Finished:\t{rfc1123z(terminated.get('finishedAt'), ctx)}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")


def _describe_container_state(status: Obj, w: Out, ctx: Ctx) -> None:
    _describe_state("State", _m(status.get("state")), w, ctx)
    last = _m(status.get("lastState"))
    if isinstance(last.get("terminated"), Mapping):
        _describe_state("Last State", last, w, ctx)
    w.write(2, f"Ready:\t{'True' if status.get('ready') is True else 'False'}\n")
    w.write(2, f"Restart Count:\t{_i(status.get('restartCount'))}\n")


def _describe_probe(probe: Obj) -> str:
    """``DescribeProbe``."""
    attrs = (f"delay={_i(probe.get('initialDelaySeconds'))}s "
             f"timeout={_i(probe.get('timeoutSeconds'))}s "
             f"period={_i(probe.get('periodSeconds'))}s "
             f"#success={_i(probe.get('successThreshold'))} "
             f"#failure={_i(probe.get('failureThreshold'))}")
    exec_action, http_get = probe.get("exec"), probe.get("httpGet")
    tcp, grpc = probe.get("tcpSocket"), probe.get("grpc")
    if isinstance(exec_action, Mapping):
        command = " ".join(_s(c) for c in _l(exec_action.get("command")))
        return f"exec [{command}] {attrs}"
    if isinstance(http_get, Mapping):
        return f"http-get {_probe_url(http_get)} {attrs}"
    if isinstance(tcp, Mapping):
        return f"tcp-socket {_s(tcp.get('host'))}:{_s(tcp.get('port'))} {attrs}"
    if isinstance(grpc, Mapping):
        return f"grpc <pod>:{_i(grpc.get('port'))} {_s(grpc.get('service'))} {attrs}"
    return f"unknown {attrs}"


def _probe_url(http_get: Obj) -> str:
    """The ``url.URL`` kubectl builds for an HTTP probe, as Go prints it."""
    scheme = _s(http_get.get("scheme")).lower()
    host, port = _s(http_get.get("host")), _s(http_get.get("port"))
    if port:
        host = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    path = quote(_s(http_get.get("path")), safe="/:@!$&'()*+,;=-._~")
    text = f"{scheme}:" if scheme else ""
    if (scheme or host) and (host or path):
        text += "//" + host
    if path and not path.startswith("/") and host:
        text += "/"
    return text + path


def _describe_probes(container: Obj, w: Out) -> None:
    for title, key in (("Liveness", "livenessProbe"), ("Readiness", "readinessProbe"),
                       ("Startup", "startupProbe")):
        probe = container.get(key)
        if isinstance(probe, Mapping):
            w.write(2, f"{title}:\t{_describe_probe(probe)}\n")


def _describe_env_from(container: Obj, w: Out) -> None:
    w.write(2, "Environment Variables from:\n")
    for source in _maps(container.get("envFrom")):
        origin, name, optional = "", "", False
        config_map, secret = source.get("configMapRef"), source.get("secretRef")
        if isinstance(config_map, Mapping):
            origin, name = "ConfigMap", _s(config_map.get("name"))
            optional = config_map.get("optional") is True
        elif isinstance(secret, Mapping):
            origin, name = "Secret", _s(secret.get("name"))
            optional = secret.get("optional") is True
        prefix = _s(source.get("prefix"))
        if prefix:
            w.write(3, f"{name}\t{origin} with prefix '{prefix}'\tOptional: {go_bool(optional)}\n")
        else:
            w.write(3, f"{name}\t{origin}\tOptional: {go_bool(optional)}\n")


def _field_ref_value(pod: Obj | None, field_path: str) -> str:
    """``EnvValueRetriever``: kubectl's scheme converts only the field labels
    every kind supports, so only the pod's name and namespace resolve."""
    if pod is None:
        return ""
    meta = _m(pod.get("metadata"))
    if field_path == "metadata.name":
        return _s(meta.get("name"))
    if field_path == "metadata.namespace":
        return _s(meta.get("namespace"))
    return ""


def _resource_field_value(ref: Obj, container: Obj) -> str:
    """``ExtractContainerResourceValue`` for the container being described."""
    divisor = quantity(ref.get("divisor"))
    if divisor is None or divisor.is_zero():
        divisor = Quantity.from_int(1)
    resource = _s(ref.get("resource"))
    res = _m(container.get("resources"))
    section, _, name = resource.partition(".")
    if section not in ("limits", "requests"):
        return ""
    if name not in ("cpu", "memory", "ephemeral-storage") and not name.startswith("hugepages-"):
        return ""
    q = quantity(_m(res.get(section)).get(name)) or Quantity(0)
    if name == "cpu":
        if divisor.milli_value() == 0:
            return ""
        return str(math.ceil(q.milli_value() / divisor.milli_value()))
    if divisor.value() == 0:
        return ""
    return str(math.ceil(q.value() / divisor.value()))


def _describe_env(container: Obj, pod: Obj | None, w: Out) -> None:
    env = _maps(container.get("env"))
    none = "" if env else "\t<none>"
    w.write(2, f"Environment:{none}\n")
    for var in env:
        name = _s(var.get("name"))
        value_from = var.get("valueFrom")
        if not isinstance(value_from, Mapping):
            for i, part in enumerate(_s(var.get("value")).split("\n")):
                w.write(3, f"{name}:\t{part}\n" if i == 0 else f"\t{part}\n")
            continue
        field_ref, resource_ref = value_from.get("fieldRef"), value_from.get("resourceFieldRef")
        secret_ref, cm_ref = value_from.get("secretKeyRef"), value_from.get("configMapKeyRef")
        if isinstance(field_ref, Mapping):
            value = _field_ref_value(pod, _s(field_ref.get("fieldPath")))
            w.write(3, f"{name}:\t{value} ({_s(field_ref.get('apiVersion'))}:"
                       f"{_s(field_ref.get('fieldPath'))})\n")
        elif isinstance(resource_ref, Mapping):
            value = _resource_field_value(resource_ref, container)
            resource = _s(resource_ref.get("resource"))
            if value == "0" and resource in ("limits.cpu", "limits.memory"):
                value = "node allocatable"
            w.write(3, f"{name}:\t{value} ({resource})\n")
        elif isinstance(secret_ref, Mapping):
            w.write(3, f"{name}:\t<set to the key '{_s(secret_ref.get('key'))}' in secret "
                       f"'{_s(secret_ref.get('name'))}'>\t"
                       f"Optional: {go_bool(secret_ref.get('optional'))}\n")
        elif isinstance(cm_ref, Mapping):
            w.write(3, f"{name}:\t<set to the key '{_s(cm_ref.get('key'))}' of config map "
                       f"'{_s(cm_ref.get('name'))}'>\t"
                       f"Optional: {go_bool(cm_ref.get('optional'))}\n")


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _describe_mounts(container: Obj, w: Out) -> None:
    mounts = _maps(container.get("volumeMounts"))
    none = "" if mounts else "\t<none>"
    w.write(2, f"Mounts:{none}\n")
    for mount in sorted(mounts, key=lambda m: _s(m.get("mountPath"))):
        flags = ["ro" if mount.get("readOnly") is True else "rw"]
        if mount.get("subPath"):
            flags.append(f"path={_go_quote(_s(mount.get('subPath')))}")
        w.write(3, f"{_s(mount.get('mountPath'))} from {_s(mount.get('name'))} "
                   f"({','.join(flags)})\n")
    devices = _maps(container.get("volumeDevices"))
    if devices:
        w.write(2, f"Devices:{none}\n")
        for device in sorted(devices, key=lambda d: _s(d.get("devicePath"))):
            w.write(3, f"{_s(device.get('devicePath'))} from {_s(device.get('name'))}\n")
