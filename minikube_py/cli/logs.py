"""``minikube-py logs POD [-c C] [-f] [--tail N] [-p] [--timestamps]``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import client_options, connect, handles_errors, namespace


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "logs", parents=[client_options()], help="print a container's logs",
        description="Print the logs of a container in a pod.")
    p.add_argument("pod", help="pod name (or pod/NAME)")
    p.add_argument("-c", "--container", default=None)
    p.add_argument("-f", "--follow", action="store_true", help="stream new output")
    p.add_argument("--tail", type=int, default=None, help="only the last N lines")
    p.add_argument("-p", "--previous", action="store_true",
                   help="the previous, terminated instance of the container")
    p.add_argument("--timestamps", action="store_true")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    client = connect(args)
    name = args.pod.split("/", 1)[1] if args.pod.startswith(("pod/", "pods/", "po/")) else \
        args.pod
    out = sys.stdout.buffer
    for chunk in client.logs(namespace(args, client), name, container=args.container,
                             follow=args.follow, previous=args.previous,
                             tail_lines=args.tail, timestamps=args.timestamps):
        out.write(chunk)
        out.flush()
    return 0
