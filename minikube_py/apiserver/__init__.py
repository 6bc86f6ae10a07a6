"""The Kubernetes REST API over the registry: routing, discovery, OpenAPI,
content negotiation, resource verbs and streaming (watch, logs).

A loop-layer package: it uses the store and the API model below it and never
imports the scheduler, controllers or kubelets; the control plane wires in
what it needs from them (a log source, readiness) as callables.
"""
