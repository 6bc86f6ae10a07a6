"""A ruleset document in nft's text syntax: what :class:`~.nft.Nft` applies.

:func:`to_text` renders a document from :func:`~.rules.build_ruleset` (or
:func:`~.nft.in_place`) as an ``nft -f`` script that means the same thing;
:func:`expression` renders one expression or statement the way ``nft list``
prints it. They cover exactly the JSON the builder emits and raise ValueError
on anything else, so a new construct in the builder cannot be rendered wrongly
in silence; strings are quoted only where nft's syntax needs it (interface
names, comments), and nft's quoted strings have no escapes, so a double quote
or a line break in one is refused too (the builder never emits either).

Why text: see :mod:`.nft` (nft 1.0.6's JSON cannot declare the ``typeof``
maps the rules need). Also used for readable expectations in tests and in logs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_STATEMENTS = ("return", "reject", "drop", "accept")


def to_text(document: dict[str, Any]) -> str:
    """The ``nft -f`` script equivalent to ``document`` (one command a line)."""
    return "".join(command(c) + "\n" for c in document["nftables"])


def command(cmd: dict[str, Any]) -> str:
    """One JSON command (``{"add": {"rule": {...}}}``) as one line of nft syntax."""
    ((verb, body),) = cmd.items()
    ((kind, v),) = body.items()
    if v.get("family") != "ip":
        raise ValueError(f"not an ip-family command: {cmd}")
    if kind == "table":
        return f"{verb} table ip {v['name']}"
    head = f"{verb} {kind} ip {v['table']} {v['chain'] if kind == 'rule' else v['name']}"
    if verb in ("delete", "flush"):
        return head
    if kind == "chain":
        if "hook" not in v:
            return head
        return (f"{head} {{ type {v['type']} hook {v['hook']} priority {v['prio']}; "
                f"policy {v['policy']}; }}")
    if kind in ("map", "set"):
        parts = [_set_type(v["type"], v.get("map") if kind == "map" else None)]
        if "flags" in v:
            parts.append("flags " + ",".join(v["flags"]))
        if "timeout" in v:
            parts.append(f"timeout {v['timeout']}s")
        if "comment" in v:
            parts.append(f"comment {_quote(v['comment'])}")
        return f"{head} {{ {'; '.join(parts)}; }}"
    if kind == "rule":
        text = f"{head} {statements(v['expr'])}"
        return text + (f" comment {_quote(v['comment'])}" if "comment" in v else "")
    if kind == "element":
        return f"{head} {{ {', '.join(element(e) for e in v['elem'])} }}"
    raise ValueError(f"cannot render {kind}")


def statements(exprs: Iterable[Any]) -> str:
    """A rule's expressions and statements, space separated."""
    return " ".join(expression(e) for e in exprs)


def expression(e: Any) -> str:
    """One expression or statement as ``nft list`` prints it (``==`` left out)."""
    # Exact types, tested most frequent first (a document has tens of thousands
    # of set elements); bool is an int but never a value here.
    t = type(e)
    if t is str:
        return str(e)
    if t is int:
        return str(e)
    if t is not dict:
        raise ValueError(f"cannot render {e!r}")
    ((key, v),) = e.items()
    kind = str(key)
    if kind == "concat":
        return " . ".join(expression(x) for x in v)
    if kind == "match":
        left, right = expression(v["left"]), expression(v["right"])
        if left in ("iifname", "oifname"):
            right = _quote(right)
        # nft leaves equality implicit, except after a bitwise operation.
        if v["op"] == "in" or (v["op"] == "==" and not _is_binop(v["left"])):
            return f"{left} {right}"
        return f"{left} {v['op']} {right}"
    if kind == "payload":
        return f"{v['protocol']} {v['field']}"
    if kind == "meta":
        key = str(v["key"])
        return key if key in ("iifname", "oifname") else f"meta {key}"
    if kind == "ct":
        return f"ct {v['key']}"
    if kind == "fib":
        return f"fib {' . '.join(v['flags'])} {v['result']}"
    if kind == "prefix":
        return f"{v['addr']}/{v['len']}"
    if kind in ("&", "|", "^"):
        return f"{expression(v[0])} {kind} {v[1]:#x}"
    if kind == "numgen":
        return f"numgen {v['mode']} mod {v['mod']}" + (f" offset {v['offset']}" if v["offset"]
                                                        else "")
    if kind == "set" and isinstance(v, list):
        return "{ " + ", ".join(f"{expression(k)} : {expression(d)}" for k, d in v) + " }"
    if kind == "set":
        return f"{v['op']} {v['set']} {{ {expression(v['elem'])} }}"
    if kind == "vmap":
        return f"{expression(v['key'])} vmap {expression(v['data'])}"
    if kind in ("jump", "goto"):
        return f"{kind} {v['target']}"
    if kind in _STATEMENTS and v is None:
        return kind
    if kind == "mangle":
        return f"{expression(v['key'])} set {expression(v['value'])}"
    if kind == "map":
        return f"{expression(v['key'])} map {expression(v['data'])}"
    if kind == "dnat" and "port" in v:
        return f"dnat to {v['addr']}:{v['port']}"
    if kind == "dnat":
        return f"dnat {v['family']} to {expression(v['addr'])}"
    if kind == "masquerade":
        return " ".join(["masquerade", *v.get("flags", [])])
    raise ValueError(f"cannot render {e!r}")


def element(item: Any) -> str:
    """A set element or a map's ``key : verdict`` pair, with its options."""
    key, data = (item[0], item[1]) if type(item) is list else (item, None)
    if type(key) is dict and "elem" in key:
        opts = key["elem"]
        text = expression(opts["val"])
        if "timeout" in opts:
            text += f" timeout {opts['timeout']}s"
        if "comment" in opts:
            text += f" comment {_quote(opts['comment'])}"
    else:
        text = expression(key)
    return text if data is None else f"{text} : {expression(data)}"


def _set_type(key: Any, data: Any) -> str:
    """``type K [: V]``, or ``typeof K : V`` for ``{"typeof": expression}`` (the
    form newer nft versions read and write; 1.0.6 has it in its text syntax
    only, where a typeof key needs a typeof value too)."""
    if isinstance(key, dict):
        if not (isinstance(data, dict) or data is None):
            raise ValueError(f"a typeof key needs a typeof value, not {data!r}")
        text = f"typeof {expression(key['typeof'])}"
        return text if data is None else f"{text} : {expression(data['typeof'])}"
    text = "type " + (key if isinstance(key, str) else " . ".join(key))
    if data is None:
        return text
    return f"{text} : {data if isinstance(data, str) else ' . '.join(data)}"


def _is_binop(e: Any) -> bool:
    return isinstance(e, dict) and next(iter(e)) in ("&", "|", "^")


def _quote(s: str) -> str:
    # nft's scanner has no escapes inside quoted strings.
    if '"' in s or "\n" in s:
        raise ValueError(f"cannot quote {s!r} for nft")
    return f'"{s}"'
