"""Fault injection against a real daemon (issue 8, "Faults"): SIGKILL of the control
plane, the Podman service killed underneath it, containers killed, OOM-killed and
paused behind the kubelet's back, and a full or read-only state directory.

Every loop is bounded (trial counts, deadlines). The CI defaults are small; longer
runs are asked for with ``MINIKUBE_PY_CHAOS_TRIALS`` (see ``conftest.py``).
"""
