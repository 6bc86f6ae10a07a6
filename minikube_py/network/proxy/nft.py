"""The applier: runs ``nft`` to put a ruleset document into the kernel.

Every change is one ``nft -j -f -`` process reading one JSON document, which nft
sends as one netlink batch: the kernel commits all of it or none of it, so a
failed :meth:`Nft.apply` leaves the previous ruleset in place and raises
:class:`NftError` with nft's own message.

Format: libnftables JSON. ``bench/proxy_sync_bench.py`` applies the same
1,000-service x 10-endpoint table (11,214 chains, 23,420 rules) both ways and
checks that both leave the same table in the kernel: JSON (encoding + ``nft -j``)
took 1.1-1.5x as long as the text syntax (rendering + ``nft -f``) over several
runs on nft 1.0.6 (e.g. 2.2 s against 1.9 s), most of either being the
kernel's work. Under the 2x that would justify a second syntax; JSON keeps the
document a plain data structure that tests compare and that no quoting can
break. Two gaps in nft
1.0.6's JSON, and how they are met: table comments are ignored (the owner
marker is a rule comment in :data:`~.rules.INFO_CHAIN`), and the ``dynamic``
set flag is refused (the kernel adds it by itself to a set a rule updates).

ClientIP affinity survives a sync: replacing the table would empty the
per-endpoint affinity sets, so :meth:`Nft.apply` first reads the current
elements of the sets the new document declares with a timeout and re-adds them,
in the same transaction, with their remaining lifetime. A client first seen
between that read and the commit (the time nft takes: milliseconds for a small
cluster, ~2 s at 10,000 endpoints) may be balanced afresh once.

``netns`` runs every command inside a named network namespace
(``ip netns exec``): tests and benchmarks use it; the daemon does not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minikube_py.network.proxy.model import Endpoint, ServicePort
from minikube_py.network.proxy.rules import INFO_CHAIN, ProxyState, build_ruleset

#: A Linux interface name (IFNAMSIZ - 1 bytes; no slash, colon or whitespace).
_IFNAME = re.compile(r"^[A-Za-z0-9_.@+-]{1,15}$")
_CAP_NET_ADMIN = 12

#: The probe :meth:`Nft.available` checks: a table using every kind of expression
#: the rules use, so a kernel lacking one of the modules says so up front.
_PROBE_TABLE = "minikube-py-probe"


class NftError(RuntimeError):
    """nft refused a command; the message is nft's stderr."""


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
        self._run(["-c", "-j", "-f", "-"], json.dumps(document, separators=(",", ":")))

    # -- changes -----------------------------------------------------------------

    def apply(self, document: dict[str, Any]) -> None:
        """Commit ``document`` as one transaction (see the module docstring)."""
        commands = document["nftables"]
        carried = self._affinity_carry_over(commands)
        if carried:
            document = {"nftables": [*commands, *carried]}
        self._run(["-j", "-f", "-"], json.dumps(document, separators=(",", ":")))

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

    def _owner_comment(self, table: str) -> str:
        try:
            items = self._json(["list", "chain", "ip", table, INFO_CHAIN])
        except NftError:
            return ""  # not one of ours, or made by something else with our prefix
        for item in items:
            rule = item.get("rule")
            if rule:
                return str(rule.get("comment", ""))
        return ""

    def _affinity_carry_over(self, commands: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """``add element`` commands restoring the live entries of affinity sets."""
        # The affinity sets are the document's only sets with a timeout.
        wanted = set()
        for cmd in commands:
            body = cmd.get("add", {}).get("set")
            if body and "timeout" in body:
                wanted.add((str(body["table"]), str(body["name"])))
        if not wanted:
            return []
        out = []
        for table in sorted({t for t, _ in wanted}):
            try:
                listed = self._json(["list", "sets", "table", "ip", table])
            except NftError:
                continue  # first sync: no table yet
            for item in listed:
                body = item.get("set")
                if not body or (table, body.get("name")) not in wanted:
                    continue
                elems = []
                for elem in body.get("elem", []):
                    inner = elem.get("elem") if isinstance(elem, dict) else None
                    # Entries the kernel added carry their expiry; one with less
                    # than a second left is not worth carrying over.
                    if inner is None:
                        continue
                    remaining = int(inner.get("expires", 0))
                    if remaining >= 1:
                        elems.append({"elem": {"val": inner["val"], "timeout": remaining}})
                if elems:
                    out.append({"add": {"element": {"family": "ip", "table": table,
                                                    "name": body["name"], "elem": elems}}})
        return out

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
    """A check-mode table that needs nat, fib, numgen, reject, ct and dynset."""
    sp = ServicePort(namespace="probe", name="probe", port_name="p", protocol="tcp",
                     cluster_ip="10.255.255.1", port=80, node_port=30000,
                     affinity_timeout=10, endpoints=(Endpoint("10.255.0.2", 80),))
    empty = ServicePort(namespace="probe", name="empty", port_name="", protocol="udp",
                        cluster_ip="10.255.255.2", port=53)
    return build_ruleset(ProxyState(table=_PROBE_TABLE, bridge="probe0",
                                    pod_cidr="10.255.0.0/24", service_cidr="10.255.255.0/24",
                                    services=(sp, empty)))
