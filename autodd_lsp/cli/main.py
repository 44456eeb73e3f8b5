"""`autodd SOURCE (--err-msg MSG | --err-regex REGEX | --crash [SIGNAL] | --exit-code N | --hang)
-o OUTPUT [--backend {runner,subproc,ray}] [--timeout SEC] [-j N] [--gpus IDS] [--ray-address ADDRESS]
[--match {same,substring}]
[--repeat N] [--keep-imports] [--report FILE.md] [--emit-test FILE.py]`

Exactly one failure to keep is given (see `autodd_lsp.engine.failure_spec`);
without any, SOURCE is run once and the command prints the ones it could use;
without -o the result goes beside SOURCE as <stem>.min.py.
--report and --emit-test (see `autodd_lsp.report`) are written once the run has
finished, not when it was stopped; their paths are checked before anything runs.

Exit status: 0 done (the result re-ran and still fails the same way), 1 the
original does not show the failure, 2 bad input, 3 the result did not reproduce
on its final re-run, 130 interrupted (the best result so far is in OUTPUT).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time

from autodd_lsp import __version__
from autodd_lsp.cli.terminal import TerminalReporter
from autodd_lsp.engine import (
    Accepted,
    Event,
    FailureSpec,
    NotReproducible,
    Progress,
    ReduceOptions,
    Reduction,
    RunOptions,
    Summary,
    UsageError,
    ask_failure,
    engine_options,
    output_tail,
    split_source,
)
from autodd_lsp.files import (
    atomic_write,
    beside_output_path,
    read_python_source,
    writable_problem,
)
from autodd_lsp.kinds import KINDS, NOT_GIVEN, Kind, one_of
from autodd_lsp.report import bug_report, regression_test
from autodd_lsp.shell import shell_command

EXIT_NOT_REPRODUCIBLE = 1
EXIT_USAGE = 2
EXIT_UNVERIFIED = 3
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autodd",
        description="Shrink a failing Python program to a small program that still fails the same way.",
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
    # How to run and how to judge: flags, types, choices, defaults and help are the engine's (engine/options.py).
    for option in engine_options():
        if not option.flags:
            continue  # set another way (a pytest test: SOURCE's ::test)
        arguments = {"dest": option.field, "default": option.default, "help": option.help}
        if option.type is bool:
            arguments["action"] = "store_false" if option.negated else "store_true"
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_optional_value_before_source(sys.argv[1:] if argv is None else list(argv)))
    try:
        args.source, args.test = split_source(args.source)  # a pytest node id: FILE.py::test
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if args.output is None:
        args.output = beside_output_path(args.source)
    try:
        failure = failure_to_keep(args)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if failure is None:
        return _suggest_messages(args)
    reporter = TerminalReporter(quiet=args.quiet, verbose=args.verbose)
    writer = _ResultWriter(args.output)
    try:
        text, options = _prepare(args, failure)
        reduction = Reduction(text, args.source, options, _fan_out(reporter, writer))
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    writer.on_error = reduction.cancel
    output = args.output
    try:
        summary = _run_interruptibly(reduction)
    except NotReproducible as error:
        reporter.close()
        tail = f"\n--- last lines it printed ---\n{error.output_tail}" if error.output_tail else ""
        return _fail(f"{error}; nothing to reduce{tail}", EXIT_NOT_REPRODUCIBLE)
    except UsageError as error:  # found only once running (e.g. the Ray cluster cannot be reached)
        reporter.close()
        return _fail(str(error), EXIT_USAGE)
    finally:
        reporter.close()
    writer.write(summary.text)
    if writer.error is not None:
        return _fail(f"cannot write {output}: {writer.error.strerror or writer.error}", EXIT_USAGE)
    print(summary.describe(), file=sys.stderr)
    print(f"autodd: wrote {output}", file=sys.stderr)
    extras = [path for path in (args.report, args.emit_test) if path]
    if summary.cancelled:
        if extras:
            print(f"autodd: note: stopped early: {' and '.join(extras)} not written", file=sys.stderr)
        return EXIT_INTERRUPTED
    code = _write_extras(args, summary, options)
    if code:
        return code
    if not summary.verified:
        if summary.final_rate is not None and summary.final_rate.runs > 1:
            return _fail(f"the result did not show the failure in any of its {summary.final_rate.runs} re-runs",
                         EXIT_UNVERIFIED)
        return _fail("the result did not show the failure when re-run (is the failure flaky?)", EXIT_UNVERIFIED)
    return 0


def _dest(kind: Kind) -> str:
    """Where argparse keeps a kind's flag (`--err-msg` -> `err_msg`)."""
    return kind.flag.lstrip("-").replace("-", "_")


def _optional_value_before_source(argv: list[str]) -> list[str]:
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
        raise UsageError(f"give one failure to keep ({_flags()}), not {flags}")
    if not given:
        return None
    spec = given[0][1]
    spec.validate()
    return spec


def _flags() -> str:
    return one_of([kind.flag for kind in KINDS.values()])


def _suggest_messages(args: argparse.Namespace) -> int:
    """No failure given: run SOURCE once (the user asked to reduce it) and offer its failure."""
    try:
        _read_source(args.source)
        options = RunOptions(timeout=args.timeout, python=args.python, test=args.test, gpus=args.gpus)
        options.validate()
        question = ask_failure(args.source, options)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if question.not_run is not None:  # a test that passes, is not found or does not collect
        return _fail(question.not_run, EXIT_NOT_REPRODUCIBLE)
    if not question.choices:
        tail = output_tail(question.run.output, max_lines=10)
        shown = f"; it printed:\n{tail}" if tail else " and printed nothing"
        return _fail(f"a failure to keep is required ({_flags()}): "
                     f"{args.source} ran without a recognisable failure{shown}", EXIT_USAGE)
    source = f"{args.source}::{args.test}" if args.test else args.source
    print(f"autodd: no failure to keep given; {source} fails with:", file=sys.stderr)
    for choice in question.choices:
        print(f"  autodd {shell_command([source, *choice.spec.command_line()])}", file=sys.stderr)
    print("autodd: pick one (a shorter message survives more changes) and run it.", file=sys.stderr)
    return EXIT_USAGE


def _prepare(args: argparse.Namespace, failure: FailureSpec) -> tuple[str, ReduceOptions]:
    """Check everything that can be checked before running anything."""
    source, output = args.source, args.output
    text = _read_source(source)
    if os.path.abspath(output) == os.path.abspath(source) or _same_file(source, output):
        raise UsageError("the output path must differ from SOURCE (the source is never modified)")
    problem = writable_problem(output)
    if problem:
        raise UsageError(f"cannot write the output: {problem}")
    taken = {"SOURCE": source, "OUTPUT": output}
    for flag, path in (("--report", args.report), ("--emit-test", args.emit_test)):
        if path is None:
            continue
        for name, other in taken.items():
            if os.path.abspath(path) == os.path.abspath(other) or _same_file(path, other):
                raise UsageError(f"{flag} {path}: must differ from {name}")
        problem = writable_problem(path)
        if problem:
            raise UsageError(f"cannot write {flag} {path}: {problem}")
        taken[flag] = path
    if not os.access(args.python, os.X_OK):
        raise UsageError(f"--python {args.python}: not an executable file")
    given = {option.field: getattr(args, option.field) for option in engine_options() if option.flags}
    options = ReduceOptions(failure=failure, test=args.test, **given)
    options.validate()
    return text, options


def _write_extras(args: argparse.Namespace, summary: Summary, options: ReduceOptions) -> int:
    """Write --report and --emit-test for a finished run; 0, or the exit status of a failure."""
    makers = (("report", args.report, bug_report), ("test", args.emit_test, regression_test))
    # The report asks the interpreter for its versions: Ctrl-C or SIGTERM stops that run (and kills it).
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for what, path, make in makers:
            if not path:
                continue
            try:
                atomic_write(path, make(summary, args.source, args.output, "", options))
            except KeyboardInterrupt:
                return _fail(f"interrupted; {path} not written", EXIT_INTERRUPTED)
            except OSError as error:
                return _fail(f"cannot write {path}: {error.strerror or error}", EXIT_USAGE)
            print(f"autodd: wrote {what} {path}", file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _read_source(path: str) -> str:
    try:
        return read_python_source(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a Python file") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except (UnicodeDecodeError, SyntaxError) as error:
        raise UsageError(f"{path}: text does not match its encoding: {error}") from None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class _ResultWriter:
    """Keeps OUTPUT equal to the best program so far, so a stop at any moment loses nothing.

    Written at most every WRITE_INTERVAL seconds (acceptances come dozens a
    second on fast programs, and each write is on the engine's path); a text
    accepted meanwhile is written at the next event, and the final one always.
    A failed write (disk full, folder removed) stops the reduction: there is no
    point shrinking what cannot be saved.
    """

    WRITE_INTERVAL = 0.25

    def __init__(self, path: str) -> None:
        self.path = path
        self.error: OSError | None = None
        self.on_error = lambda: None
        self._pending: str | None = None
        self._written_at = float("-inf")

    def __call__(self, event: Event) -> None:
        if isinstance(event, Accepted):
            self._pending = event.text
        if isinstance(event, (Accepted, Progress)) and self._pending is not None:
            if time.monotonic() - self._written_at >= self.WRITE_INTERVAL:
                self.write(self._pending)

    def write(self, text: str) -> None:
        if self.error is not None:
            return
        self._pending, self._written_at = None, time.monotonic()
        try:
            atomic_write(self.path, text)
        except OSError as error:
            self.error = error
            self.on_error()


def _fan_out(*listeners):
    def listener(event: Event) -> None:
        for each in listeners:
            each(event)

    return listener


def _run_interruptibly(reduction: Reduction) -> Summary:
    """Run in a worker thread; Ctrl-C and SIGTERM cancel it, and it stops within a second.

    The handlers only ask the engine to stop: raising KeyboardInterrupt into a
    waiting main thread can leave the worker thread's bookkeeping wrong.
    """
    outcome: dict[str, object] = {}
    finished = threading.Event()

    def work() -> None:
        try:
            outcome["summary"] = reduction.run()
        except BaseException as error:  # noqa: BLE001 - re-raised in the main thread
            outcome["error"] = error
        finally:
            finished.set()

    def stop(signum, frame) -> None:
        reduction.cancel()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        threading.Thread(target=work, name="autodd-engine", daemon=True).start()
        while not finished.wait(0.1):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    error = outcome.get("error")
    if isinstance(error, BaseException):
        raise error
    summary = outcome["summary"]
    assert isinstance(summary, Summary)
    return summary


def _fail(message: str, code: int) -> int:
    print(f"autodd: error: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
