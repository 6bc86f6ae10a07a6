"""``TokenRequest``: a bound service-account token, as kube-apiserver's
``serviceaccounts/token`` storage (pkg/registry/core/serviceaccount/storage/token.go)
issues it.

:func:`request_token` is the whole of it, shared by the HTTP endpoint
(:mod:`.reviews`) and the in-process kubelets' token source (which reach the
same code without a round trip over HTTP):

* the service account must exist (NotFound otherwise);
* ``expirationSeconds`` defaults to 3600 and may not be below 600 or above
  2^32 (Invalid, Kubernetes' words);
* ``audiences`` default to the API server's;
* ``boundObjectRef`` may name a Pod or a Secret (``apiVersion`` v1) of the
  namespace: it must exist (NotFound), have the uid given if one is
  (Conflict), and a pod must run as this service account (BadRequest); a
  pod's node is named in the token too. Any other kind is a BadRequest.

The answer is the ``TokenRequest`` object: the defaulted ``spec`` and
``status.token`` / ``status.expirationTimestamp``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..api.core import node as node_kind
from ..api.core import pod, secret, serviceaccount
from ..api.errors import BadRequest, Conflict, FieldPath, Invalid, NotFound, invalid, required
from ..api.timefmt import format_time
from ..store.store import Store
from .tokens import DEFAULT_EXPIRATION, MIN_EXPIRATION, TokenIssuer

__all__ = ["MAX_EXPIRATION", "request_token"]

GROUP: Final = "authentication.k8s.io"
#: ``TokenRequest`` refuses longer tokens ("may not specify a duration larger than 2^32 seconds").
MAX_EXPIRATION: Final = 1 << 32
#: What a token may be bound to: kind -> resource.
_BINDABLE: Final = {info.kind: info.plural for info in (pod.INFO, secret.INFO)}


def _invalid(name: str, path: FieldPath, value: Any, detail: str) -> Invalid:
    return Invalid.of("TokenRequest", name, [invalid(path, value, detail)], group=GROUP)


def request_token(store: Store, issuer: TokenIssuer, namespace: str, name: str,
                  spec: Mapping[str, Any]) -> dict[str, Any]:
    """The ``TokenRequest`` answered for service account ``namespace/name``."""
    # Reads only (here and in _bound_object): the store's shared copies, no decode
    # per token (every pod's first sync asks for one). NotFound as Kubernetes says it.
    sa = store.get_shared(serviceaccount.INFO.plural, namespace, name)
    out = dict(spec)
    path = FieldPath.root("spec", "expirationSeconds")
    raw = out.get("expirationSeconds")
    expiration = DEFAULT_EXPIRATION if raw is None else int(raw)
    if expiration < MIN_EXPIRATION:
        raise _invalid(name, path, expiration, "may not specify a duration less than 10 minutes")
    if expiration > MAX_EXPIRATION:
        raise _invalid(name, path, expiration,
                       "may not specify a duration larger than 2^32 seconds")
    out["expirationSeconds"] = expiration
    out["audiences"] = [str(a) for a in out.get("audiences") or []] or list(issuer.audiences)
    bound: tuple[str, str, str] | None = None
    node: tuple[str, str] | None = None
    ref = out.get("boundObjectRef")
    if ref:
        bound, node = _bound_object(store, namespace, name, dict(ref))
    token, expires = issuer.issue(
        namespace=namespace, service_account=name,
        service_account_uid=str(sa["metadata"].get("uid", "")), audiences=out["audiences"],
        expiration_seconds=expiration, bound=bound, node=node)
    return {"kind": "TokenRequest", "apiVersion": f"{GROUP}/v1",
            "metadata": {"name": name, "namespace": namespace, "creationTimestamp": None},
            "spec": out,
            "status": {"token": token, "expirationTimestamp": format_time(expires)}}


def _bound_object(store: Store, namespace: str, sa: str, ref: Mapping[str, Any]
                  ) -> tuple[tuple[str, str, str], tuple[str, str] | None]:
    kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
    api_version = str(ref.get("apiVersion") or "")
    resource = _BINDABLE.get(kind)
    if resource is None or api_version not in ("", "v1"):
        raise BadRequest(f"cannot bind token for serviceaccount {sa!r} to object of type "
                         f"{api_version or 'v1'}, Kind={kind}")
    if not name:
        raise Invalid.of("TokenRequest", sa, [required(
            FieldPath.root("spec", "boundObjectRef", "name"))], group=GROUP)
    obj = store.get_shared(resource, namespace, name)  # NotFound as Kubernetes says it
    uid = str(obj["metadata"].get("uid", ""))
    wanted_uid = str(ref.get("uid") or "")
    if wanted_uid and wanted_uid != uid:
        raise Conflict.of(resource, name, f"the UID in the bound object reference "
                          f"({wanted_uid}) does not match the UID in record. The object might "
                          f"have been deleted and then recreated")
    node: tuple[str, str] | None = None
    if kind == pod.INFO.kind:
        pod_spec = obj.get("spec") or {}
        if str(pod_spec.get("serviceAccountName") or "default") != sa:
            raise BadRequest(f"cannot bind token for serviceaccount {sa!r} to pod running with "
                             f"different serviceaccount name.")
        node_name = str(pod_spec.get("nodeName") or "")
        if node_name:
            try:
                node_obj = store.get_shared(node_kind.INFO.plural, None, node_name)
                node = (node_name, str(node_obj["metadata"].get("uid", "")))
            except NotFound:
                node = None
    return (kind, name, uid), node
