"""Service, Endpoints and EndpointSlice through the API: the real kubectl and
the official Python client against a running daemon.

CRUD, watch and selectors of the three kinds, the server's tables as
``kubectl get -o wide`` prints them, ``kubectl describe`` equal to
``minikube-py describe`` byte for byte, Kubernetes' refusals, and
``kubectl create service`` (which sends protobuf).

The daemon also runs the Service controllers (Endpoints, EndpointSlices,
load balancer addresses), so the objects these tests read back are ones no
controller manages: Services that name their cluster IP, selectorless Services
and the Endpoints and EndpointSlices made here by hand. A hand-made Endpoints
object belongs to a selectorless Service of its name (the endpoints
controller deletes Endpoints whose Service is gone), and no selectorless
Service described here has Endpoints (which Kubernetes would mirror into
EndpointSlices).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config, watch

from tests.waiting import wait_for

from .conftest import Daemon, Lines

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def api(daemon: Daemon) -> Iterator[client.ApiClient]:
    api = config.new_client_from_config(config_file=str(daemon.kubeconfig))
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="module")
def core(api: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api)


@pytest.fixture(scope="module")
def discovery(api: client.ApiClient) -> client.DiscoveryV1Api:
    return client.DiscoveryV1Api(api)


def apply(daemon: Daemon, manifest: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return daemon.kubectl("apply", "-f", "-", input=manifest, check=check)


def selectorless(daemon: Daemon, name: str) -> None:
    """A Service without a selector: its Endpoints are the user's to write."""
    apply(daemon, f"apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\n"
                  "spec: {ports: [{name: http, port: 80, targetPort: 8080}]}\n")


def manual_slice(name: str, service: str, *ips: str, port: int = 8080) -> str:
    endpoints = "".join(f"- addresses: [{ip}]\n  conditions: {{ready: true}}\n"
                        f"  nodeName: node-{i}\n" for i, ip in enumerate(ips))
    return (f"apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n"
            f"metadata: {{name: {name}, labels: {{kubernetes.io/service-name: {service}}}}}\n"
            f"addressType: IPv4\nports: [{{name: http, port: {port}}}]\n"
            f"endpoints:\n{endpoints}")


def rows(daemon: Daemon, *args: str) -> dict[str, list[str]]:
    lines = daemon.kubectl("get", *args, "-o", "wide").stdout.splitlines()
    return {"HEADER": lines[0].split(), **{ln.split()[0]: ln.split() for ln in lines[1:]}}


def test_kubectl_create_service_sends_protobuf(daemon: Daemon):
    made = daemon.kubectl("create", "service", "clusterip", "pb-cip", "--tcp=5678:8080",
                          "--clusterip=10.96.100.10", "-v=8")
    assert made.stdout.strip() == "service/pb-cip created"
    assert "Content-Type: application/vnd.kubernetes.protobuf" in made.stderr
    daemon.kubectl("create", "service", "nodeport", "pb-np", "--tcp=80:8080",
                   "--node-port=30123")
    daemon.kubectl("create", "service", "externalname", "pb-en",
                   "--external-name=db.example.com")
    daemon.kubectl("create", "service", "clusterip", "pb-headless", "--clusterip=None")
    cip = daemon.get_json("svc", "pb-cip")
    assert cip["spec"] == {
        "clusterIP": "10.96.100.10", "clusterIPs": ["10.96.100.10"],
        "internalTrafficPolicy": "Cluster", "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack", "selector": {"app": "pb-cip"},
        "ports": [{"name": "5678-8080", "port": 5678, "protocol": "TCP", "targetPort": 8080}],
        "sessionAffinity": "None", "type": "ClusterIP"}
    assert cip["status"] == {"loadBalancer": {}} and "generation" not in cip["metadata"]
    nodeport = daemon.get_json("svc", "pb-np")["spec"]
    assert nodeport["externalTrafficPolicy"] == "Cluster"
    assert nodeport["ports"][0]["nodePort"] == 30123
    external = daemon.get_json("svc", "pb-en")["spec"]
    assert external["externalName"] == "db.example.com" and "clusterIP" not in external
    assert daemon.get_json("svc", "pb-headless")["spec"]["clusterIPs"] == ["None"]
    table = rows(daemon, "svc")
    assert table["HEADER"] == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE",
                               "SELECTOR"]
    assert table["pb-cip"][:5] + table["pb-cip"][6:] == [
        "pb-cip", "ClusterIP", "10.96.100.10", "<none>", "5678/TCP", "app=pb-cip"]
    assert table["pb-np"][1] == "NodePort" and table["pb-np"][3:5] == ["<none>", "80:30123/TCP"]
    assert table["pb-en"][1:5] == ["ExternalName", "<none>", "db.example.com", "<none>"]
    assert table["pb-headless"][1:5] == ["ClusterIP", "None", "<none>", "<none>"]
    again = daemon.kubectl("create", "service", "clusterip", "pb-cip", "--tcp=80",
                           check=False)
    assert again.returncode == 1 and 'services "pb-cip" already exists' in again.stderr


def test_kubectl_refuses_what_kubernetes_refuses(daemon: Daemon):
    v6 = apply(daemon, "apiVersion: v1\nkind: Service\nmetadata: {name: v6}\n"
                       "spec: {ipFamilies: [IPv6], ports: [{port: 80}]}\n", check=False)
    assert v6.returncode == 1
    assert 'The Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not ' \
        "configured on this cluster" in v6.stderr
    dual = apply(daemon, "apiVersion: v1\nkind: Service\nmetadata: {name: dual}\n"
                         "spec: {ipFamilyPolicy: RequireDualStack, ports: [{port: 80}]}\n",
                 check=False)
    assert 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not ' \
        "configured for dual-stack services" in dual.stderr
    ports = apply(daemon, "apiVersion: v1\nkind: Service\nmetadata: {name: twoports}\n"
                          "spec: {ports: [{port: 80}, {port: 80, name: b}]}\n", check=False)
    assert 'The Service "twoports" is invalid: ' in ports.stderr
    assert "spec.ports[0].name: Required value" in ports.stderr
    assert "spec.ports[1]: Duplicate value: core.ServicePort{" in ports.stderr
    daemon.kubectl("create", "service", "clusterip", "fixed-ip", "--tcp=80",
                   "--clusterip=10.96.100.30")
    moved = daemon.kubectl("patch", "svc", "fixed-ip", "-p",
                           '{"spec": {"clusterIP": "10.96.100.31", '
                           '"clusterIPs": ["10.96.100.31"]}}', check=False)
    assert 'The Service "fixed-ip" is invalid: spec.clusterIPs[0]: Invalid value: ' \
        '[]string{"10.96.100.31"}: may not change once set' in moved.stderr
    status = daemon.kubectl("patch", "svc", "fixed-ip", "--subresource=status", "-p",
                            '{"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}',
                            check=False)
    assert "status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is " \
        "'LoadBalancer'" in status.stderr
    loop = apply(daemon, "apiVersion: v1\nkind: Endpoints\nmetadata: {name: loop}\n"
                         "subsets: [{addresses: [{ip: 127.0.0.1}]}]\n", check=False)
    assert 'The Endpoints "loop" is invalid: subsets[0].addresses[0].ip: Invalid value: ' \
        '"127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' in loop.stderr
    fqdn = apply(daemon, "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n"
                         "metadata: {name: bad-slice}\naddressType: FQDN\n"
                         "endpoints: [{addresses: [localhost]}]\n", check=False)
    assert 'The EndpointSlice "bad-slice" is invalid: endpoints[0].addresses[0]: Invalid ' \
        'value: "localhost": should be a domain with at least two segments separated by dots' \
        in fqdn.stderr
    names = daemon.kubectl("get", "svc,ep,endpointslices", "-o", "name").stdout.split()
    for refused in ("service/v6", "service/dual", "service/twoports", "endpoints/loop",
                    "endpointslice.discovery.k8s.io/bad-slice"):
        assert refused not in names


def test_a_type_change_through_kubectl_patch(daemon: Daemon):
    daemon.kubectl("create", "service", "clusterip", "retype", "--tcp=80:8080",
                   "--clusterip=10.96.100.40")
    daemon.kubectl("patch", "svc", "retype", "-p", '{"spec": {"type": "NodePort"}}')
    spec = daemon.get_json("svc", "retype")["spec"]
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    assert spec["externalTrafficPolicy"] == "Cluster"
    daemon.kubectl("patch", "svc", "retype", "-p", '{"spec": {"type": "ClusterIP"}}')
    spec = daemon.get_json("svc", "retype")["spec"]
    assert "nodePort" not in spec["ports"][0] and "externalTrafficPolicy" not in spec
    assert spec["clusterIP"] == "10.96.100.40"
    daemon.kubectl("delete", "svc", "retype")
    assert daemon.kubectl("get", "svc", "retype", check=False).returncode == 1


def test_server_side_apply_twice_keeps_the_service(daemon: Daemon):
    """A port's protocol is a list-map key with a schema default (TCP), so a
    manifest may leave it out; re-applying keeps what the server filled in."""
    manifest = ("apiVersion: v1\nkind: Service\nmetadata: {name: ssa}\n"
                "spec: {selector: {app: ssa}, ports: [{port: 80, targetPort: 8080}]}\n")
    first = daemon.kubectl("apply", "--server-side", "-f", "-", input=manifest)
    assert first.stdout.strip() == "service/ssa serverside-applied"
    made = daemon.get_json("svc", "ssa")
    daemon.kubectl("apply", "--server-side", "-f", "-", input=manifest)
    again = daemon.get_json("svc", "ssa")
    assert again["spec"] == made["spec"]  # the allocated cluster IP stays
    assert again["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 8080}]


def test_kubectl_describe_prints_what_minikube_py_describe_prints(daemon: Daemon):
    apply(daemon, "apiVersion: v1\nkind: Service\nmetadata: {name: described, labels: "
                  "{tier: front}}\nspec:\n  clusterIP: 10.96.100.50\n  externalIPs: "
                  "[203.0.113.7]\n  sessionAffinity: ClientIP\n  ports:\n"
                  "  - {name: http, port: 80, targetPort: http}\n"
                  "  - {name: dns, port: 53, protocol: UDP}\n")
    apply(daemon, manual_slice("described-a", "described", "10.244.1.5", "10.244.1.6"))
    theirs = daemon.kubectl("describe", "svc", "described").stdout
    ours = daemon.cli("describe", "svc", "described").stdout
    assert ours == theirs
    assert "IP:                       10.96.100.50\n" in ours
    assert "Endpoints:                10.244.1.5:8080,10.244.1.6:8080\n" in ours
    assert "External Traffic Policy:  Cluster\n" in ours
    selectorless(daemon, "manual-ep")
    apply(daemon, "apiVersion: v1\nkind: Endpoints\nmetadata: {name: manual-ep}\nsubsets:\n"
                  "- addresses: [{ip: 10.244.1.5}, {ip: 10.244.1.6}]\n"
                  "  notReadyAddresses: [{ip: 10.244.1.7}]\n"
                  "  ports: [{name: http, port: 8080}, {name: metrics, port: 9090}]\n")
    for kind, name in (("endpoints", "manual-ep"), ("endpointslice", "described-a")):
        theirs = daemon.kubectl("describe", kind, name).stdout
        ours = daemon.cli("describe", kind, name).stdout
        assert ours == theirs, kind
    assert "NotReadyAddresses:  10.244.1.7\n" in daemon.cli("describe", "ep", "manual-ep").stdout


def test_endpoints_and_slices_tables(daemon: Daemon):
    selectorless(daemon, "table-ep")
    apply(daemon, "apiVersion: v1\nkind: Endpoints\nmetadata: {name: table-ep}\nsubsets:\n"
                  "- addresses: [{ip: 10.244.2.1}, {ip: 10.244.2.2}, {ip: 10.244.2.3},"
                  " {ip: 10.244.2.4}]\n  ports: [{port: 8080}]\n")
    apply(daemon, manual_slice("table-slice", "nowhere", "10.244.2.1", "10.244.2.2"))
    eps = rows(daemon, "ep")
    assert eps["HEADER"] == ["NAME", "ENDPOINTS", "AGE"]
    assert eps["table-ep"][1:5] == ["10.244.2.1:8080,10.244.2.2:8080,10.244.2.3:8080", "+", "1",
                                    "more..."]
    slices = rows(daemon, "endpointslices")
    assert slices["HEADER"] == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert slices["table-slice"][1:4] == ["IPv4", "8080", "10.244.2.1,10.244.2.2"]


def svc_body(name: str, labels: dict[str, str], **spec: Any) -> client.V1Service:
    return client.V1Service(metadata=client.V1ObjectMeta(name=name, labels=labels),
                            spec=client.V1ServiceSpec(**spec))


def test_official_client_services_crud_list_and_watch(core: client.CoreV1Api):
    made = core.create_namespaced_service("default", svc_body(
        "py-svc", {"owner": "py"}, cluster_ip="10.96.100.60",
        ports=[client.V1ServicePort(port=80, target_port=8080)]))
    assert made.spec.cluster_ips == ["10.96.100.60"] and made.spec.ip_families == ["IPv4"]
    core.create_namespaced_service("default", svc_body(
        "py-ext", {"owner": "py"}, type="ExternalName", external_name="db.example.com"))
    listed = core.list_namespaced_service("default", label_selector="owner=py")
    assert sorted(s.metadata.name for s in listed.items) == ["py-ext", "py-svc"]
    by_type = core.list_namespaced_service("default", label_selector="owner=py",
                                           field_selector="spec.type=ExternalName")
    assert [s.metadata.name for s in by_type.items] == ["py-ext"]
    by_ip = core.list_namespaced_service("default", field_selector="spec.clusterIP=10.96.100.60")
    assert [s.metadata.name for s in by_ip.items] == ["py-svc"]
    made.spec.ports[0].port = 81
    core.replace_namespaced_service("py-svc", "default", made)
    core.patch_namespaced_service("py-svc", "default", {"metadata": {"labels": {"x": "1"}}})
    seen = []
    stream = watch.Watch()
    for event in stream.stream(core.list_namespaced_service, "default", label_selector="owner=py",
                               resource_version=listed.metadata.resource_version,
                               timeout_seconds=10):
        seen.append((event["type"], event["object"].spec.ports[0].port))
        if len(seen) == 2:
            stream.stop()
    assert seen == [("MODIFIED", 81), ("MODIFIED", 81)]
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_service_status("py-svc", "default", {"status": {"loadBalancer": {
            "ingress": [{"ip": "203.0.113.1"}]}}})
    assert err.value.status == 422 and "may only be used when `spec.type` is 'LoadBalancer'" \
        in json.loads(err.value.body)["message"]
    gone = core.delete_namespaced_service("py-svc", "default")  # answers with the Service
    assert gone.metadata.name == "py-svc" and gone.spec.cluster_ip == "10.96.100.60"
    core.delete_namespaced_service("py-ext", "default")
    assert core.list_namespaced_service("default", label_selector="owner=py").items == []


def test_official_client_endpoints_and_slices(core: client.CoreV1Api,
                                              discovery: client.DiscoveryV1Api):
    core.create_namespaced_service("default", svc_body(
        "py-ep", {}, ports=[client.V1ServicePort(name="http", port=80, target_port=8080)]))
    made = core.create_namespaced_endpoints("default", client.V1Endpoints(
        metadata=client.V1ObjectMeta(name="py-ep", labels={"owner": "py"}),
        subsets=[client.V1EndpointSubset(
            addresses=[client.V1EndpointAddress(ip="10.244.3.1")],
            ports=[client.CoreV1EndpointPort(port=8080)])]))
    assert made.subsets[0].ports[0].protocol == "TCP"
    listed_ep = core.list_namespaced_endpoints("default", label_selector="owner=py")
    assert [e.metadata.name for e in listed_ep.items] == ["py-ep"]
    core.patch_namespaced_endpoints("py-ep", "default", {"subsets": [{
        "addresses": [{"ip": "10.244.3.2"}], "ports": [{"port": 8080}]}]})
    seen = []
    stream = watch.Watch()
    for event in stream.stream(core.list_namespaced_endpoints, "default",
                               label_selector="owner=py",
                               resource_version=listed_ep.metadata.resource_version,
                               timeout_seconds=10):
        seen.append((event["type"], event["object"].subsets[0].addresses[0].ip))
        stream.stop()
    assert seen == [("MODIFIED", "10.244.3.2")]
    assert core.read_namespaced_endpoints("py-ep", "default").subsets[0].addresses[0].ip == \
        "10.244.3.2"
    slice_ = discovery.create_namespaced_endpoint_slice("default", client.V1EndpointSlice(
        metadata=client.V1ObjectMeta(name="py-slice", labels={"owner": "py"}),
        address_type="IPv4",
        endpoints=[client.V1Endpoint(addresses=["10.244.3.1"],
                                     conditions=client.V1EndpointConditions(ready=True))],
        ports=[client.DiscoveryV1EndpointPort(port=8080)]))
    assert slice_.metadata.generation == 1 and slice_.ports[0].name == ""
    # py-ep's Service has no selector: its hand-written Endpoints are mirrored
    # into a slice of their own, labels and all, as kube-controller-manager does.
    mirrored = wait_for(lambda: [
        s for s in discovery.list_namespaced_endpoint_slice(
            "default", label_selector="kubernetes.io/service-name=py-ep").items
        if s.metadata.labels.get("endpointslice.kubernetes.io/managed-by")
        == "endpointslicemirroring-controller.k8s.io"
        and [e.addresses for e in s.endpoints or []] == [["10.244.3.2"]]],
        "py-ep's Endpoints mirrored into an EndpointSlice")
    assert mirrored[0].metadata.labels["owner"] == "py"
    listed = discovery.list_namespaced_endpoint_slice(
        "default", label_selector="owner=py,!endpointslice.kubernetes.io/managed-by")
    assert [s.metadata.name for s in listed.items] == ["py-slice"]
    patched = discovery.patch_namespaced_endpoint_slice("py-slice", "default", {
        "endpoints": [{"addresses": ["10.244.3.9"], "conditions": {"ready": False}}]})
    assert patched.metadata.generation == 2
    with pytest.raises(client.ApiException) as err:
        discovery.patch_namespaced_endpoint_slice("py-slice", "default", {"addressType": "IPv6"})
    assert err.value.status == 422
    assert 'addressType: Invalid value: "IPv6": field is immutable' in \
        json.loads(err.value.body)["message"]
    discovery.delete_namespaced_endpoint_slice("py-slice", "default")
    core.delete_namespaced_endpoints("py-ep", "default")
    core.delete_namespaced_service("py-ep", "default")
    # The mirrored slice goes when the controller sees its Endpoints go: after
    # the delete, not with it (as in Kubernetes), so it is waited for.
    wait_for(lambda: discovery.list_namespaced_endpoint_slice(
        "default", label_selector="owner=py").items == [],
        "the mirrored slice removed with its Endpoints")


def test_kubectl_watch_endpoint_slices_and_delete(daemon: Daemon):
    apply(daemon, manual_slice("watch-a", "watched", "10.244.4.1"))
    watcher = subprocess.Popen(
        ["kubectl", "--cache-dir", str(daemon.state / "kubectl-cache"), "get",
         "endpointslices", "-l", "kubernetes.io/service-name=watched", "-w",
         "--request-timeout=20s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert watcher.stdout is not None and watcher.stderr is not None
    out = Lines(watcher.stdout)
    Lines(watcher.stderr)
    try:
        wait_for(lambda: out.starting("watch-a"), "the watcher's first row", timeout=30)
        apply(daemon, manual_slice("watch-b", "watched", "10.244.4.2"))
        wait_for(lambda: out.starting("watch-b"), "a row for the new slice", timeout=30)
    finally:
        watcher.kill()
        watcher.wait()
    daemon.kubectl("delete", "endpointslices", "-l", "kubernetes.io/service-name=watched")
    assert daemon.kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=watched",
                          "-o", "name").stdout.strip() == ""
