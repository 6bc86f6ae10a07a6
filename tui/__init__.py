"""The Textual dashboard (App -> Screens -> Widgets) over the minikube-py API.

It sits above every other layer and reaches the cluster only through the API,
so it can attach to an in-process control plane or to a running daemon.
The views themselves arrive with the dashboard issue; until then ``make run``
starts the headless daemon.
"""
