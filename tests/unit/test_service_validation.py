"""Service (v1) validation: ``ValidateService``, ``ValidateServiceUpdate`` and
``ValidateServiceStatusUpdate`` of Kubernetes v1.32, each rule with its exact
path and message.

Objects are checked as the allocator leaves them (``clusterIPs``,
``ipFamilies`` and ``ipFamilyPolicy`` filled in).
"""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.core import service
from minikube_py.api.core.service_validation import validate_service_status_update

from .network_helpers import (
    DNS1035,
    IP,
    RANGE,
    external_name,
    load_balancer,
    messages,
    node_port,
    stored,
    svc,
    with_ingress,
    without,
)
from .validation_helpers import DNS_LABEL, LABEL_VALUE, QNAME, SUBDOMAIN

CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
ONLY_LB = "may only be used when `type` is 'LoadBalancer'"
WHEN_CLIENT_IP = "when session affinity type is ClientIP"
TWO_PORTS = [{"port": 80, "protocol": "TCP", "targetPort": 80},
             {"port": 443, "protocol": "TCP", "targetPort": 443}]


@pytest.mark.parametrize(("obj", "expected"), [
    (svc(), []),
    (external_name(), []),
    (external_name(externalName="db.example.com."), []),
    (svc(clusterIP="None", clusterIPs=["None"], ports=[]), []),
    # metadata: a DNS-1035 label, and the two topology annotations agree
    (svc("Web"), [f'metadata.name: Invalid value: "Web": {DNS1035}']),
    (svc("1web"), [f'metadata.name: Invalid value: "1web": {DNS1035}']),
    (svc(meta={"annotations": {"service.kubernetes.io/topology-mode": "Auto",
                               "service.kubernetes.io/topology-aware-hints": "Disabled"}}),
     ['metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": '
      "must match annotations[service.kubernetes.io/topology-aware-hints] when both are "
      "specified"]),
    # ports
    (svc(ports=[]), ["spec.ports: Required value"]),
    (svc(ports=TWO_PORTS),
     ["spec.ports[0].name: Required value", "spec.ports[1].name: Required value"]),
    (svc(ports=[{**p, "name": "http"} for p in TWO_PORTS]),
     ['spec.ports[1].name: Duplicate value: "http"']),
    (svc(ports=[{"name": "HTTP", "port": 80, "protocol": "TCP", "targetPort": 80}]),
     [f'spec.ports[0].name: Invalid value: "HTTP": {DNS_LABEL}']),
    (svc(ports=[{"port": 70000, "protocol": "TCP", "targetPort": 80}]),
     [f"spec.ports[0].port: Invalid value: 70000: {RANGE}"]),
    (svc(ports=[{"port": 80, "protocol": "", "targetPort": 80}]),
     ["spec.ports[0].protocol: Required value"]),
    (svc(ports=[{"port": 80, "protocol": "ICMP", "targetPort": 80}]),
     ['spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", '
      '"UDP"']),
    (svc(ports=[{"port": 80, "protocol": "TCP", "targetPort": "web_http"}]),
     ['spec.ports[0].targetPort: Invalid value: "web_http": must contain only alpha-numeric '
      "characters (a-z, 0-9), and hyphens (-)"]),
    (svc(ports=[{"port": 80, "protocol": "TCP", "targetPort": 0}]),
     [f"spec.ports[0].targetPort: Invalid value: 0: {RANGE}"]),
    (svc(ports=[{"port": 80, "protocol": "TCP", "targetPort": 80, "appProtocol": "a/b/c"}]),
     ['spec.ports[0].appProtocol: Invalid value: "a/b/c": a valid label key must consist of '
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
      "'/' (e.g. 'example.com/MyName')"]),
    # the type's demands
    (load_balancer(clusterIP="None", clusterIPs=["None"]),
     ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for "
      "LoadBalancer services"]),
    (node_port(clusterIP="None", clusterIPs=["None"]),
     ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort "
      "services"]),
    (external_name(clusterIP="10.96.0.10", clusterIPs=["10.96.0.10"], ipFamilies=["IPv4"],
                   ipFamilyPolicy="SingleStack"),
     ["spec.clusterIPs: Forbidden: may not be set for ExternalName services",
      "spec.ipFamilies: Forbidden: may not be set for ExternalName services",
      "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services"]),
    (external_name(externalName=""), ["spec.externalName: Required value"]),
    (external_name(externalName="Db_Host."),
     [f'spec.externalName: Invalid value: "Db_Host": {SUBDOMAIN}']),
    # selector
    (svc(selector={"app": "bad value"}),
     [f'spec.selector: Invalid value: "bad value": {LABEL_VALUE}']),
    # session affinity
    (svc(sessionAffinity=""), ["spec.sessionAffinity: Required value"]),
    (svc(sessionAffinity="Sticky"),
     ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", '
      '"None"']),
    (svc(sessionAffinity="ClientIP"),
     [f"spec.sessionAffinityConfig: Required value: {WHEN_CLIENT_IP}"]),
    (svc(sessionAffinity="ClientIP", sessionAffinityConfig={}),
     [f"spec.sessionAffinityConfig.clientIP: Required value: {WHEN_CLIENT_IP}"]),
    (svc(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {}}),
     [f"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value: {WHEN_CLIENT_IP}"]),
    (svc(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": 0}}),
     ["spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater "
      "than 0 and less than 86400"]),
    (svc(sessionAffinity="ClientIP",
         sessionAffinityConfig={"clientIP": {"timeoutSeconds": 86401}}),
     ["spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be "
      "greater than 0 and less than 86400"]),
    (svc(sessionAffinity="ClientIP",
         sessionAffinityConfig={"clientIP": {"timeoutSeconds": 86400}}), []),
    (svc(sessionAffinityConfig={"clientIP": {"timeoutSeconds": 60}}),
     ["spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None"]),
    # clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy
    (svc(clusterIPs=[]), ["spec.clusterIPs: Required value"]),
    (svc(clusterIPs=["10.96.0.11"]),
     ['spec.clusterIPs: Invalid value: []string{"10.96.0.11"}: first value must match '
      "`clusterIP`"]),
    (without(svc(), "clusterIP"),
     ['spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: must be empty when `clusterIP` '
      "is not specified"]),
    (svc(ipFamilies=["IPv5"]),
     ['spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"']),
    (svc(ipFamilies=["IPv4", "IPv4"], ipFamilyPolicy="PreferDualStack"),
     ['spec.ipFamilies[1]: Duplicate value: "IPv4"']),
    (svc(ipFamilyPolicy="DualStack"),
     ['spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: '
      '"PreferDualStack", "RequireDualStack", "SingleStack"']),
    (svc(clusterIP="None", clusterIPs=["None", "10.96.0.1"]),
     ['spec.clusterIPs: Invalid value: []string{"None", "10.96.0.1"}: \'None\' must be the '
      "first and only value"]),
    (svc(clusterIP="10.96.0.300", clusterIPs=["10.96.0.300"]),
     [f'spec.clusterIPs[0]: Invalid value: "10.96.0.300": {IP}']),
    (svc(clusterIPs=["10.96.0.10", "fd00::10", "10.96.0.12"], ipFamilyPolicy="PreferDualStack"),
     ['spec.clusterIPs: Invalid value: []string{"10.96.0.10", "fd00::10", "10.96.0.12"}: may '
      "only hold up to 2 values"]),
    (svc(clusterIPs=["10.96.0.10", "10.96.0.12"], ipFamilyPolicy="PreferDualStack"),
     ['spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.12"}: may specify no '
      "more than one IP for each IP family"]),
    (svc(clusterIP="fd00::10", clusterIPs=["fd00::10"]),
     ['spec.clusterIPs[0]: Invalid value: "fd00::10": expected an IPv4 value as indicated by '
      "`ipFamilies[0]`"]),
    (svc(ipFamilies=["IPv6"]),
     ['spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated '
      "by `ipFamilies[0]`"]),
    # external IPs: valid, and not special
    (svc(externalIPs=["203.0.113.7"], externalTrafficPolicy="Cluster"), []),
    (svc(externalIPs=["1.2.3"], externalTrafficPolicy="Cluster"),
     [f'spec.externalIPs[0]: Invalid value: "1.2.3": {IP}']),
    (svc(externalIPs=["0.0.0.0", "127.0.0.2", "169.254.1.1", "224.0.0.5", "fe80::1", "::1"],
         externalTrafficPolicy="Cluster"),
     ['spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
      'spec.externalIPs[1]: Invalid value: "127.0.0.2": may not be in the loopback range '
      "(127.0.0.0/8, ::1/128)",
      'spec.externalIPs[2]: Invalid value: "169.254.1.1": may not be in the link-local range '
      "(169.254.0.0/16, fe80::/10)",
      'spec.externalIPs[3]: Invalid value: "224.0.0.5": may not be in the link-local '
      "multicast range (224.0.0.0/24, ff02::/10)",
      'spec.externalIPs[4]: Invalid value: "fe80::1": may not be in the link-local range '
      "(169.254.0.0/16, fe80::/10)",
      'spec.externalIPs[5]: Invalid value: "::1": may not be in the loopback range '
      "(127.0.0.0/8, ::1/128)"]),
    # type
    (svc(type=""), ["spec.type: Required value"]),
    (svc(type="Magic"),
     ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", '
      '"LoadBalancer", "NodePort"']),
    # node ports and duplicate ports
    (svc(ports=[{"port": 80, "protocol": "TCP", "targetPort": 80, "nodePort": 30080}]),
     ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]),
    (node_port(ports=[{"name": "a", "port": 80, "protocol": "TCP", "targetPort": 80,
                       "nodePort": 30080},
                      {"name": "b", "port": 81, "protocol": "TCP", "targetPort": 81,
                       "nodePort": 30080},
                      {"name": "c", "port": 81, "protocol": "UDP", "targetPort": 81,
                       "nodePort": 30080}]),
     ["spec.ports[1].nodePort: Duplicate value: 30080"]),
    (svc(ports=[{"name": "a", "port": 80, "protocol": "TCP", "targetPort": 80},
                {"name": "b", "port": 80, "protocol": "TCP", "targetPort": 81},
                {"name": "c", "port": 80, "protocol": "UDP", "targetPort": 81}]),
     ['spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", '
      'AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, '
      'StrVal:""}, NodePort:0}']),
    # load balancer fields
    (svc(loadBalancerSourceRanges=["10.0.0.0/8"]),
     [f"spec.LoadBalancerSourceRanges: Forbidden: {ONLY_LB}"]),
    (load_balancer(loadBalancerSourceRanges=[" 10.0.0.0/8 ", "10.0.0.0/33", "10.0.0.1"]),
     [f'spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.0/33": {CIDR}',
      f'spec.LoadBalancerSourceRanges[2]: Invalid value: "10.0.0.1": {CIDR}']),
    (svc(meta={"annotations": {
        "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, nope"}}),
     ["metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: "
      f"Forbidden: {ONLY_LB}",
      "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: "
      f'Invalid value: "nope": {CIDR}']),
    (svc(allocateLoadBalancerNodePorts=True),
     [f"spec.allocateLoadBalancerNodePorts: Forbidden: {ONLY_LB}"]),
    (without(load_balancer(), "allocateLoadBalancerNodePorts"),
     ["allocateLoadBalancerNodePorts: Required value"]),
    (svc(loadBalancerClass="example.com/lb"), [f"spec.loadBalancerClass: Forbidden: {ONLY_LB}"]),
    (load_balancer(loadBalancerClass="example.com/lb"), []),
    (load_balancer(loadBalancerClass="-lb-"),
     [f'spec.loadBalancerClass: Invalid value: "-lb-": {QNAME}']),
    # traffic policies
    (svc(externalTrafficPolicy="Local"),
     ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for '
      "externally-accessible services"]),
    (without(node_port(), "externalTrafficPolicy"), ["spec.externalTrafficPolicy: Required value"]),
    (node_port(externalTrafficPolicy="Global"),
     ['spec.externalTrafficPolicy: Unsupported value: "Global": supported values: "Cluster", '
      '"Local"']),
    (node_port(healthCheckNodePort=30100),
     ["spec.healthCheckNodePort: Invalid value: 30100: may only be set when `type` is "
      "'LoadBalancer' and `externalTrafficPolicy` is 'Local'"]),
    (load_balancer(externalTrafficPolicy="Local"), ["spec.healthCheckNodePort: Required value"]),
    (load_balancer(externalTrafficPolicy="Local", healthCheckNodePort=70000),
     [f"spec.healthCheckNodePort: Invalid value: 70000: {RANGE}"]),
    (without(svc(), "internalTrafficPolicy"), ["spec.internalTrafficPolicy: Required value"]),
    (svc(internalTrafficPolicy="Anywhere"),
     ['spec.internalTrafficPolicy: Unsupported value: "Anywhere": supported values: '
      '"Cluster", "Local"']),
    (svc(trafficDistribution="PreferFar"),
     ['spec.trafficDistribution: Unsupported value: "PreferFar": supported values: '
      '"PreferClose"']),
    (svc(trafficDistribution="PreferClose"), []),
])
def test_create_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


@pytest.mark.parametrize(("old", "new", "expected"), [
    (svc(), svc(ports=[{"port": 81, "protocol": "TCP", "targetPort": 81}]), []),
    (svc(), svc(clusterIP="10.96.0.11", clusterIPs=["10.96.0.11"]),
     ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']),
    (svc(), without(svc(), "clusterIP", "clusterIPs"),
     ["spec.clusterIPs[0]: Invalid value: []string{}: primary clusterIP can not be unset"]),
    (svc(), svc(ipFamilies=["IPv6"]),
     ['spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set',
      'spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated '
      "by `ipFamilies[0]`"]),
    (svc(clusterIPs=["10.96.0.10", "fd00::10"], ipFamilies=["IPv4", "IPv6"],
         ipFamilyPolicy="PreferDualStack"), svc(ipFamilyPolicy="PreferDualStack"),
     ['spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to \'SingleStack\' '
      "when releasing the secondary clusterIP",
      'spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to \'SingleStack\' '
      "when releasing the secondary ipFamily"]),
    (svc(clusterIPs=["10.96.0.10", "fd00::10"], ipFamilies=["IPv4", "IPv6"],
         ipFamilyPolicy="PreferDualStack"), svc(), []),
    # headless stays headless; to and from ExternalName anything goes
    (svc(clusterIP="None", clusterIPs=["None"]),
     svc(clusterIP="None", clusterIPs=["None"], ipFamilies=["IPv4", "IPv6"],
         ipFamilyPolicy="RequireDualStack"), []),
    (external_name(), svc(clusterIP="10.96.0.12", clusterIPs=["10.96.0.12"]), []),
    (svc(), external_name(), []),
    (load_balancer(loadBalancerClass="example.com/a"),
     load_balancer(loadBalancerClass="example.com/b"),
     ['spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set']),
    (load_balancer(externalTrafficPolicy="Local", healthCheckNodePort=30100),
     load_balancer(externalTrafficPolicy="Local", healthCheckNodePort=30101),
     ["spec.healthCheckNodePort: Forbidden: field is immutable"]),
])
def test_update_validation(old: dict[str, Any], new: dict[str, Any], expected: list[str]):
    assert messages(stored(new), stored(old)) == expected


@pytest.mark.parametrize(("obj", "expected"), [
    (with_ingress(load_balancer(), {"ip": "203.0.113.7", "ipMode": "VIP"},
                  {"hostname": "lb.example.com"}), []),
    (with_ingress(svc(), {"ip": "203.0.113.7", "ipMode": "VIP"}),
     ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is "
      "'LoadBalancer'"]),
    (with_ingress(load_balancer(), {"ip": "203.0.113.7"}),
     ["status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is "
      "set"]),
    (with_ingress(load_balancer(), {"hostname": "lb.example.com", "ipMode": "VIP"}),
     ["status.loadBalancer.ingress[0].ipMode: Forbidden: may not be specified when `ip` is "
      "not set"]),
    (with_ingress(load_balancer(), {"ip": "203.0.113.7", "ipMode": "Tunnel"}),
     ['status.loadBalancer.ingress[0].ipMode: Unsupported value: "Tunnel": supported values: '
      '"Proxy", "VIP"']),
    (with_ingress(load_balancer(), {"ip": "203.0.113", "ipMode": "VIP"}),
     [f'status.loadBalancer.ingress[0].ip: Invalid value: "203.0.113": {IP}']),
    (with_ingress(load_balancer(), {"hostname": "203.0.113.7"}),
     ['status.loadBalancer.ingress[0].hostname: Invalid value: "203.0.113.7": must be a DNS '
      "name, not an IP address"]),
    (with_ingress(load_balancer(), {"hostname": "Lb_Host"}),
     [f'status.loadBalancer.ingress[0].hostname: Invalid value: "Lb_Host": {SUBDOMAIN}']),
])
def test_status_validation(obj: dict[str, Any], expected: list[str]):
    assert [str(e) for e in service.RESOURCE.validate_update(obj, stored(obj))] == expected
    assert [str(e) for e in validate_service_status_update(obj, stored(obj))] == expected
