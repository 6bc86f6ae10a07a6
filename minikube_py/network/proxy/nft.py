"""The applier: runs ``nft`` to put a ruleset document into the kernel.

Every change is one ``nft -f -`` process reading one script, which nft sends as
one netlink batch: the kernel commits all of it or none of it, so a failed
:meth:`Nft.apply` leaves the previous ruleset in place and raises
:class:`NftError` with nft's own message. (Replacing a table also reads its
object names first, in one more ``nft`` run; see below.)

Format: documents are libnftables JSON data (what tests compare), rendered by
:mod:`.text` into nft's text syntax for ``nft -f``. The text syntax, because
nft 1.0.6's JSON parser cannot declare the ``typeof numgen ...`` maps the
rules pick endpoints with (see :mod:`.rules`; newer nft versions can, and the
documents spell those maps as they do); it also parses a little faster. The
renderer refuses what it cannot quote (ValueError), and the builder never
produces it. Two further gaps in nft 1.0.6's JSON, kept in mind for readers:
table comments are ignored (the owner marker is in rule comments of
:data:`~.rules.INFO_CHAIN`, where versions applying JSON put it too), and the
``dynamic`` set flag is refused (the kernel adds it by itself to a set a rule
updates, which is also why kept sets are not declared again: nft would see a
different set).

Replacing in place, so ClientIP affinity survives a sync: the document deletes
and re-creates its table, which would empty the per-endpoint affinity sets.
When the table exists, :meth:`Nft.apply` first lists the names of its chains,
sets and maps (one short ``nft`` run: names only, no rules or elements) and
sends :func:`in_place` of the document instead, still one transaction: every
rule flushed, every map and set deleted except the affinity sets the new
document declares too, the chains the new document lacks deleted, then the
document's own commands, minus the table and the declarations of the sets
kept. The kept sets keep their entries with their remaining lifetimes, and
nothing else is left of the old table (chains that stay are re-added empty,
which nft accepts as a no-op). Should the in-place transaction be refused (the
table changed between the listing and the commit; an object of the same name
but another kind or hook), the document is applied as built, which drops the
affinity entries once.

``netns`` runs every command inside a named network namespace
(``ip netns exec``): tests and benchmarks use it; the daemon does not.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minikube_py.network.proxy.model import Endpoint, ServicePort
from minikube_py.network.proxy.rules import INFO_CHAIN, ProxyState, build_ruleset
from minikube_py.network.proxy.text import to_text

#: A Linux interface name (IFNAMSIZ - 1 bytes; no slash, colon or whitespace).
_IFNAME = re.compile(r"^[A-Za-z0-9_.@+-]{1,15}$")
_CAP_NET_ADMIN = 12

log = logging.getLogger(__name__)

#: The probe :meth:`Nft.available` checks: a table using every kind of expression
#: the rules use, so a kernel lacking one of the modules says so up front.
_PROBE_TABLE = "minikube-py-probe"


class NftError(RuntimeError):
    """nft refused a command; the message is nft's stderr."""


@dataclass(frozen=True, slots=True)
class TableObjects:
    """The names of one table's chains, sets and maps (see :func:`in_place`)."""

    chains: frozenset[str] = frozenset()
    sets: frozenset[str] = frozenset()
    maps: frozenset[str] = frozenset()


def in_place(document: dict[str, Any], existing: TableObjects) -> dict[str, Any]:
    """``document`` as a replacement of a table holding ``existing`` that keeps the
    table's affinity sets (those the document declares with a timeout) and their
    entries. Deterministic: deletions in name order.
    """
    commands = document["nftables"]
    table = next(c["add"]["table"] for c in commands if "table" in c.get("add", {}))
    name = table["name"]
    chains, affinity = set(), set()
    for cmd in commands:
        body = cmd.get("add", {})
        if "chain" in body:
            chains.add(body["chain"]["name"])
        elif "set" in body and "timeout" in body["set"]:
            affinity.add(body["set"]["name"])
    kept = existing.sets & affinity

    def named(verb: str, kind: str, what: str) -> dict[str, Any]:
        return {verb: {kind: {"family": "ip", "table": name, "name": what}}}

    out: list[dict[str, Any]] = [{"add": {"table": table}}, {"flush": {"table": table}}]
    # Maps first: their elements may name chains, which must be unused to go.
    out += [named("delete", "map", m) for m in sorted(existing.maps)]
    out += [named("delete", "set", s) for s in sorted(existing.sets - kept)]
    out += [named("delete", "chain", c) for c in sorted(existing.chains - chains)]
    for cmd in commands:
        ((_, body),) = cmd.items()
        if "table" in body or ("set" in body and body["set"]["name"] in kept):
            continue
        out.append(cmd)
    return {"nftables": out}


def _json_documents(text: str) -> Iterator[dict[str, Any]]:
    """The JSON documents of ``text`` (``nft -j`` prints one per list command)."""
    decoder = json.JSONDecoder()
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return
        document, pos = decoder.raw_decode(text, pos)
        yield document


@dataclass(frozen=True, slots=True)
class TableInfo:
    """One ``ip`` table: its name and owner comment ("" when it has none)."""

    name: str
    comment: str


class Nft:
    """Runs ``nft`` (optionally inside network namespace ``netns``)."""

    def __init__(self, *, binary: str = "nft", netns: str | None = None,
                 timeout: float = 120.0) -> None:
        self.binary = binary
        self.netns = netns
        self.timeout = timeout

    # -- checks ------------------------------------------------------------------

    def available(self) -> str | None:
        """None when rules can be applied here; else why not, in one line."""
        path = shutil.which(self.binary)
        if path is None:
            return f"{self.binary} not found (install the nftables package)"
        if not _has_net_admin():
            return "not root and no CAP_NET_ADMIN: cannot change nftables rules"
        try:
            self.check(_probe_document())
        except NftError as exc:
            first = str(exc).strip().splitlines()
            return "the kernel refuses nf_tables rules: " + (first[0] if first else "nft failed")
        return None

    def check(self, document: dict[str, Any]) -> None:
        """Let the kernel validate ``document`` without committing it (``nft -c``)."""
        self._run(["-c", "-f", "-"], to_text(document))

    # -- changes -----------------------------------------------------------------

    def apply(self, document: dict[str, Any]) -> None:
        """Commit ``document`` as one transaction (see the module docstring)."""
        tables = {c["add"]["table"]["name"] for c in document["nftables"]
                  if "table" in c.get("add", {})}
        existing = None
        if len(tables) == 1:
            try:
                existing = self.table_objects(*tables)
            except (NftError, ValueError) as exc:  # unlistable: replace the table whole
                log.info("cannot list table %s: %s", *tables, _first_line(exc))
        if existing is not None:
            try:
                self._run(["-f", "-"], to_text(in_place(document, existing)))
                return
            except NftError as exc:
                log.info("replacing table %s in place was refused, replacing it whole: %s",
                         *tables, _first_line(exc))
        self._run(["-f", "-"], to_text(document))

    def delete_table(self, name: str) -> None:
        """Remove table ``ip name`` and everything in it; no error if it is absent."""
        table = {"family": "ip", "name": name}
        self._run(["-j", "-f", "-"], json.dumps(
            {"nftables": [{"add": {"table": table}}, {"delete": {"table": table}}]}))

    # -- reading -----------------------------------------------------------------

    def list_tables(self, prefix: str = "") -> list[TableInfo]:
        """The ``ip`` tables whose name starts with ``prefix``, with owner comments."""
        out = []
        for item in self._json(["list", "tables", "ip"]):
            table = item.get("table")
            if table and table.get("name", "").startswith(prefix):
                out.append(TableInfo(table["name"], self._owner_comment(table["name"])))
        return sorted(out, key=lambda t: t.name)

    def listing(self, table: str) -> list[str]:
        """``ip table`` as the kernel holds it, comparable: one JSON line per
        object, sorted, without handles, elements sorted, affinity sets without
        their entries (clients come and go). Equal listings, equal tables: tests
        and the benchmark compare a table replaced in place with a fresh one."""
        out = []
        for item in self._json(["list", "table", "ip", table]):
            for kind, body in item.items():
                if kind == "metainfo":
                    continue
                body.pop("handle", None)
                if kind == "set" and body["name"].startswith("affinity-"):
                    body.pop("elem", None)
                if isinstance(body.get("elem"), list):
                    body["elem"] = sorted(body["elem"], key=json.dumps)
                out.append(json.dumps({kind: body}, sort_keys=True))
        return sorted(out)

    def _owner_comment(self, table: str) -> str:
        try:
            items = self._json(["list", "chain", "ip", table, INFO_CHAIN])
        except NftError:
            return ""  # not one of ours, or made by something else with our prefix
        # Cut over several rules when long (see rules.owner_comment_parts).
        return "".join(str(item["rule"].get("comment", "")) for item in items if "rule" in item)

    def table_objects(self, table: str) -> TableObjects | None:
        """The names of the chains, sets and maps of ``ip table``; None if it has none.

        One ``nft`` run listing names only (``-t``: no elements): its cost grows
        with the number of objects of the host's ``ip`` tables, not with their
        rules or elements.
        """
        listing = {"nftables": [{"list": {kind: {"family": "ip"}}}
                                for kind in ("chains", "sets", "maps")]}
        found: dict[str, set[str]] = {"chain": set(), "set": set(), "map": set()}
        for document in _json_documents(self._run(["-t", "-j", "-f", "-"],
                                                  json.dumps(listing))):
            for item in document.get("nftables", []):
                for kind, body in item.items():
                    if kind in found and body.get("table") == table:
                        found[kind].add(str(body["name"]))
        if not any(found.values()):
            return None
        return TableObjects(chains=frozenset(found["chain"]), sets=frozenset(found["set"]),
                            maps=frozenset(found["map"]))

    # -- sysctl ------------------------------------------------------------------

    def set_route_localnet(self, interface: str) -> bool:
        """Set ``net.ipv4.conf.<interface>.route_localnet=1``; False if no such interface.

        Needed on the cluster's bridge only, for NodePorts and LoadBalancer IPs on
        127.0.0.1: the DNATed packet leaves through the bridge with source
        127.0.0.1 (until masquerade rewrites it), which the kernel otherwise
        drops as a martian. Never touches ``all`` or ``default``.
        """
        if not _IFNAME.match(interface) or interface in (".", "..", "all", "default"):
            raise ValueError(f"not an interface name: {interface!r}")
        path = f"/proc/sys/net/ipv4/conf/{interface}/route_localnet"
        if self.netns is None:
            try:
                Path(path).write_text("1\n")
            except FileNotFoundError:
                return False
            return True
        # The file is per network namespace: write it from a process inside.
        result = subprocess.run(
            ["ip", "netns", "exec", self.netns, "sh", "-c",
             'test -e "$0" || exit 3; echo 1 > "$0"', path],
            capture_output=True, text=True, timeout=self.timeout, check=False)
        if result.returncode == 3:
            return False
        if result.returncode != 0:
            raise OSError(result.stderr.strip() or f"cannot write {path}")
        return True

    # -- plumbing ----------------------------------------------------------------

    def _argv(self, args: list[str]) -> list[str]:
        prefix = ["ip", "netns", "exec", self.netns] if self.netns else []
        return [*prefix, self.binary, *args]

    def _run(self, args: list[str], stdin: str | None = None) -> str:
        try:
            result = subprocess.run(self._argv(args), input=stdin, capture_output=True,
                                    text=True, timeout=self.timeout, check=False)
        except FileNotFoundError as exc:
            raise NftError(f"{self.binary}: {exc}") from exc
        except subprocess.TimeoutExpired as exc:
            raise NftError(f"nft did not finish in {self.timeout:g} s") from exc
        if result.returncode != 0:
            raise NftError(result.stderr.strip() or f"nft exited with {result.returncode}")
        return result.stdout

    def _json(self, args: list[str]) -> list[dict[str, Any]]:
        text = self._run(["-j", *args])
        if not text.strip():
            return []
        items: list[dict[str, Any]] = json.loads(text).get("nftables", [])
        return items


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _has_net_admin() -> bool:
    if os.geteuid() == 0:
        return True
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_NET_ADMIN & 1)
    except OSError:
        pass
    return False


def _probe_document() -> dict[str, Any]:
    """A check-mode table that needs nat, fib, numgen (with a typeof map), reject,
    ct and dynset."""
    sp = ServicePort(namespace="probe", name="probe", port_name="p", protocol="tcp",
                     cluster_ip="10.255.255.1", port=80, node_port=30000,
                     affinity_timeout=10, endpoints=(Endpoint("10.255.0.2", 80),))
    two = ServicePort(namespace="probe", name="two", port_name="p", protocol="udp",
                      cluster_ip="10.255.255.3", port=53,
                      endpoints=(Endpoint("10.255.0.2", 53), Endpoint("10.255.0.3", 53)))
    empty = ServicePort(namespace="probe", name="empty", port_name="", protocol="udp",
                        cluster_ip="10.255.255.2", port=53)
    return build_ruleset(ProxyState(table=_PROBE_TABLE, bridge="probe0",
                                    pod_cidr="10.255.0.0/24", service_cidr="10.255.255.0/24",
                                    services=(sp, two, empty)))
