"""A ruleset document in nft's text syntax, for people and for comparison.

:func:`to_text` renders a document from :func:`~.rules.build_ruleset` as an
``nft -f`` script that means the same thing (the benchmark applies both and
compares the kernel's listings); :func:`expression` renders one expression or
statement the way ``nft list`` prints it. They cover exactly the JSON the
builder emits and raise ValueError on anything else, so a new construct in the
builder cannot be rendered wrongly in silence.

Uses: logs and debugging (the text is what ``nft list table`` shows), readable
expectations in tests, and the benchmark's JSON-versus-text measurement. The
applier itself speaks JSON (see :mod:`.nft` for why).
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
    if kind == "chain":
        if "hook" not in v:
            return head
        return (f"{head} {{ type {v['type']} hook {v['hook']} priority {v['prio']}; "
                f"policy {v['policy']}; }}")
    if kind in ("map", "set"):
        key = v["type"] if isinstance(v["type"], str) else " . ".join(v["type"])
        parts = [f"type {key}" + (f" : {v['map']}" if kind == "map" else "")]
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
    if isinstance(e, bool) or not isinstance(e, dict | str | int):
        raise ValueError(f"cannot render {e!r}")
    if not isinstance(e, dict):
        return str(e)
    ((key, v),) = e.items()
    kind = str(key)
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
    if kind == "concat":
        return " . ".join(expression(x) for x in v)
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
    if kind == "dnat":
        return f"dnat to {v['addr']}:{v['port']}"
    if kind == "masquerade":
        return " ".join(["masquerade", *v.get("flags", [])])
    raise ValueError(f"cannot render {e!r}")


def element(item: Any) -> str:
    """A set element or a map's ``key : verdict`` pair, with its options."""
    key, data = (item[0], item[1]) if isinstance(item, list) else (item, None)
    if isinstance(key, dict) and "elem" in key:
        opts = key["elem"]
        text = expression(opts["val"])
        if "timeout" in opts:
            text += f" timeout {opts['timeout']}s"
        if "comment" in opts:
            text += f" comment {_quote(opts['comment'])}"
    else:
        text = expression(key)
    return text if data is None else f"{text} : {expression(data)}"


def _is_binop(e: Any) -> bool:
    return isinstance(e, dict) and next(iter(e)) in ("&", "|", "^")


def _quote(s: str) -> str:
    # nft's scanner has no escapes inside quoted strings.
    if '"' in s or "\n" in s:
        raise ValueError(f"cannot quote {s!r} for nft")
    return f'"{s}"'
