"""How :class:`Nft` applies a ruleset document (minikube_py.network.proxy.nft),
with ``nft`` replaced by a recorder: the script it is sent (nft's text syntax),
the replacement in place that keeps affinity sets (:func:`in_place`), the
names listing it starts from, and the fall-backs to replacing the table whole.
The real kernel's side is in tests/integration/test_proxy_nft.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from minikube_py.network.proxy import (
    Endpoint,
    Nft,
    NftError,
    ProxyState,
    ServicePort,
    TableInfo,
    TableObjects,
    build_ruleset,
    in_place,
)
from minikube_py.network.proxy.rules import hashed_name
from minikube_py.network.proxy.text import command, to_text

LISTING = ["-t", "-j", "-f", "-"]


def document(*, affinity: int = 60, endpoints: int = 2) -> dict[str, Any]:
    """A table with one service port with ClientIP affinity and one without."""
    eps = tuple(Endpoint(f"10.244.0.{5 + i}", 8080) for i in range(endpoints))
    sticky = ServicePort(namespace="default", name="sticky", port_name="http", protocol="tcp",
                         cluster_ip="10.96.0.11", port=80, affinity_timeout=affinity,
                         endpoints=eps)
    web = ServicePort(namespace="default", name="web", port_name="http", protocol="tcp",
                      cluster_ip="10.96.0.10", port=80, endpoints=eps)
    return build_ruleset(ProxyState(table="mk-test", bridge="mktest", pod_cidr="10.244.0.0/20",
                                    service_cidr="10.96.0.0/16", services=(sticky, web)))


def affinity_sets(doc: dict[str, Any]) -> list[str]:
    return [c["add"]["set"]["name"] for c in doc["nftables"]
            if "set" in c.get("add", {}) and "timeout" in c["add"]["set"]]


class Recorder(Nft):
    """Answers the names listing with ``listed``; refuses scripts containing
    ``refuse``; records every script sent."""

    def __init__(self, listed: list[list[dict[str, Any]]] | None = None,
                 refuse: str | None = None, unlistable: bool = False) -> None:
        super().__init__()
        self.listed = listed or [[], [], []]
        self.refuse = refuse
        self.unlistable = unlistable
        self.scripts: list[str] = []

    def _run(self, args: list[str], stdin: str | None = None) -> str:
        if args == LISTING:
            if self.unlistable:
                raise NftError("Error: something nft 1.0.6 cannot list")
            meta = {"metainfo": {}}
            return "\n".join(json.dumps({"nftables": [meta, *items]}) for items in self.listed)
        assert args == ["-f", "-"], args
        self.scripts.append(stdin or "")
        if self.refuse and self.refuse in (stdin or ""):
            raise NftError("Error: Could not process rule: File exists")
        return ""


def test_endpoint_maps_are_sent_as_typeof_maps() -> None:
    nft = Recorder()
    nft.apply(document())
    (script,) = nft.scripts
    assert script == to_text(document())
    lines = [line for line in script.splitlines() if "endpoints-0" in line]
    assert lines == [
        "add map ip mk-test endpoints-0 { typeof numgen random mod 1 : ip daddr . th dport; "
        'comment "endpoints of up to 64 service ports"; }',
        f"add rule ip mk-test {hashed_name('service-', 'default/web/tcp/http')} meta l4proto "
        'tcp dnat ip to numgen random mod 2 map @endpoints-0 comment "default/web:http"',
        "add element ip mk-test endpoints-0 { 0 : 10.244.0.5 . 8080, 1 : 10.244.0.6 . 8080 }"]


def test_in_place_keeps_only_the_affinity_sets_the_new_document_declares() -> None:
    doc = document(endpoints=2)
    keep, new = affinity_sets(doc)
    chains = {c["add"]["chain"]["name"] for c in doc["nftables"] if "chain" in c.get("add", {})}
    existing = TableObjects(
        chains=frozenset({*sorted(chains)[:3], "endpoint-OLD-gone", "stray"}),
        sets=frozenset({"cluster-ips", "hairpin", keep, "affinity-OLD-gone", "stray-set"}),
        maps=frozenset({"service-ips", "endpoints-0", "endpoints-7"}))
    out = in_place(doc, existing)["nftables"]
    assert [command(c) for c in out[:11]] == [
        "add table ip mk-test",
        "flush table ip mk-test",
        # Maps before chains: their elements may name chains, which must be unused.
        "delete map ip mk-test endpoints-0",
        "delete map ip mk-test endpoints-7",
        "delete map ip mk-test service-ips",
        "delete set ip mk-test affinity-OLD-gone",
        "delete set ip mk-test cluster-ips",
        "delete set ip mk-test hairpin",
        "delete set ip mk-test stray-set",
        "delete chain ip mk-test endpoint-OLD-gone",
        "delete chain ip mk-test stray"]
    # Then the document, without its table commands and the kept set's declaration.
    assert out[11:] == [c for c in doc["nftables"]
                        if "table" not in next(iter(c.values()))
                        and c.get("add", {}).get("set", {}).get("name") != keep]
    assert affinity_sets({"nftables": out}) == [new]


def test_in_place_of_an_empty_listing_only_flushes() -> None:
    doc = document()
    out = in_place(doc, TableObjects())["nftables"]
    assert [command(c) for c in out[:2]] == ["add table ip mk-test", "flush table ip mk-test"]
    assert out[2:] == doc["nftables"][3:]


def test_a_changed_affinity_timeout_is_a_new_set() -> None:
    old, new = document(affinity=60), document(affinity=61)
    existing = TableObjects(sets=frozenset(affinity_sets(old)))
    out = in_place(new, existing)["nftables"]
    deleted = {c["delete"]["set"]["name"] for c in out if "set" in c.get("delete", {})}
    assert deleted == set(affinity_sets(old))
    assert affinity_sets({"nftables": out}) == affinity_sets(new)


def test_table_objects_reads_one_listing_of_names() -> None:
    nft = Recorder(listed=[
        [{"chain": {"table": "mk-test", "name": "services"}},
         {"chain": {"table": "nat", "name": "POSTROUTING"}}],
        [{"set": {"table": "mk-test", "name": "hairpin"}}],
        [{"map": {"table": "mk-test", "name": "service-ips"}}]])
    assert nft.table_objects("mk-test") == TableObjects(
        chains=frozenset({"services"}), sets=frozenset({"hairpin"}),
        maps=frozenset({"service-ips"}))
    assert nft.table_objects("absent") is None


def test_apply_replaces_an_existing_table_in_place() -> None:
    doc = document()
    nft = Recorder(listed=[[{"chain": {"table": "mk-test", "name": "services"}}], [], []])
    nft.apply(doc)
    assert nft.scripts == [to_text(in_place(doc, TableObjects(chains=frozenset({"services"}))))]


@pytest.mark.parametrize("how", ["refused in place", "unlistable"])
def test_apply_falls_back_to_replacing_the_table_whole(how: str) -> None:
    doc = document()
    listed = [[{"chain": {"table": "mk-test", "name": "services"}}], [], []]
    nft = Recorder(listed=listed, refuse="flush table" if how == "refused in place" else None,
                   unlistable=how == "unlistable")
    nft.apply(doc)
    assert nft.scripts[-1] == to_text(doc)
    assert len(nft.scripts) == (2 if how == "refused in place" else 1)


def test_a_refused_document_raises_after_both_tries() -> None:
    nft = Recorder(listed=[[{"chain": {"table": "mk-test", "name": "services"}}], [], []],
                   refuse="add table")
    with pytest.raises(NftError):
        nft.apply(document())
    assert len(nft.scripts) == 2


def test_list_tables_joins_an_owner_comment_cut_over_several_rules() -> None:
    class Listed(Nft):
        def _run(self, args: list[str], stdin: str | None = None) -> str:
            if args == ["-j", "list", "tables", "ip"]:
                return json.dumps({"nftables": [{"table": {"name": "minikube-py-a"}},
                                                {"table": {"name": "nat"}}]})
            assert args == ["-j", "list", "chain", "ip", "minikube-py-a", "cluster-info"]
            return json.dumps({"nftables": [
                {"chain": {"name": "cluster-info"}},
                {"rule": {"comment": "/var/lib/long"}}, {"rule": {"comment": "-state-dir"}}]})

    assert Listed().list_tables("minikube-py") == [TableInfo("minikube-py-a",
                                                             "/var/lib/long-state-dir")]
