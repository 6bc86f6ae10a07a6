"""Service environment variables (kubelet/envvars.py and the container env
built from them): Kubernetes' names and values, which Services a pod sees,
enableServiceLinks, overriding and $(VAR) references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from minikube_py.kubelet.containers import container_config
from minikube_py.kubelet.envvars import service_env


def service(name: str, namespace: str, ip: str | None, ports: list[dict[str, Any]],
            **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ports": ports, **spec}
    if ip is not None:
        body["clusterIP"] = ip
    return {"metadata": {"name": name, "namespace": namespace}, "spec": body}


KUBERNETES = service("kubernetes", "default", "10.96.0.1",
                     [{"name": "https", "port": 443, "protocol": "TCP"}])
REDIS = service("redis-primary", "shop", "10.96.12.7",
                [{"port": 6379, "protocol": "TCP"},
                 {"name": "metrics", "port": 9121, "protocol": "TCP"}])
DNS = service("dns", "shop", "10.96.0.20", [{"name": "dns", "port": 53, "protocol": "UDP"}])
HEADLESS = service("db", "shop", "None", [{"port": 5432, "protocol": "TCP"}])
EXTERNAL = service("ext", "shop", None, [{"port": 80}], type="ExternalName",
                   externalName="example.com")
OTHER_NS = service("web", "other", "10.96.3.3", [{"port": 80, "protocol": "TCP"}])
ALL = [KUBERNETES, REDIS, DNS, HEADLESS, EXTERNAL, OTHER_NS]


def test_names_and_values_as_kubernetes_builds_them():
    env = service_env(ALL, "shop", enable_service_links=True)
    assert {k: v for k, v in env.items() if k.startswith("REDIS_PRIMARY")} == {
        "REDIS_PRIMARY_SERVICE_HOST": "10.96.12.7",
        "REDIS_PRIMARY_SERVICE_PORT": "6379",
        "REDIS_PRIMARY_SERVICE_PORT_METRICS": "9121",
        "REDIS_PRIMARY_PORT": "tcp://10.96.12.7:6379",
        "REDIS_PRIMARY_PORT_6379_TCP": "tcp://10.96.12.7:6379",
        "REDIS_PRIMARY_PORT_6379_TCP_PROTO": "tcp",
        "REDIS_PRIMARY_PORT_6379_TCP_PORT": "6379",
        "REDIS_PRIMARY_PORT_6379_TCP_ADDR": "10.96.12.7",
        "REDIS_PRIMARY_PORT_9121_TCP": "tcp://10.96.12.7:9121",
        "REDIS_PRIMARY_PORT_9121_TCP_PROTO": "tcp",
        "REDIS_PRIMARY_PORT_9121_TCP_PORT": "9121",
        "REDIS_PRIMARY_PORT_9121_TCP_ADDR": "10.96.12.7",
    }
    assert env["DNS_PORT_53_UDP"] == "udp://10.96.0.20:53"
    assert env["KUBERNETES_SERVICE_HOST"] == "10.96.0.1"
    assert env["KUBERNETES_SERVICE_PORT"] == "443"
    assert env["KUBERNETES_SERVICE_PORT_HTTPS"] == "443"
    # Headless, ExternalName and other namespaces' Services give nothing.
    assert not [k for k in env if k.startswith(("DB_", "EXT_", "WEB_"))]


def test_without_service_links_only_the_kubernetes_service_remains():
    env = service_env(ALL, "shop", enable_service_links=False)
    assert env and all(k.startswith("KUBERNETES_") for k in env)


def test_container_env_overrides_refers_to_and_is_followed_by_service_variables():
    pod = {"metadata": {"name": "p", "namespace": "shop", "uid": "u"},
           "spec": {"containers": [{"name": "c", "image": "busybox", "env": [
               {"name": "REDIS_PRIMARY_SERVICE_PORT", "value": "1"},
               {"name": "URL", "value": "redis://$(REDIS_PRIMARY_SERVICE_HOST):6379"}]}]}}
    env = service_env(ALL, "shop", enable_service_links=True)
    config = container_config(pod, pod["spec"]["containers"][0], node="n", init=False,
                              restart_count=0, host_ip="192.0.2.1", pod_ip="10.244.0.5",
                              state_dir=Path("/nonexistent"), service_env=env)
    names = [k for k, _ in config.env]
    values = dict(config.env)
    assert names[:2] == ["REDIS_PRIMARY_SERVICE_PORT", "URL"]
    assert values["REDIS_PRIMARY_SERVICE_PORT"] == "1"
    assert values["URL"] == "redis://10.96.12.7:6379"
    assert names[2:] == sorted(k for k in env if k != "REDIS_PRIMARY_SERVICE_PORT")
