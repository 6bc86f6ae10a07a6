"""Authentication identities and authorization: who is asking (``user``),
what they ask (``requestinfo``, ``attributes``), and whether RBAC lets them
(``rules``, ``rbac``, ``aggregation``, ``bootstrap``, ``forbidden``,
``impersonation``), following kube-apiserver 1.32. Imports only
``minikube_py.api``."""
