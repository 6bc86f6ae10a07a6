"""ServiceAccount (core/v1): an identity for processes that run in pods.

Kubernetes v1.32's rules:

* ``ValidateServiceAccount`` checks the object metadata only (the name is a
  DNS subdomain); ``secrets`` and ``imagePullSecrets`` are references that
  need not exist and are not checked, and an update checks the metadata
  rules and then the same.
* The strategy keeps only the ``name`` of each ``secrets`` reference
  (``cleanSecretReferences``, on create and update); no status, no
  generation, no field labels beyond the metadata ones.

Table and describer are kubectl's: ``NAME SECRETS AGE`` and the
``ServiceAccountDescriber``, which lists the Secrets of the namespace to
name the account's token Secrets (type ``kubernetes.io/service-account-token``
whose annotations name this account and its uid) and to mark references to
Secrets that do not exist ``(not found)``. When that list could not be read
(``related`` has no ``secrets``), nothing is marked, as in kubectl.

The ``serviceaccounts/token`` subresource (TokenRequest) is served by the
API server's token issuer, not here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..describe.sections import describe_events, print_name_header
from ..describe.writer import Ctx, Out
from ..generated import core_v1
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch
from ..resource import Column, KindInfo, Related, Resource
from ..validation_meta import Errs, as_str, validate_object_meta, validate_object_meta_update
from .secret import SERVICE_ACCOUNT_NAME_KEY, SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_UID_KEY

INFO = KindInfo("ServiceAccount", "", "v1", "serviceaccounts", "serviceaccount", True,
                ("sa",))

# ------------------------------------------------------------------ validation


def validate_service_account(sa: Mapping[str, Any]) -> Errs:
    """``ValidateServiceAccount``: the object metadata, name a DNS subdomain."""
    return validate_object_meta(sa.get("metadata"), namespaced=True, name_rule="subdomain")


def validate_service_account_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateServiceAccountUpdate``: metadata update rules, then create rules."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(validate_service_account(new))
    return errs


# ------------------------------------------------------------------ strategy


def clean_secret_references(sa: dict[str, Any], old: Mapping[str, Any] | None = None) -> None:
    """``cleanSecretReferences``: a ``secrets`` entry keeps only its name."""
    secrets = sa.get("secrets")
    if isinstance(secrets, list):
        sa["secrets"] = [{"name": ref["name"]} if isinstance(ref, Mapping) and ref.get("name")
                         else {} for ref in secrets]


# ------------------------------------------------------------------ table

SERVICE_ACCOUNT_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Secrets", "string",
           "Secrets is a list of the secrets in the same namespace that pods running using "
           "this ServiceAccount are allowed to use. Pods are only limited to this list if "
           "this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation "
           "set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is "
           "deprecated since v1.32. Prefer separate namespaces to isolate access to mounted "
           "secrets. This field should not be used to find auto-generated service account "
           "token secrets for use outside of pods. Instead, tokens can be requested directly "
           "using the TokenRequest API, or service account token secrets can be manually "
           "created. More info: https://kubernetes.io/docs/concepts/configuration/secret"),
    Column("Age", "string", D_CREATED),
)


def print_service_account(sa: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printServiceAccount``: name, number of ``secrets`` references, age."""
    metadata = _m(sa.get("metadata"))
    secrets = sa.get("secrets")
    return [cell_str(metadata.get("name")), len(secrets) if isinstance(secrets, list) else 0,
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


# ------------------------------------------------------------------ describe

_EMPTY_HEADER: Final = "                   "
#: kubectl sorts its three headers; these are already in that order.
_PULL, _MOUNT, _TOKENS = "Image pull secrets:", "Mountable secrets: ", "Tokens:            "


def _names(refs: Any) -> list[str]:
    return [as_str(ref.get("name")) for ref in _maps(refs)]


def _tokens(sa: Mapping[str, Any], secrets: Sequence[Mapping[str, Any]]) -> list[str]:
    """Token Secrets whose annotations name this account and its uid."""
    meta = _m(sa.get("metadata"))
    out = []
    for secret in secrets:
        annotations = _m(_m(secret.get("metadata")).get("annotations"))
        if secret.get("type") == SERVICE_ACCOUNT_TOKEN and \
                annotations.get(SERVICE_ACCOUNT_NAME_KEY, "") == meta.get("name", "") and \
                annotations.get(SERVICE_ACCOUNT_UID_KEY, "") == meta.get("uid", ""):
            out.append(as_str(_m(secret.get("metadata")).get("name")))
    return out


def describe_service_account(sa: Mapping[str, Any], related: Mapping[str, Any],
                             events: Any, ctx: Ctx) -> str:
    """kubectl's ``ServiceAccountDescriber`` (module docstring)."""
    w = Out()
    print_name_header(w, _m(sa.get("metadata")))
    secrets = related.get("secrets")
    tokens: list[str] = []
    missing: set[str] = set()
    if secrets is not None:
        existing = {as_str(_m(s.get("metadata")).get("name")) for s in secrets}
        tokens = _tokens(sa, secrets)
        missing = {name for name in _names(sa.get("secrets")) + _names(
            sa.get("imagePullSecrets")) if name not in existing}
    for header, names in ((_PULL, _names(sa.get("imagePullSecrets"))),
                          (_MOUNT, _names(sa.get("secrets"))), (_TOKENS, tokens)):
        if not names:
            w.write(0, f"{header}\t<none>\n")
            continue
        prefix = header
        for name in names:
            w.write(0, f"{prefix}\t{name}{' (not found)' if name in missing else ''}\n")
            prefix = _EMPTY_HEADER
    describe_events(events, w, ctx)
    return w.render()


RESOURCE = Resource(
    INFO, core_v1.ServiceAccount,
    validate=validate_service_account,
    validate_update=validate_service_account_update,
    prepare_for_create=clean_secret_references,
    prepare_for_update=clean_secret_references,
    columns=SERVICE_ACCOUNT_COLUMNS,
    row=print_service_account,
    describe=describe_service_account,
    related=(Related("secrets", "secrets"),),
)
