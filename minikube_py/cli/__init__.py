"""The ``minikube-py`` command line: one module per command, wired in :mod:`.main`."""
