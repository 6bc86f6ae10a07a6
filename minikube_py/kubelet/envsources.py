"""A container's environment: the kubelet's ``makeEnvironmentVariables``
(pkg/kubelet/kubelet_pods.go, v1.32) and ``$(VAR)`` expansion.

:func:`make_environment` builds it in Kubernetes' order, a later definition
of a name replacing an earlier one:

1. ``envFrom``, in order: every key of the ConfigMap (its ``data``, not its
   ``binaryData``) or Secret, with ``prefix`` prepended. A missing object is
   an error unless ``optional``. Names are checked as kube-apiserver 1.32
   checks ``env`` names (the relaxed rule: printable ASCII but ``=``); since
   v1.30 (RelaxedEnvironmentVariableValidation) every ConfigMap/Secret key
   passes it, so the kubelet's former skipping of keys such as ``1st`` or
   ``app.name`` is gone. A name that still fails it (an object stored
   without validation) is left out of the environment and reported through
   ``warn`` (a Warning event on the pod), as the kubelet did:
   ``InvalidEnvironmentVariableNames``, ``Keys [a=b] from the EnvFrom
   configMap ns/name were skipped since they are considered invalid
   environment variable names.``
2. ``env``, in order: ``value`` expanded against what is defined so far
   (``envFrom`` variables and earlier ``env``), then the Services'
   variables; or ``valueFrom``: ``fieldRef`` / ``resourceFieldRef``
   (:mod:`.downward`), ``configMapKeyRef`` / ``secretKeyRef`` (a missing
   object or key is an error unless ``optional``, which leaves the variable
   out: ``couldn't find key LOG_LEVEL in ConfigMap default/app-config``).
3. The Services' variables (:mod:`.envvars`) not defined by the container,
   sorted by name.

Errors are :class:`~.sources.ConfigError` (the container then waits in
``CreateContainerConfigError``). Each object is read once per call (as the
kubelet's per-call maps). :func:`expand` is Kubernetes' ``$(VAR)`` expansion
(``third_party/forked/golang/expansion``): ``$$`` is a literal ``$``, an
unknown ``$(NAME)`` and an unterminated ``$(`` stay as written, a ``$``
followed by anything else stays too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..api.names import is_env_var_name
from .downward import field_value, resource_value
from .sources import CONFIGMAP, SECRET, ConfigError, ObjectSource, SourceData, not_found

__all__ = ["Warn", "expand", "make_environment"]

#: Reports a Warning event: ``warn(reason, message)``.
Warn = Callable[[str, str], None]

#: How Kubernetes names each kind in a missing key's message.
_KIND_TITLES = {CONFIGMAP: "ConfigMap", SECRET: "Secret"}


def expand(text: str, env: Mapping[str, str] | Callable[[str], str | None]) -> str:
    """Kubernetes' ``$(VAR)`` expansion (see the module contract).

    ``env`` maps a name to its value (a mapping, or a function returning
    ``None`` for an unknown name, which then stays as ``$(NAME)``).
    """
    lookup = env.get if isinstance(env, Mapping) else env
    out: list[str] = []
    checkpoint = 0
    i = 0
    n = len(text)
    while i < n:
        if text[i] == "$" and i + 1 < n:
            out.append(text[checkpoint:i])
            nxt = text[i + 1]
            if nxt == "$":  # an escaped operator
                out.append("$")
                i += 1
            elif nxt == "(":
                close = text.find(")", i + 2)
                if close < 0:  # incomplete reference: keep "$(" and go on after it
                    out.append("$(")
                    i += 1
                else:
                    name = text[i + 2:close]
                    value = lookup(name)
                    out.append(value if value is not None else f"$({name})")
                    i = close
            else:  # a lone operator: keep it with the character after it
                out.append("$" + nxt)
                i += 1
            checkpoint = i + 1
        i += 1
    out.append(text[checkpoint:])
    return "".join(out)


class _Objects:
    """The ConfigMaps and Secrets of one call, each read once."""

    def __init__(self, sources: ObjectSource, namespace: str) -> None:
        self.sources = sources
        self.namespace = namespace
        self._seen: dict[tuple[str, str], SourceData | None] = {}

    def get(self, kind: str, name: str, optional: bool) -> SourceData | None:
        """The object; ``None`` if it is missing and ``optional``."""
        key = (kind, name)
        if key not in self._seen:
            self._seen[key] = self.sources.get(kind, self.namespace, name)
        found = self._seen[key]
        if found is None and not optional:
            raise not_found(kind, name)
        return found


def _from_sources(c: Mapping[str, Any], objects: _Objects, warn: Warn | None,
                  env: dict[str, str]) -> None:
    for item in c.get("envFrom") or []:
        for field, kind in (("configMapRef", CONFIGMAP), ("secretRef", SECRET)):
            ref = item.get(field)
            if not isinstance(ref, Mapping):
                continue
            name = str(ref.get("name") or "")
            found = objects.get(kind, name, bool(ref.get("optional")))
            if found is None:
                continue
            prefix = str(item.get("prefix") or "")
            invalid: list[str] = []
            for key in sorted(found.strings):
                var = prefix + key
                if is_env_var_name(var):
                    invalid.append(var)
                    continue
                env[var] = found.strings[key]
            if invalid and warn is not None:
                warn("InvalidEnvironmentVariableNames",
                     f"Keys [{', '.join(invalid)}] from the EnvFrom {field[:-3]} "
                     f"{objects.namespace}/{name} were skipped since they are considered "
                     "invalid environment variable names.")


def _key_ref(ref: Mapping[str, Any], kind: str, objects: _Objects) -> str | None:
    """The value of a ``configMapKeyRef``/``secretKeyRef``; ``None``: left out."""
    name, key = str(ref.get("name") or ""), str(ref.get("key") or "")
    optional = bool(ref.get("optional"))
    found = objects.get(kind, name, optional)
    if found is None:
        return None
    if key not in found.strings:
        if optional:
            return None
        raise ConfigError(f"couldn't find key {key} in {_KIND_TITLES[kind]} "
                          f"{objects.namespace}/{name}")
    return found.strings[key]


def make_environment(pod: Mapping[str, Any], c: Mapping[str, Any], *,
                     sources: ObjectSource, host_ip: str, pod_ip: str,
                     allocatable: tuple[int, int], service_env: Mapping[str, str],
                     warn: Warn | None = None) -> tuple[tuple[str, str], ...]:
    """Container ``c``'s environment (see the module contract); raises
    :class:`~.sources.ConfigError`."""
    namespace = str((pod.get("metadata") or {}).get("namespace") or "")
    objects = _Objects(sources, namespace)
    env: dict[str, str] = {}
    _from_sources(c, objects, warn, env)

    def lookup(name: str) -> str | None:
        found = env.get(name)
        return found if found is not None else service_env.get(name)

    for var in c.get("env") or []:
        name = str(var.get("name", ""))
        source = var.get("valueFrom")
        value: str | None
        if var.get("value") or not isinstance(source, Mapping):
            value = expand(str(var.get("value") or ""), lookup)
        elif isinstance(source.get("fieldRef"), Mapping):
            value = field_value(pod, str(source["fieldRef"].get("fieldPath", "")),
                                host_ip=host_ip, pod_ip=pod_ip)
        elif isinstance(source.get("resourceFieldRef"), Mapping):
            value = resource_value(pod, c, source["resourceFieldRef"], allocatable)
        elif isinstance(source.get("configMapKeyRef"), Mapping):
            value = _key_ref(source["configMapKeyRef"], CONFIGMAP, objects)
        elif isinstance(source.get("secretKeyRef"), Mapping):
            value = _key_ref(source["secretKeyRef"], SECRET, objects)
        else:  # an empty valueFrom: the API refuses it; an empty value, as Kubernetes
            value = ""
        if value is not None:
            env[name] = value
    out = list(env.items())
    out.extend((k, service_env[k]) for k in sorted(service_env) if k not in env)
    return tuple(out)
