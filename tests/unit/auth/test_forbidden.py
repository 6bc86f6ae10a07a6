"""The 403 wording of kube-apiserver 1.32 (responsewriters.forbiddenMessage,
ForbiddenStatusError, apierrors.NewForbidden)."""

from __future__ import annotations

import pytest

from minikube_py.auth.forbidden import forbidden_message, forbidden_status_message, go_quote
from minikube_py.auth.user import UserInfo

from .helpers import res, url

BOT = 'User "system:serviceaccount:default:bot"'


@pytest.mark.parametrize("request_, message", [
    (res("list", "pods"),
     f'{BOT} cannot list resource "pods" in API group "" in the namespace "default"'),
    (res("get", "pods", sub="log", name="p"),
     f'{BOT} cannot get resource "pods/log" in API group "" in the namespace "default"'),
    (res("list", "nodes", namespace=""),
     f'{BOT} cannot list resource "nodes" in API group "" at the cluster scope'),
    (res("create", "deployments", group="apps"),
     f'{BOT} cannot create resource "deployments" in API group "apps" in the namespace '
     '"default"'),
    (url("get", "/foo"), f'{BOT} cannot get path "/foo"'),
])
def test_forbidden_message(request_, message):
    assert forbidden_message(request_) == message


@pytest.mark.parametrize("request_, reason, message, details", [
    (res("list", "pods"), "",
     f'pods is forbidden: {BOT} cannot list resource "pods" in API group "" in the namespace '
     '"default"', {"kind": "pods"}),
    (res("get", "deployments", group="apps", sub="scale", name="web"), "",
     f'deployments.apps "web" is forbidden: {BOT} cannot get resource "deployments/scale" in '
     'API group "apps" in the namespace "default"',
     {"group": "apps", "kind": "deployments", "name": "web"}),
    (res("get", "secrets", name="db", namespace=""), 'RBAC: role "x" not found',
     f'secrets "db" is forbidden: {BOT} cannot get resource "secrets" in API group "" at the '
     'cluster scope: RBAC: role "x" not found', {"kind": "secrets", "name": "db"}),
    (url("get", "/metrics"), "",
     f'forbidden: {BOT} cannot get path "/metrics"', {}),
    (url("post", "/x"), "because",
     f'forbidden: {BOT} cannot post path "/x": because', {}),
])
def test_forbidden_status_message(request_, reason, message, details):
    assert forbidden_status_message(request_, reason) == (message, details)


def test_the_message_is_sanitized_and_go_quoted_but_the_reason_is_left_alone():
    attrs = res("get", "pods", name='a"<b>', user=UserInfo("me & you"))
    message, details = forbidden_status_message(attrs, "<why>")
    assert message == ('pods "a\\"<b>" is forbidden: User "me &amp; you" cannot get resource '
                       '"pods" in API group "" in the namespace "default": <why>')
    assert details["name"] == 'a"<b>'


@pytest.mark.parametrize("text, quoted", [
    ("plain", '"plain"'), ('say "hi"', '"say \\"hi\\""'), ("back\\slash", '"back\\\\slash"'),
    ("tab\there", '"tab\\there"'), ("nl\n", '"nl\\n"'), ("\x00\x7f", '"\\x00\\x7f"'),
    ("é 😀", '"é 😀"'), ("\u00a0\u200b", '"\\u00a0\\u200b"'), ("\U000e0001", '"\\U000e0001"'),
])
def test_go_quote_is_strconv_quote(text, quoted):
    assert go_quote(text) == quoted
