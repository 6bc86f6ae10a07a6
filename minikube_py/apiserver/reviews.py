"""The create-only resources that ask the API server a question instead of
storing an object: token requests, token reviews and access reviews.

Served as kube-apiserver serves them (their REST storages in
pkg/registry/authentication and pkg/registry/authorization), POST only,
answered ``201 Created`` with the request's ``spec`` and the answer in
``status``; nothing is stored:

* ``POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token``
  (``TokenRequest``; ``kubectl create token``): a bound service-account
  token (:mod:`.tokenrequest`).
* ``POST /apis/authentication.k8s.io/v1/tokenreviews``: whether a token
  authenticates, and as whom.
* ``POST /apis/authentication.k8s.io/v1/selfsubjectreviews``
  (``kubectl auth whoami``): the requesting user.
* ``POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews``
  (``kubectl auth can-i``), ``subjectaccessreviews`` (any user: ``spec.user``
  / ``spec.groups``), ``namespaces/{ns}/localsubjectaccessreviews`` (the
  same, limited to the URL's namespace): whether the authorizer allows
  ``resourceAttributes`` or ``nonResourceAttributes``.
* ``POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews``
  (``kubectl auth can-i --list``): the requesting user's rules in
  ``spec.namespace``.

Who may ask is decided before any of this runs, by the authorizer, like any
other request (``create`` on the resource; ``system:basic-user`` lets every
authenticated user make the self reviews).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..api.core import serviceaccount
from ..api.errors import (
    BadRequest,
    FieldError,
    FieldPath,
    Invalid,
    MethodNotAllowed,
    NotFound,
    invalid,
)
from ..api.generated import authentication_v1, authorization_v1
from ..api.schema_check import typed_object
from ..api.schema_model import Schema
from ..auth.attributes import Attributes
from ..auth.rbac import Decision
from ..auth.user import UserInfo, with_authenticated_group
from ..store.store import Store
from . import bodies
from .handlers import Request, Response, json_response
from .routes import NAMESPACES_SEGMENT
from .tokenrequest import request_token
from .tokens import TokenIssuer

__all__ = ["AUTHENTICATION", "AUTHORIZATION", "Reviews", "VirtualTarget", "match"]

AUTHENTICATION: Final = "authentication.k8s.io"
AUTHORIZATION: Final = "authorization.k8s.io"


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> Decision: ...

    def rules_for(self, user: UserInfo, namespace: str
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool, list[str]]: ...


class TokenAuthenticator(Protocol):
    def review(self, token: str, audiences: tuple[str, ...] = ()
               ) -> tuple[UserInfo | None, tuple[str, ...], str]: ...


@dataclass(frozen=True, slots=True)
class VirtualTarget:
    """A create-only resource a URL addresses."""

    group: str
    resource: str
    kind: str
    namespace: str = ""
    name: str = ""  # the service account of a token request


#: (group, resource) -> (kind, namespaced) of the review resources.
_REVIEWS: Final[dict[tuple[str, str], tuple[str, bool]]] = {
    (AUTHENTICATION, "tokenreviews"): ("TokenReview", False),
    (AUTHENTICATION, "selfsubjectreviews"): ("SelfSubjectReview", False),
    (AUTHORIZATION, "selfsubjectaccessreviews"): ("SelfSubjectAccessReview", False),
    (AUTHORIZATION, "subjectaccessreviews"): ("SubjectAccessReview", False),
    (AUTHORIZATION, "selfsubjectrulesreviews"): ("SelfSubjectRulesReview", False),
    (AUTHORIZATION, "localsubjectaccessreviews"): ("LocalSubjectAccessReview", True),
}

#: What discovery lists: (group, resource, kind, namespaced).
DISCOVERY: Final = tuple((group, resource, kind, namespaced)
                         for (group, resource), (kind, namespaced) in _REVIEWS.items())


def match(path: str) -> VirtualTarget | None:
    """The review or token request ``path`` addresses, None for any other path."""
    parts = [p for p in path.split("/") if p]
    if len(parts) == 7 and parts[:3] == ["api", "v1", NAMESPACES_SEGMENT] \
            and parts[4] == serviceaccount.INFO.plural and parts[6] == "token":
        return VirtualTarget("", f"{parts[4]}/token", "TokenRequest", parts[3], parts[5])
    if len(parts) < 4 or parts[0] != "apis" or parts[2] != "v1" \
            or parts[1] not in (AUTHENTICATION, AUTHORIZATION):
        return None
    namespace = ""
    rest = parts[3:]
    if len(rest) == 3 and rest[0] == NAMESPACES_SEGMENT:
        namespace, rest = rest[1], rest[2:]
    if len(rest) != 1:
        return None
    found = _REVIEWS.get((parts[1], rest[0]))
    if found is None or found[1] != bool(namespace):
        return None
    return VirtualTarget(parts[1], rest[0], found[0], namespace)


def _schema(kind: str) -> Schema:
    module = authentication_v1 if hasattr(authentication_v1, kind) else authorization_v1
    schema: Schema = getattr(module, kind)
    return schema


def _answer(target: VirtualTarget, body: dict[str, Any], status: dict[str, Any]) -> Response:
    meta = dict(body.get("metadata") or {})
    meta.setdefault("creationTimestamp", None)
    group = target.group or AUTHENTICATION
    out = {"kind": target.kind, "apiVersion": f"{group}/v1", "metadata": meta,
           "spec": body.get("spec") or {}, "status": status}
    return json_response(out, 201)


def _user_info(user: UserInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"username": user.name}
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra.items()}
    return out


def _invalid(kind: str, group: str, name: str, errors: list[FieldError]) -> Invalid:
    return Invalid.of(kind, name, errors, group=group)


class Reviews:
    """Answers the create-only resources (module contract)."""

    def __init__(self, store: Store, *, authenticator: TokenAuthenticator,
                 authorizer: Authorizer, issuer: TokenIssuer | None,
                 clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._authn = authenticator
        self._authz = authorizer
        self._issuer = issuer
        self._clock = clock

    def handle(self, target: VirtualTarget, req: Request, user: UserInfo) -> Response:
        if req.method != "POST":
            raise MethodNotAllowed("the server does not allow this method on the requested "
                                   "resource", details={"kind": target.resource,
                                                        "group": target.group})
        body = typed_object(bodies.decode(req.body, req.headers.get("content-type")),
                            _schema(target.kind), kind=target.kind, version="v1")
        claimed = (body.get("apiVersion"), body.get("kind"))
        group = target.group or AUTHENTICATION
        if claimed[0] and claimed[0] != f"{group}/v1":
            raise BadRequest(f"the API version in the data ({claimed[0]}) does not match the "
                             f"expected API version ({group}/v1)")
        if claimed[1] and claimed[1] != target.kind:
            raise BadRequest(f"the kind in the data ({claimed[1]}) does not match the expected "
                             f"kind ({target.kind})")
        handler = {
            "TokenRequest": self._token_request,
            "TokenReview": self._token_review,
            "SelfSubjectReview": self._self_subject_review,
            "SelfSubjectAccessReview": self._self_access_review,
            "SubjectAccessReview": self._access_review,
            "LocalSubjectAccessReview": self._access_review,
            "SelfSubjectRulesReview": self._rules_review,
        }[target.kind]
        return handler(target, body, user)

    # ------------------------------------------------------------------ authentication

    def _token_request(self, target: VirtualTarget, body: dict[str, Any],
                       user: UserInfo) -> Response:
        if self._issuer is None:
            raise NotFound('the server could not find the requested resource '
                           '"serviceaccounts/token"')
        return json_response(request_token(self._store, self._issuer, target.namespace,
                                           target.name, dict(body.get("spec") or {})), 201)

    def _token_review(self, target: VirtualTarget, body: dict[str, Any],
                      user: UserInfo) -> Response:
        spec = body.get("spec") or {}
        token = str(spec.get("token") or "")
        if not token:
            raise BadRequest("token is required for TokenReview in authentication")
        audiences = tuple(str(a) for a in spec.get("audiences") or ())
        reviewed, accepted, error = self._authn.review(token, audiences)
        status: dict[str, Any] = {"authenticated": reviewed is not None, "user": {}}
        if reviewed is not None:
            status["user"] = _user_info(reviewed)
            if accepted:
                status["audiences"] = list(accepted)
        elif error:
            status["error"] = error
        return _answer(target, body, status)

    def _self_subject_review(self, target: VirtualTarget, body: dict[str, Any],
                             user: UserInfo) -> Response:
        return _answer(target, {"metadata": body.get("metadata") or {}},
                       {"userInfo": _user_info(user)})

    # ------------------------------------------------------------------ authorization

    def _self_access_review(self, target: VirtualTarget, body: dict[str, Any],
                            user: UserInfo) -> Response:
        spec = body.get("spec") or {}
        attrs = self._review_attributes(target, spec, user)
        return _answer(target, body, self._decide(attrs))

    def _access_review(self, target: VirtualTarget, body: dict[str, Any],
                       user: UserInfo) -> Response:
        spec = body.get("spec") or {}
        subject = str(spec.get("user") or "")
        groups = tuple(str(g) for g in spec.get("groups") or ())
        if not subject and not groups:
            raise _invalid(target.kind, AUTHORIZATION, "", [invalid(
                FieldPath.root("spec", "user"), "", "at least one of user or group must be "
                "specified")])
        extra = {str(k): tuple(str(x) for x in v or ())
                 for k, v in (spec.get("extra") or {}).items()}
        reviewed = UserInfo(subject, groups, str(spec.get("uid") or ""), extra)
        if target.namespace:
            attrs_spec = spec.get("resourceAttributes")
            if spec.get("nonResourceAttributes") is not None:
                raise _invalid(target.kind, AUTHORIZATION, "", [invalid(
                    FieldPath.root("spec", "nonResourceAttributes"),
                    spec.get("nonResourceAttributes"), "disallowed on this kind of request")])
            if isinstance(attrs_spec, dict) and \
                    str(attrs_spec.get("namespace") or "") != target.namespace:
                raise BadRequest(f"spec.resourceAttributes.namespace must match namespace: "
                                 f"{target.namespace}")
        attrs = self._review_attributes(target, spec, reviewed)
        return _answer(target, body, self._decide(attrs))

    def _review_attributes(self, target: VirtualTarget, spec: Mapping[str, Any],
                           user: UserInfo) -> Attributes:
        resource = spec.get("resourceAttributes")
        non_resource = spec.get("nonResourceAttributes")
        if (resource is None) == (non_resource is None):
            raise _invalid(target.kind, AUTHORIZATION, "", [invalid(
                FieldPath.root("spec", "resourceAttributes"), spec.get("resourceAttributes"),
                "exactly one of nonResourceAttributes or resourceAttributes must be "
                "specified")])
        if resource is not None:
            r = dict(resource)
            return Attributes(user=user, verb=str(r.get("verb") or ""), resource_request=True,
                              namespace=str(r.get("namespace") or ""),
                              api_group=str(r.get("group") or ""),
                              api_version=str(r.get("version") or ""),
                              resource=str(r.get("resource") or ""),
                              subresource=str(r.get("subresource") or ""),
                              name=str(r.get("name") or ""), path="")
        n = dict(non_resource or {})
        return Attributes(user=user, verb=str(n.get("verb") or ""), resource_request=False,
                          path=str(n.get("path") or ""))

    def _decide(self, attrs: Attributes) -> dict[str, Any]:
        decision = self._authz.authorize(attrs)
        status: dict[str, Any] = {"allowed": bool(decision.allowed)}
        if decision.reason:
            status["reason"] = decision.reason
        return status

    def _rules_review(self, target: VirtualTarget, body: dict[str, Any],
                      user: UserInfo) -> Response:
        namespace = str((body.get("spec") or {}).get("namespace") or "")
        if not namespace:
            raise BadRequest("no namespace on request")
        resource_rules, non_resource_rules, incomplete, errors = self._authz.rules_for(
            with_authenticated_group(user), namespace)
        status: dict[str, Any] = {"resourceRules": resource_rules,
                                  "nonResourceRules": non_resource_rules,
                                  "incomplete": incomplete}
        if errors:
            status["evaluationError"] = ", ".join(errors)
        return _answer(target, body, status)
