"""``minikube-py create KIND NAME --from-...``, as ``kubectl create configmap``:
one subcommand per generator of :mod:`minikube_py.ops.create`; prints
``configmap/NAME created``."""

from __future__ import annotations

import argparse
from typing import Any

from ..api import kinds
from ..ops.create import GENERATORS, Generator, Sources, create
from .common import client_options, connect, handles_errors, namespace, resource_ref


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "create", help="create an object from command-line sources",
        description="Create an object from literals and files (as kubectl create).")
    kinds_parser = p.add_subparsers(dest="generator", metavar="KIND", required=True)
    for gen in GENERATORS:
        sub = kinds_parser.add_parser(gen.name, aliases=list(gen.aliases),
                                      parents=[client_options()], help=gen.help,
                                      description=gen.help[:1].upper() + gen.help[1:] + ".")
        sub.add_argument("name")
        sub.add_argument("--from-literal", action="append", default=[], metavar="KEY=VALUE",
                         help="a key and its value (repeatable)")
        sub.add_argument("--from-file", action="append", default=[], metavar="[KEY=]PATH",
                         help="a file (its name is the key unless given) or a directory "
                              "of files (repeatable)")
        sub.set_defaults(func=_runner(gen))


def _runner(gen: Generator) -> Any:
    @handles_errors
    def run(args: argparse.Namespace) -> int:
        client = connect(args)
        ns = namespace(args, client)
        created = create(client, gen, args.name, ns,
                         Sources(args.from_literal, args.from_file))
        info = kinds.for_object(created)
        print(f"{resource_ref(info, created['metadata']['name'])} created")
        return 0
    return run
