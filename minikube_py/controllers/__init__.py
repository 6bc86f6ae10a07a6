"""Controllers: the reconcile loops that keep desired state (ReplicaSet,
Deployment, garbage collection, namespaces, node lifecycle, Job).

Each is a :class:`~.base.Controller`: shared informers feed ``namespace/name``
keys into a rate-limited work queue; ``reconcile(key)`` reads the cache, compares
desired with observed state and acts through the API. Controllers never import
each other, the scheduler or the kubelet: they meet only in the API.
"""
