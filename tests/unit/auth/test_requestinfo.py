"""request_info against kube-apiserver's own table
(staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go, 1.32)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from minikube_py.auth.requestinfo import RequestInfo, RequestInfoError, request_info


def info(method: str, url: str) -> RequestInfo:
    """As the server calls it: the path, and each parameter's first value."""
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    return request_info(method, parts.path, query)


# TestGetAPIRequestInfo's successCases: (method, url, verb, prefix, group,
# version, namespace, resource, subresource, name, parts).
SUCCESS = [
    ("GET", "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "",
     ["namespaces"]),
    ("GET", "/api/v1/namespaces/other", "get", "api", "", "v1", "other", "namespaces", "",
     "other", ["namespaces", "other"]),
    ("GET", "/api/v1/namespaces/other/pods", "list", "api", "", "v1", "other", "pods", "", "",
     ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "",
     "foo", ["pods", "foo"]),
    ("HEAD", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "",
     "foo", ["pods", "foo"]),
    ("GET", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", ["pods"]),
    ("HEAD", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "api", "", "v1", "other",
     "pods", "", "foo", ["pods", "foo"]),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy",
     "api", "", "v1", "other", "pods", "", "foo",
     ["pods", "foo", "subpath", "not", "a", "subresource"]),
    ("GET", "/api/v1/watch/pods", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/pods?watch=true", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/pods?watch=false", "list", "api", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/watch/namespaces/other/pods", "watch", "api", "", "v1", "other", "pods",
     "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "api", "", "v1", "other", "pods",
     "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods?watch=0", "list", "api", "", "v1", "other", "pods",
     "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods/foo/status", "get", "api", "", "v1", "other",
     "pods", "status", "foo", ["pods", "foo", "status"]),
    ("GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "api", "", "v1",
     "other", "pods", "proxy", "foo", ["pods", "foo", "proxy", "subpath"]),
    ("PUT", "/api/v1/namespaces/other/finalize", "update", "api", "", "v1", "other",
     "namespaces", "finalize", "other", ["namespaces", "other", "finalize"]),
    ("PUT", "/api/v1/namespaces/other/status", "update", "api", "", "v1", "other",
     "namespaces", "status", "other", ["namespaces", "other", "status"]),
    ("PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "api", "", "v1", "other", "pods",
     "", "foo", ["pods", "foo"]),
    ("DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "api", "", "v1", "other",
     "pods", "", "foo", ["pods", "foo"]),
    ("POST", "/api/v1/namespaces/other/pods", "create", "api", "", "v1", "other", "pods", "",
     "", ["pods"]),
    ("DELETE", "/api/v1/nodes", "deletecollection", "api", "", "v1", "", "nodes", "", "",
     ["nodes"]),
    ("DELETE", "/api/v1/namespaces", "deletecollection", "api", "", "v1", "", "namespaces",
     "", "", ["namespaces"]),
    ("DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "api", "", "v1", "other",
     "pods", "", "", ["pods"]),
    ("DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "apis",
     "extensions", "v1", "other", "pods", "", "", ["pods"]),
    ("POST", "/apis/extensions/v1/namespaces/other/pods", "create", "apis", "extensions", "v1",
     "other", "pods", "", "", ["pods"]),
    ("POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "apis", "extensions",
     "v1beta3", "other", "pods", "", "", ["pods"]),
    # Ours: the usual apps, token and scale paths.
    ("GET", "/apis/apps/v1/namespaces/ns/deployments/web/scale", "get", "apis", "apps", "v1",
     "ns", "deployments", "scale", "web", ["deployments", "web", "scale"]),
    ("POST", "/api/v1/namespaces/ns/serviceaccounts/bot/token", "create", "api", "", "v1",
     "ns", "serviceaccounts", "token", "bot", ["serviceaccounts", "bot", "token"]),
    ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "create", "apis",
     "authorization.k8s.io", "v1", "", "selfsubjectaccessreviews", "", "",
     ["selfsubjectaccessreviews"]),
]


@pytest.mark.parametrize(("method", "url", "verb", "prefix", "group", "version", "namespace",
                          "resource", "subresource", "name", "parts"), SUCCESS)
def test_resource_requests(method, url, verb, prefix, group, version, namespace, resource,
                           subresource, name, parts):
    got = info(method, url)
    assert got.is_resource_request
    assert (got.verb, got.api_prefix, got.api_group, got.api_version, got.namespace,
            got.resource, got.subresource, got.name, list(got.parts)) == \
        (verb, prefix, group, version, namespace, resource, subresource, name, parts)
    assert got.path == urlsplit(url).path


@pytest.mark.parametrize("url, resource_request", [
    # TestGetNonAPIRequestInfo
    ("/api/version/resource", True),
    ("/apis/group/version/resource/name/subresource", True),
    ("/api/version/resource/name/subresource", True),
    ("/apis/batch/v1/job", True),
    ("/apis/batch/v1/job/foo", True),
    ("/apis/batch/v1/job/foo/scale", True),
    ("/not-api/version/resource", False),
    ("/apis/extensions/v1beta1", False),
    ("/apis/extensions/v1beta1/", False),
    ("/api/version", False),
    ("/api", False),
    ("/", False),
    ("", False),
    # TestGetAPIRequestInfo's errorCases: all non-resource
    ("/api/version/", False),
    ("/apis/group/version/", False),
    ("/badprefix/version/resource", False),
    ("/apis/version/resource", False),
])
def test_which_paths_are_resource_requests(url, resource_request):
    assert info("GET", url).is_resource_request is resource_request


@pytest.mark.parametrize("method, path", [
    ("GET", "/api"), ("GET", "/apis/apps/v1"), ("GET", "/openapi/v2"), ("GET", "/healthz"),
    ("POST", "/metrics"), ("PUT", "/version"), ("DELETE", "/"),
])
def test_a_non_resource_request_has_the_lower_case_method_as_verb(method, path):
    assert request_info(method, path, {}) == RequestInfo(False, path, method.lower())


# TestSelectorParsing (AuthorizeWithSelectors is on by default in 1.32):
# (method, url, name, verb, fieldSelector, labelSelector).
@pytest.mark.parametrize("method, url, name, verb, field_selector, label_selector", [
    ("GET", "/apis/group/version/resource", "", "list", "", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1", "name1", "list",
     "metadata.name=name1", ""),
    ("GET", "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1",
     "name1", "watch", "metadata.name=name1", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "",
     "list", "foo=bar", "baz=qux"),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "", "list",
     "metadata.name=name1,foo", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "",
     "watch", "metadata.name=name1,foo", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false",
     "", "list", "metadata.name=name1,foo", ""),
    ("DELETE", "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "",
     "deletecollection", "foo=bar", "baz=qux"),
    ("GET", "/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar",
     "name", "get", "", ""),
    ("GET", "/apis/group/version/watch/resource?fieldSelector=metadata.name=foo"
     "&labelSelector=foo=bar", "", "watch", "", ""),
    ("GET", "/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo"
     "&labelSelector=foo=bar", "name", "watch", "", ""),
])
def test_selectors(method, url, name, verb, field_selector, label_selector):
    got = info(method, url)
    assert (got.name, got.verb, got.field_selector, got.label_selector) == \
        (name, verb, field_selector, label_selector)


@pytest.mark.parametrize("query, verb", [
    ("watch=true", "watch"), ("watch=1", "watch"), ("watch=TRUE", "watch"),
    ("watch=", "watch"),        # any value but 0/false is true, even an empty one
    ("watch=yes", "watch"),
    ("watch=False", "list"), ("watch=0", "list"), ("", "list"),
    ("watch=1&limit=x", "watch"),  # list options that do not decode keep the watch
])
def test_watch_parameter_is_convert_slice_string_to_bool(query, verb):
    assert info("GET", f"/api/v1/pods?{query}").verb == verb


@pytest.mark.parametrize("field_selector, name", [
    ("metadata.name=a", "a"),
    ("metadata.name==a", "a"),
    ("metadata.name!=a", ""),
    ("metadata.name=b,metadata.name=a", "a"),    # the parser sorts the terms
    ("status.phase=Running,metadata.name=a", "a"),
    ("metadata.name =a", ""),                    # the field is not trimmed
    ("metadata.name=..", ""),                    # path.IsValidPathSegmentName
    ("metadata.name=a%2Fb", ""),
    ("metadata.name=a\\,b", "a,b"),              # unescaped; still a valid path segment
    ("metadata.name=a\\x", ""),                  # invalid escape: decoding fails
])
def test_name_from_field_selector(field_selector, name):
    got = request_info("GET", "/api/v1/namespaces/ns/pods", {"fieldSelector": field_selector})
    assert got.name == name


@pytest.mark.parametrize("extra", [
    {"limit": "ten"}, {"limit": ""}, {"timeoutSeconds": "1.5"},
    {"limit": "99999999999999999999"}, {"labelSelector": "a in (b"},
])
def test_list_options_that_do_not_decode_drop_the_name(extra):
    got = request_info("GET", "/api/v1/pods", {"fieldSelector": "metadata.name=a", **extra})
    assert (got.verb, got.name) == ("list", "")


def test_list_options_that_decode_keep_the_name():
    got = request_info("GET", "/api/v1/pods", {"fieldSelector": "metadata.name=a",
                                               "limit": "+5", "timeoutSeconds": "-1",
                                               "labelSelector": "app in (web)"})
    assert (got.verb, got.name) == ("list", "a")


def test_a_delete_named_by_field_selector_is_still_a_deletecollection():
    # Only GET takes its name from the field selector.
    got = request_info("DELETE", "/api/v1/pods", {"fieldSelector": "metadata.name=a"})
    assert (got.verb, got.name) == ("deletecollection", "")


def test_unknown_methods_have_no_verb():
    assert request_info("OPTIONS", "/api/v1/pods", {}).verb == ""
    assert request_info("get", "/api/v1/pods", {}).verb == ""  # Go's switch is exact


def test_empty_segments_are_kept_as_go_splits_paths():
    got = request_info("GET", "/api//v1/pods", {})
    assert (got.api_version, got.resource, got.name, got.verb) == ("", "v1", "pods", "get")


def test_a_special_verb_alone_is_an_internal_error():
    with pytest.raises(RequestInfoError) as caught:
        request_info("GET", "/api/v1/watch", {"x": "1"})
    assert caught.value.code == 500
    assert str(caught.value.message) == ("failed to create RequestInfo: unable to determine "
                                         "kind and namespace from url, /api/v1/watch?x=1")
