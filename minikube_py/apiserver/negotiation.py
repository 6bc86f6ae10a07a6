"""Content negotiation: what a client accepts and what a request body is.

Responses are JSON in one of three shapes, chosen from ``Accept`` in the
client's order of preference:

* ``object``: the resource itself (``application/json``, ``*/*``, or no header);
* ``table``: a ``meta.k8s.io`` Table (``application/json;as=Table;g=meta.k8s.io;v=v1``,
  kubectl's ``get``);
* ``metadata``: ``PartialObjectMetadata`` (``as=PartialObjectMetadata``).

Aggregated discovery and protobuf responses are not served; clients that ask for
them also list ``application/json`` and fall back to it, as the protocol intends.
Protobuf *request bodies* are accepted for writes (client-go sends them and does
not retry with JSON): :func:`body_type` reports ``protobuf`` and the handler
decodes them with :func:`minikube_py.api.protobuf.decode_k8s_protobuf`.
Only when nothing acceptable is listed is the answer 406.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..api.errors import StatusError, UnsupportedMediaType


class NotAcceptable(StatusError):
    reason = "NotAcceptable"
    code = 406


@dataclass(frozen=True, slots=True)
class Wanted:
    shape: str  # "object" | "table" | "metadata"
    yaml: bool = False


def _params(part: str) -> tuple[str, dict[str, str]]:
    pieces = [p.strip() for p in part.split(";")]
    params = {}
    for p in pieces[1:]:
        if "=" in p:
            k, v = p.split("=", 1)
            params[k.strip().lower()] = v.strip()
    return pieces[0].lower(), params


def negotiate(accept: str | None) -> Wanted:
    """The response shape for an ``Accept`` header."""
    if not accept:
        return Wanted("object")
    for part in accept.split(","):
        media, params = _params(part)
        if media in ("application/json", "*/*", "application/*", "application/yaml"):
            as_ = params.get("as")
            group = params.get("g", "meta.k8s.io")
            if as_ is None:
                return Wanted("object", yaml=media == "application/yaml")
            if as_ == "Table" and group == "meta.k8s.io" and params.get("v") in ("v1", "v1beta1"):
                return Wanted("table")
            if as_ in ("PartialObjectMetadata", "PartialObjectMetadataList") and \
                    group == "meta.k8s.io":
                return Wanted("metadata")
            # Anything else (aggregated discovery, ...): try the next alternative.
    raise NotAcceptable(f"only the following media types are accepted: application/json, "
                        f"application/yaml (asked for: {accept})")


PROTOBUF = "application/vnd.kubernetes.protobuf"
BODY_TYPES = ("application/json", "application/yaml", PROTOBUF)
PATCH_TYPES = {
    "application/strategic-merge-patch+json": "strategic",
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/apply-patch+yaml": "apply",
    "application/apply-patch+cbor": "apply-cbor",
}


def body_type(content_type: str | None, *, patch: bool) -> str:
    """The request body's type: ``json``/``yaml``/``protobuf`` for writes (protobuf
    is decoded, never answered with), a patch type for PATCH."""
    media = _params(content_type or "")[0]
    if patch:
        kind = PATCH_TYPES.get(media)
        if kind is None or kind == "apply-cbor":
            raise UnsupportedMediaType(
                f'the body of the request was in an unknown format - accepted media types '
                f'include: {", ".join(k for k, v in PATCH_TYPES.items() if v != "apply-cbor")}')
        return kind
    if media in ("application/json", ""):
        return "json"
    if media == "application/yaml":
        return "yaml"
    if media == PROTOBUF:
        return "protobuf"
    raise UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        f"application/json, application/yaml, {PROTOBUF}")
