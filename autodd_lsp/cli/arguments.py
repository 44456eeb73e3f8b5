"""The command line, read: AutoDD's words and the program's, parsed into argparse's namespace.

The flags are derived, not listed: one per kind of failure (`autodd_lsp/kinds`:
its flag, nargs, const, help) and one per engine option that has flags
(`engine/lifecycle/options.py`: flags, types, choices, defaults and help), so a kind or an
option added there reaches the command line with no edit here. Everything after
the first `--` is the program's own arguments (`split_program_args`). The one
failure to keep is read back from the kinds' flags (`failure_to_keep`).

Reading only: nothing here runs the program, touches a file or prints;
`main.py` acts on what this returns.
"""

from __future__ import annotations

import argparse
import os
import typing

from autodd_lsp import __version__
from autodd_lsp.engine import FailureSpec, UsageError, engine_options
from autodd_lsp.kinds import KINDS, NOT_GIVEN, Kind, one_of


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autodd",
        description="Shrink a failing Python program to a small program that still fails the same way.",
        epilog="The program's own arguments go after --: autodd train.py --err-msg MSG -- --size 3",
    )
    parser.add_argument("source", metavar="SOURCE", help="the failing Python file (never modified), or a failing "
                        "pytest test in it: FILE.py::test_name, FILE.py::test_name[params], FILE.py::Class::test_name")
    keep = parser.add_argument_group(
        "the failure to keep (exactly one; without any, autodd runs SOURCE once and suggests one)")
    for kind in KINDS.values():  # one flag per kind of failure (autodd_lsp/kinds)
        keep.add_argument(kind.flag, dest=_dest(kind), **kind.flag_arguments)
    parser.add_argument("-o", "--output", metavar="OUTPUT",
                        help="where the reproducer goes, kept up to date as it shrinks "
                             "(default: SOURCE's name with .min.py, beside it)")
    # How to run and how to judge: flags, types, choices, defaults and help are the engine's (engine/lifecycle/options.py).
    for option in engine_options():
        if not option.flags:
            continue  # set another way (a pytest test: SOURCE's ::test)
        arguments = {"dest": option.field, "default": option.default, "help": option.help}
        if option.type is bool:
            arguments["action"] = "store_false" if option.negated else "store_true"
        elif typing.get_origin(option.type) is tuple:  # repeatable: --passes-with-env A=1 --passes-with-env B=2
            arguments.update(action="append", default=[], metavar=option.metavar or None)
        else:
            arguments.update({"type": option.type} if option.type is not str else {})
            arguments.update({"choices": option.choices} if option.choices else {})
            arguments.update({"metavar": option.metavar} if option.metavar else {})
        parser.add_argument(*option.flags, **arguments)
    parser.add_argument("--report", metavar="FILE.md",
                        help="also write a bug report (the reproducer, how to run it, its failure line next "
                             "to the original's, Python, package and GPU versions, the reduction's numbers); "
                             "written only when the run finishes, not when it is stopped")
    parser.add_argument("--emit-test", metavar="FILE.py",
                        help="also write a pytest regression test that runs the reproducer and fails while it "
                             "shows the message; written only when the run finishes, not when it is stopped")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors and the summary")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="without a terminal, also log each pass as it starts")
    parser.add_argument("--version", action="version", version=f"autodd {__version__}")
    return parser


def split_program_args(argv: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """AutoDD's own words, and the program's arguments: everything after the first `--`."""
    if "--" not in argv:
        return argv, ()
    at = argv.index("--")
    return argv[:at], tuple(argv[at + 1:])


def given_options(words: list[str], source: str) -> list[str]:
    """The words the user gave besides SOURCE (for the commands AutoDD suggests: they keep them all)."""
    rest = list(words)
    if source in rest:
        rest.remove(source)
    return rest


def _dest(kind: Kind) -> str:
    """Where argparse keeps a kind's flag (`--err-msg` -> `err_msg`)."""
    return kind.flag.lstrip("-").replace("-", "_")


def optional_value_before_source(argv: list[str]) -> list[str]:
    """`autodd --crash prog.py ...`: the file is SOURCE, not the value of a flag whose value is optional."""
    optional = {kind.flag: kind.flag_arguments["const"] for kind in KINDS.values() if kind.flag_arguments.get("nargs") == "?"}
    out = list(argv)
    for index, token in enumerate(out[:-1]):
        following = out[index + 1]
        if token in optional and (following.endswith((".py", ".pyw")) or os.sep in following):
            out[index] = f"{token}={optional[token]}"
    return out


def failure_to_keep(args: argparse.Namespace) -> FailureSpec | None:
    """The one failure the flags ask for; None when none is given; UsageError for two or more."""
    given = []
    for kind in KINDS.values():
        value = kind.from_flag(getattr(args, _dest(kind)))
        if value is not NOT_GIVEN:
            given.append((kind.flag, FailureSpec(kind.name, value)))
    if len(given) > 1:
        flags = " and ".join(flag for flag, _ in given)
        raise UsageError(f"give one failure to keep ({failure_flags()}), not {flags}")
    if not given:
        return None
    spec = given[0][1]
    spec.validate()
    return spec


def failure_flags() -> str:
    """Every kind's flag, as "A, B or C" (the choice a usage error names)."""
    return one_of([kind.flag for kind in KINDS.values()])
