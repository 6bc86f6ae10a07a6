"""The Textual dashboard (App -> Screens -> Widgets) over the minikube-py API.

It sits above every other layer and reaches the cluster only through the API
(over HTTPS, in both modes), so it attaches to an in-process control plane
(``minikube-py tui``, what ``make run`` starts) or to a running daemon
(``minikube-py tui --kubeconfig FILE``) with the same code.

* :mod:`.model`: informer caches fed on background threads, with coalesced,
  acknowledged change notifications; :mod:`.scheduling`: the scheduler's
  queue and decision records from ``/debug/scheduler``.
* :mod:`.app`: the application, its keys and actions; :mod:`.views`: one
  module per view; :mod:`.widgets`: bars, sparklines and the keyed table;
  :mod:`.screens`: logs, describe and the dialogs; :mod:`.command`: the
  ``tui`` command. What the keys do to the cluster is :mod:`minikube_py.ops`,
  the verbs the CLI runs too.
"""
