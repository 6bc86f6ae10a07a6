"""How verbs fail, for both front-ends.

* Errors the API reports propagate as
  :class:`~minikube_py.api.errors.StatusError` subclasses (``NotFound``,
  ``Invalid``, ``Conflict``...), untouched; print them with
  :func:`~.wording.server_error`.
* Mistakes caught before anything is sent (an unknown resource type, a
  negative replica count, a manifest that does not parse, no rollout history)
  raise :class:`OpError`, whose message names what is wrong in kubectl's
  words. It is a ``ValueError``, so callers that only know "bad input" catch it.
* A verb made of several steps that fails after some of them took effect
  (applying files with one bad object among good ones, a drain once the node
  is cordoned) raises :class:`PartialFailure`, which also carries the lines of
  what *was* done, so nothing that changed the cluster goes unreported.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["OpError", "PartialFailure"]


class OpError(ValueError):
    """A mistake on the client side, caught before anything was sent."""


class PartialFailure(OpError):
    """Some steps of a verb took effect, then others failed.

    ``done`` holds kubectl's lines for what succeeded (possibly none),
    ``errors`` one line per failure; ``str()`` is the errors joined by newlines.
    """

    def __init__(self, done: Sequence[str], errors: Sequence[str]) -> None:
        super().__init__("\n".join(errors))
        self.done = list(done)
        self.errors = list(errors)
