"""`autodd-lsp`: start the AutoDD language server (stdio by default)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

from autodd_lsp import __version__


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="autodd-lsp",
        description="The AutoDD language server: freeze-annotation diagnostics and code actions, "
        "and 'Minimize this failure' runs streamed into the editor. Speaks LSP on stdin/stdout "
        "unless --tcp is given.",
    )
    parser.add_argument("--version", action="version", version=f"autodd-lsp {__version__}")
    parser.add_argument("--stdio", action="store_true", help="use stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead, e.g. 127.0.0.1:2087")
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log to PATH")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages (with --log-file)")
    args = parser.parse_args(argv)
    if args.tcp is not None:
        args.host, args.port = parse_address(parser, args.tcp)
    return args


def parse_address(parser: argparse.ArgumentParser, address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        parser.error(f"--tcp wants HOST:PORT, got {address!r}")
    return host.strip("[]"), int(port)


def configure_logging(args: argparse.Namespace) -> None:
    level = logging.DEBUG if args.verbose else logging.INFO
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    else:  # stderr: an editor shows it in the server's log; stdout carries the protocol
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="autodd-lsp: %(levelname)s %(message)s")


def stop_on_signals(server) -> None:
    """SIGTERM, SIGINT, SIGHUP: cancel the runs, wait for their candidates to be killed, exit.

    (pygls would otherwise wait for its stdin reader thread, which never returns.)
    """

    def handler(signum, frame):
        server.minimizer.close(timeout=5.0)
        os._exit(128 + signum)

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), handler)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging(args)
    from autodd_lsp.server.app import create_server

    server = create_server()
    stop_on_signals(server)
    if args.tcp is not None:
        server.exit_at_once = True
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0
