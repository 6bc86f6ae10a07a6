"""Durable, versioned, watchable state: the TinyDB state file, the journal in
front of it, the watch history, and the registry that admits objects into it.

Only :mod:`minikube_py.api` lies below this package.
"""
