"""``python -m minikube_py`` is the ``minikube-py`` command."""

from minikube_py.cli.main import main

raise SystemExit(main())
