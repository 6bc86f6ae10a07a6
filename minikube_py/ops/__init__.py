"""The verbs both front-ends call: the CLI (:mod:`minikube_py.cli`) and the
dashboard (:mod:`tui`) do apply, scale, delete, rollouts, node maintenance and
describe through these functions, so a verb means one thing whichever way a
user reaches it, and prints kubectl's words either way.

Every verb takes a :class:`~minikube_py.client.base.Client` (HTTP or in-process)
and follows one error contract (:mod:`.errors`): API errors propagate as
:class:`~minikube_py.api.errors.StatusError`; mistakes caught before anything
is sent raise :class:`~.errors.OpError`; a verb of several steps that fails
after some took effect raises :class:`~.errors.PartialFailure` carrying what
was done.
"""
