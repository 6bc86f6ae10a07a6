"""Encryption at rest: chosen resources (Secrets by default) never reach the disk
in plaintext.

Why: Kubernetes keeps Secrets in etcd in plain text unless an
EncryptionConfiguration says otherwise; minikube-py encrypts them by default,
the way kube-apiserver's ``secretbox`` provider does.

**What is encrypted.** The whole serialized object (data, labels, annotations,
status: everything) of every resource the store is told to encrypt. In the
TinyDB file and in every journal record it is replaced by a small wrapper::

    {"metadata": {"namespace": "default", "name": "db", "resourceVersion": "42"},
     "encrypted": "k8s:enc:secretbox:v1:<key id>:<base64(nonce + ciphertext)>"}

The envelope string is kube-apiserver's (``k8s:enc:secretbox:v1:<key name>:``
followed by nonce and ciphertext), with the binary part in base64 so that both
files stay JSON (and the TinyDB file stays a TinyDB database).

**What stays in clear, and why.** Namespace, name and resourceVersion, and
nothing else. They are not secret in Kubernetes' model either (etcd keys are
``/registry/secrets/<namespace>/<name>`` in clear; events, audit logs and RBAC
rules name them), the journal record already carries the object's key and
version in clear, and they let whoever opens the TinyDB file see which objects
exist. The store needs nothing else on disk: it decrypts every object when it
opens the directory and indexes labels and fields in memory, so labels and
annotations are encrypted too (an annotation such as kubectl's
``last-applied-configuration`` holds a full copy of a Secret's data).
Secretbox has no associated data, so :meth:`Cipher.unseal` checks the clear
fields against the decrypted copy instead: editing them, or moving a
ciphertext to another object, is refused as tampering.

**Cipher.** XSalsa20-Poly1305 (NaCl secretbox) through PyNaCl (libsodium,
about 2 MB in the process; not the ``cryptography`` package, which maps about
8 MB for good, see :mod:`minikube_py.apiserver.tls`). A fresh random 24-byte
nonce per sealing: at that size random nonces never collide in practice.
Sealing a few KB costs about 10 µs.

**Key.** 32 random bytes in ``STATE_DIR/encryption.key``, created once (mode
0600, atomically: temp file, fsync, rename, fsync of the directory) when the
store first serves an encrypted resource, and kept. A key file that is not a
regular file, is readable by group or others, or does not hold exactly 32
bytes is refused with :class:`KeyFileError` naming it. The key is never
logged; the envelope names it only by its id (8 hex digits of a SHA-256 of
it), which tells a wrong key from damaged data.

Contracts:

* :meth:`Cipher.unseal` returns the plaintext object or raises
  :class:`DecryptError`, whose message starts ``cannot decrypt <resource> in
  <STATE_DIR>:`` and says why: the key is missing, it does not match the one
  the data was encrypted with, the data is damaged, or the clear fields were
  altered. Never a silent loss and never a bare traceback: both errors are
  ``ValueError``\\ s, which the daemon and the dashboard report in one line.
* Documents that are not wrappers are plaintext objects (:func:`is_sealed`);
  the store reads both forms whatever it is configured to encrypt, so an older
  state directory opens fine and is rewritten in the configured form at the
  compaction the store runs when it opens such a directory.

Not supported: key rotation (the key id in every envelope would let a list of
keys decrypt old data, as kube-apiserver's provider list does, but there is
one key). Losing ``encryption.key`` loses the encrypted objects: back it up
with the state directory.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nacl.exceptions import CryptoError
from nacl.secret import SecretBox
from nacl.utils import random as random_bytes

from .atomicfile import write_atomically

__all__ = [
    "DEFAULT_ENCRYPTED", "KEY_FILE", "Cipher", "DecryptError", "EncryptionError",
    "KeyFileError", "is_sealed",
]

#: The resources encrypted unless the store is told otherwise.
DEFAULT_ENCRYPTED: frozenset[str] = frozenset({"secrets"})
KEY_FILE = "encryption.key"
#: The wrapper's field holding the envelope string.
SEALED_FIELD = "encrypted"
_ENVELOPE = "k8s:enc:"
_PROVIDER = "k8s:enc:secretbox:v1:"


class EncryptionError(ValueError):
    """Encrypted state cannot be used; the message says why and what to do."""


class KeyFileError(EncryptionError):
    """The key file is unusable (permissions, size, type) or cannot be created."""


class DecryptError(EncryptionError):
    """Stored encrypted objects cannot be decrypted with the key at hand."""


def is_sealed(doc: Mapping[str, Any]) -> bool:
    """Whether a document read from disk is an encryption wrapper (else plaintext).

    No Kubernetes object has a top-level ``encrypted`` string starting with the
    envelope prefix, so the test cannot mistake one for a wrapper.
    """
    value = doc.get(SEALED_FIELD)
    return isinstance(value, str) and value.startswith(_ENVELOPE)


def _key_id(key: bytes) -> str:
    return hashlib.sha256(b"minikube-py encryption key id\0" + key).hexdigest()[:8]


class Cipher:
    """Seals and unseals objects with the key of one state directory.

    The constructor reads an existing key file (raising :class:`KeyFileError`);
    :meth:`ensure_key` creates one. The caller holds the directory's lock, so
    no other process creates or replaces the key meanwhile.
    """

    __slots__ = ("_box", "_prefix", "directory", "key_id", "key_path")

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.key_path = directory / KEY_FILE
        self._box: SecretBox | None = None
        self._prefix = ""
        self.key_id = ""
        key = _read_key(self.key_path)
        if key is not None:
            self._use(key)

    def __repr__(self) -> str:  # never the key, whatever prints this object
        return f"Cipher({str(self.key_path)!r}, key_id={self.key_id!r})"

    def _use(self, key: bytes) -> None:
        self._box = SecretBox(key)
        self.key_id = _key_id(key)
        self._prefix = f"{_PROVIDER}{self.key_id}:"

    @property
    def has_key(self) -> bool:
        return self._box is not None

    def ensure_key(self) -> None:
        """Create the key file if there is none (see the module contract)."""
        if self._box is None:
            self._use(_create_key(self.key_path))

    def seal(self, raw: str, namespace: str, name: str, rv: int) -> str:
        """The wrapper document (JSON text) stored instead of ``raw``.

        ``namespace`` is the store's (empty for cluster-scoped resources).
        """
        box = self._box
        if box is None:  # the store ensures the key before serving an encrypted resource
            raise RuntimeError("Cipher.seal called before ensure_key")
        blob = base64.b64encode(box.encrypt(raw.encode())).decode("ascii")
        meta: dict[str, str] = {"namespace": namespace} if namespace else {}
        meta["name"] = name
        meta["resourceVersion"] = str(rv)
        return json.dumps({"metadata": meta, SEALED_FIELD: self._prefix + blob},
                          separators=(",", ":"))

    def unseal(self, doc: Mapping[str, Any], *, resource: str, namespaced: bool,
               source: Path) -> dict[str, Any]:
        """The plaintext object of a wrapper found in ``source``; raises DecryptError."""
        fail = f"cannot decrypt {resource} in {self.directory}"
        clear = doc.get("metadata")
        clear = clear if isinstance(clear, Mapping) else {}
        what = "/".join(str(clear[k]) for k in ("namespace", "name") if k in clear) or "?"
        envelope: str = doc[SEALED_FIELD]
        if not envelope.startswith(_PROVIDER):
            provider = ":".join(envelope.split(":")[2:4])
            raise DecryptError(f"{fail}: {source}: {what} is encrypted with {provider!r}, "
                               "which this version cannot read (it reads secretbox:v1)")
        key_id, _, blob = envelope[len(_PROVIDER):].partition(":")
        if self._box is None:
            raise DecryptError(
                f"{fail}: the encryption key {self.key_path} is missing (the data was "
                f"encrypted with key id {key_id}); restore that file from a backup of the "
                "state directory: without it these objects cannot be read")
        if key_id != self.key_id:
            raise DecryptError(
                f"{fail}: the encryption key {self.key_path} (key id {self.key_id}) does not "
                f"match the key the data was encrypted with (key id {key_id}); restore the "
                "original key file from a backup of the state directory")
        try:
            obj = json.loads(self._box.decrypt(base64.b64decode(blob, validate=True)))
        except (CryptoError, binascii.Error, ValueError) as exc:
            raise DecryptError(f"{fail}: {source}: the encrypted copy of {what} is damaged "
                               f"({exc or type(exc).__name__}); restore the file from a "
                               "backup or move it aside") from None
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        inner = ((meta.get("name"), meta.get("namespace", "") if namespaced else "",
                  meta.get("resourceVersion")) if isinstance(meta, dict) else None)
        if not isinstance(obj, dict) or inner != (
                clear.get("name"), clear.get("namespace", ""), clear.get("resourceVersion")):
            raise DecryptError(f"{fail}: {source}: the clear name, namespace or "
                               f"resourceVersion of {what} disagree with its encrypted copy: "
                               "the file was altered")
        return obj


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``, None if there is no such file; KeyFileError if unusable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeyFileError(f"cannot read the encryption key {path}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyFileError(f"the encryption key {path} is not a regular file")
        if st.st_mode & 0o077:
            raise KeyFileError(
                f"the encryption key {path} is readable by others (mode "
                f"{stat.S_IMODE(st.st_mode):04o}); it must be 0600: chmod 600 {path}")
        if st.st_size != SecretBox.KEY_SIZE:
            raise KeyFileError(
                f"the encryption key {path} holds {st.st_size} bytes, not "
                f"{SecretBox.KEY_SIZE}: it is damaged or not a minikube-py key; restore it "
                "from a backup of the state directory")
        key = os.pread(fd, SecretBox.KEY_SIZE + 1, 0)
    except OSError as exc:
        raise KeyFileError(f"cannot read the encryption key {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(key) != SecretBox.KEY_SIZE:  # changed under us since fstat
        raise KeyFileError(f"the encryption key {path} changed while it was read")
    return key


def _create_key(path: Path) -> bytes:
    """Write a new random key to ``path`` atomically and durably (mode 0600)."""
    key = random_bytes(SecretBox.KEY_SIZE)
    try:
        # Replacing is safe: the caller holds the directory lock and found no key.
        write_atomically(path, key)
    except OSError as exc:
        raise KeyFileError(f"cannot create the encryption key {path}: {exc.strerror}") from None
    return key
