"""``minikube-py service NAME [--url]``: where this host reaches a Service
(``minikube service``; the addresses come from :mod:`minikube_py.ops.services`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..ops.services import service_urls
from .common import client_options, connect, handles_errors, namespace, print_table


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "service", parents=[client_options()], help="print where this host reaches a Service",
        description="Print the URLs at which this host reaches a Service's ports: its "
                    "load-balancer address, its node ports on 127.0.0.1, or its cluster IP.")
    p.add_argument("name")
    p.add_argument("--url", action="store_true",
                   help="print only the URLs, one per port (as `minikube service --url`)")
    p.add_argument("--https", action="store_true", help="use https:// in the URLs")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    client = connect(args)
    ns = namespace(args, client)
    urls = service_urls(client, ns, args.name, https=args.https)
    if args.url:
        for entry in urls:
            print(entry.url)
        return 0
    print_table(["NAMESPACE", "NAME", "TARGET PORT", "URL"],
                [[ns, args.name, f"{e.port_name}/{e.target_port}" if e.port_name
                  else e.target_port, e.url] for e in urls])
    return 0
