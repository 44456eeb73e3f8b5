"""Build the `argparse_large` case: the stdlib argparse source plus a failing driver.

The case is generated, never committed, because its bulk is the interpreter's
own argparse.py (~2,600 lines on Python 3.11). The driver defines a CLI with a
subcommand and parses a fixed argv with an invalid choice; argparse reports it
through ArgumentParser.error, which prints to stderr and calls sys.exit(2):

    deploy push: error: argument --target: invalid choice: 'qa' ...

The prefix "deploy push: error: argument --target" is assembled at run time
from the subparser's prog, the action's option string and the error template,
so no single literal in the file contains it and a reduction must keep the
real argparse machinery that produces it.

Usage: python build_argparse_case.py FOLDER   (writes FOLDER/argparse_case.py)
"""

import argparse
import inspect
import sys
from pathlib import Path

# Not "argparse.py": that name would shadow the stdlib module for anything the
# program (or a candidate) imports from the same folder.
CASE_FILENAME = "argparse_case.py"
ERR_MSG = "deploy push: error: argument --target: invalid choice: 'qa'"

DRIVER = '''

# ---------------------------------------------------------------------------
# Benchmark driver (appended by benchmarks/corpus/build_argparse_case.py)
# ---------------------------------------------------------------------------

def build_cli():
    parser = ArgumentParser(prog="deploy", description="Roll out a service build.")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("--config", metavar="PATH", default="deploy.toml")
    commands = parser.add_subparsers(dest="command", required=True)

    push = commands.add_parser("push", help="push a build to an environment")
    push.add_argument("build_id")
    push.add_argument("--target", choices=["staging", "prod"], required=True)
    push.add_argument("--replicas", type=int, default=2)
    push.add_argument("--dry-run", action="store_true")

    rollback = commands.add_parser("rollback", help="restore the previous build")
    rollback.add_argument("--target", choices=["staging", "prod"], required=True)
    return parser


build_cli().parse_args(["-v", "push", "build-4711", "--target", "qa", "--replicas", "3"])
'''


def build_source():
    return inspect.getsource(argparse).rstrip("\n") + "\n" + DRIVER


def write_case(folder):
    """Write the case into `folder` and return its path."""
    path = Path(folder) / CASE_FILENAME
    path.write_text(build_source())
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("Usage: ")[1])
    print(write_case(sys.argv[1]))
