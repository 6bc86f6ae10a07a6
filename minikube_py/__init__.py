"""minikube-py: a single-host, Kubernetes-shaped orchestrator.

Layers, bottom to top: ``api`` (object model) < ``store`` (durable state with
watch) < ``client`` < loops (scheduler, controllers, kubelet, apiserver) <
``controlplane`` < ``cli`` / ``tui``. A lower layer never imports a higher one.
"""

__version__ = "0.1.0"
