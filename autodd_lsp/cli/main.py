"""`autodd SOURCE (--err-msg MSG | --err-regex REGEX | --crash [SIGNAL] | --exit-code N | --hang)
-o OUTPUT [--backend {runner,subproc,ray}] [--timeout SEC] [-j N] [--gpus IDS] [--ray-address ADDRESS]
[--match {same,substring}]
[--repeat N] [--keep-imports] [--report FILE.md] [--emit-test FILE.py] [--stdin FILE] [-- ARG...]`

ARG... (after `--`) are the program's own arguments, given to every run of it; --stdin
FILE is what every run reads on its standard input.

Exactly one failure to keep is given (see `autodd_lsp.engine.spec.failure_spec`);
without any, SOURCE is run once and the command prints the ones it could use;
without -o the result goes beside SOURCE as <stem>.min.py.
--report and --emit-test (see `autodd_lsp.report`) are written once the run has
finished, not when it was stopped; their paths are checked before anything runs.

Exit status: 0 done (the result re-ran and still fails the same way), 1 the
original does not show the failure, 2 bad input, 3 the result did not reproduce
on its final re-run, 130 interrupted (the best result so far is in OUTPUT).

The words are read by `arguments.py` (the flags, derived from the kinds and the
engine's options); this module checks the paths, runs the reduction and writes
its results.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import threading
import time

from autodd_lsp.cli.arguments import (
    build_parser,
    failure_flags,
    failure_to_keep,
    given_options,
    optional_value_before_source,
    split_program_args,
)
from autodd_lsp.cli.pick import interactive, pick
from autodd_lsp.cli.terminal import TerminalReporter
from autodd_lsp.engine import (
    Accepted,
    Event,
    Failed,
    FailureSpec,
    Notice,
    NotReproducible,
    Progress,
    ReduceOptions,
    Reduction,
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
    data_folder,
    read_python_source,
    writable_problem,
    write_data_folder,
)
from autodd_lsp.notebook import (
    NotebookError,
    NotebookProgram,
    is_notebook,
    notebook_program,
    notebook_text,
)
from autodd_lsp.report import bug_report, regression_test
from autodd_lsp.shell import shell_command

EXIT_NOT_REPRODUCIBLE = 1
EXIT_USAGE = 2
EXIT_UNVERIFIED = 3
EXIT_INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    words, program_args = split_program_args(sys.argv[1:] if argv is None else list(argv))
    args = build_parser().parse_args(optional_value_before_source(words))
    args.args = program_args
    args.given = given_options(words, args.source)
    try:
        args.source, args.test = split_source(args.source)  # a pytest node id: FILE.py::test
        args.notebook = _notebook(args.source)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if args.output is None:
        args.output = beside_output_path(args.source)
    explain = args.notebook.explain if args.notebook is not None else str
    try:
        failure = failure_to_keep(args)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if failure is None:
        return _suggest_messages(args)
    reporter = TerminalReporter(quiet=args.quiet, verbose=args.verbose)
    writer = _ResultWriter(args.output, _notebook_render(args) if is_notebook(args.output) else None)
    try:
        text, options = _prepare(args, failure)
        reduction = Reduction(text, args.source, options, _fan_out(_explained(reporter, explain), writer))
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    writer.on_error = reduction.cancel
    output = args.output
    try:
        summary = _run_interruptibly(reduction)
    except NotReproducible as error:
        reporter.close()
        tail = f"\n--- last lines it printed ---\n{error.output_tail}" if error.output_tail else ""
        return _fail(explain(f"{error}; nothing to reduce{tail}"), EXIT_NOT_REPRODUCIBLE)
    except UsageError as error:  # found only once running (e.g. the Ray cluster cannot be reached)
        reporter.close()
        return _fail(str(error), EXIT_USAGE)
    finally:
        reporter.close()
    writer.write(summary.text)
    if writer.error is not None:
        return _fail(f"cannot write {output}: {writer.error.strerror or writer.error}", EXIT_USAGE)
    print(explain(summary.describe()), file=sys.stderr)
    print(f"autodd: wrote {output}", file=sys.stderr)
    if summary.data and not summary.cancelled:
        code = _write_data(output, summary)
        if code:
            return code
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


DROPPED_NAMED = 5  # files not needed any more: named up to this many, else counted


def _write_data(output: str, summary: Summary) -> int:
    """The files the result reads, as cut (`Summary.data`): those written into it named, the others
    in OUTPUT's data folder laid out like the source's, with the result beside them under OUTPUT's
    name: it runs from there (notes/data.md)."""
    beside, written = summary.data_in("folder"), summary.data_in("program")
    folder = ""
    if beside:
        try:
            folder = write_data_folder(output, summary.text, ((item.name, item.data) for item in beside))
        except OSError as error:
            return _fail(f"cannot write {data_folder(output)}: {error.strerror or error}", EXIT_USAGE)
    before, after = sum(item.before for item in summary.data), sum(item.after for item in summary.data)
    print(f"autodd: the result read {len(summary.data)} file(s) beside it: {before:,} -> {after:,} bytes "
          f"({summary.data_candidates} candidates, {summary.data_seconds:.1f} s)", file=sys.stderr)
    dropped = summary.data_in("dropped")
    named = dropped if len(dropped) <= DROPPED_NAMED else ()
    for item in (*beside, *written, *named):
        print(f"autodd:   {item.describe()}", file=sys.stderr)
    if dropped and not named:
        print(f"autodd:   {len(dropped)} other file(s) it read are not needed: the result fails the same way "
              "without them", file=sys.stderr)
    if written:
        names = ", ".join(item.name for item in written)
        where = f"{output} (it runs alone)" if not beside else output
        print(f"autodd: written into {where}: {names}", file=sys.stderr)
    if folder:
        print(f"autodd: wrote {folder}{os.sep} (run it there: cd {shlex.quote(folder)} && python "
              f"{shlex.quote(os.path.basename(output))})", file=sys.stderr)
    return 0


def _suggest_messages(args: argparse.Namespace) -> int:
    """No failure given: run SOURCE once (the user asked to reduce it) and offer its failure."""
    try:
        text, prepared = _prepare(args, FailureSpec.message("-"))  # every option is checked before anything runs
        _check_compiles(args, text)
        options = prepared.run_options()
        question = ask_failure(args.source, options, text=args.notebook.text if args.notebook is not None else None)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    if question.not_run is not None:  # a test that passes, is not found or does not collect
        return _fail(question.not_run, EXIT_NOT_REPRODUCIBLE)
    if question.environment is not None:  # the environment, not a bug: nothing to offer
        return _fail(question.environment.message(), EXIT_NOT_REPRODUCIBLE)
    if not question.choices:
        tail = output_tail(_explain_output(args, question.run.output), max_lines=10)
        shown = f"; it printed:\n{tail}" if tail else " and printed nothing"
        return _fail(f"a failure to keep is required ({failure_flags()}): "
                     f"{args.source} ran without a recognisable failure{shown}", EXIT_USAGE)
    source = f"{args.source}::{args.test}" if args.test else args.source
    print(f"autodd: no failure to keep given; {source} fails with:", file=sys.stderr)
    program_args = ["--", *args.args] if args.args else []
    commands = [[source, *choice.spec.command_line(), *args.given, *program_args] for choice in question.choices]
    if interactive():
        chosen = pick(commands)
        return EXIT_USAGE if chosen is None else main(chosen)
    for choice, words in zip(question.choices, commands, strict=True):
        # a choice whose words say more than its flag (a wrong answer: what differed) says them
        said = f"   # {choice.title}" if choice.spec.value is not None and not choice.spec.command_line()[1:] else ""
        print(f"  autodd {shell_command(words)}{said}", file=sys.stderr)
    print("autodd: pick one (a shorter message survives more changes) and run it.", file=sys.stderr)
    return EXIT_USAGE


def _prepare(args: argparse.Namespace, failure: FailureSpec) -> tuple[str, ReduceOptions]:
    """Check everything that can be checked before running anything."""
    source, output = args.source, args.output
    text = args.notebook.text if args.notebook is not None else _read_source(source)
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
    given = {field: tuple(value) if isinstance(value, list) else value for field, value in given.items()}
    options = ReduceOptions(failure=failure, test=args.test, args=tuple(args.args), **given)
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
                atomic_write(path, make(summary, args.source, _program_output(args.output), "", options))
            except KeyboardInterrupt:
                return _fail(f"interrupted; {path} not written", EXIT_INTERRUPTED)
            except OSError as error:
                return _fail(f"cannot write {path}: {error.strerror or error}", EXIT_USAGE)
            print(f"autodd: wrote {what} {path}", file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _check_compiles(args: argparse.Namespace, text: str) -> None:
    """UsageError when SOURCE does not compile: a failure to keep is a failure of a program that runs."""
    try:
        compile(text, args.source, "exec", dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno or 0
        where = args.notebook.where(line) if args.notebook is not None else f"line {line}"
        raise UsageError(f"{args.source} does not compile ({where}: {error.msg}): fix that first; "
                         "AutoDD keeps a failure of a program that runs") from None
    except ValueError as error:  # a null byte
        raise UsageError(f"{args.source} does not compile: {error}") from None


def _notebook(path: str) -> NotebookProgram | None:
    """SOURCE as one program when it is a notebook (autodd_lsp/notebook.py); None for a Python file."""
    if not is_notebook(path):
        return None
    try:
        return notebook_program(path)
    except NotebookError as error:
        raise UsageError(str(error)) from None
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None


def _notebook_render(args: argparse.Namespace):
    """The result as a notebook's JSON; a notebook SOURCE's IPython lines written back as the person wrote them."""
    return lambda text: notebook_text(text, args.notebook)


def _explain_output(args: argparse.Namespace, output: str) -> str:
    return args.notebook.explain(output) if args.notebook is not None else output


def _explained(listener, explain):
    """`listener`, with the notices and failures it shows placed in a notebook's cells."""
    if explain is str:
        return listener

    def explained(event: Event) -> None:
        if isinstance(event, Notice):
            event = Notice(explain(event.message))
        elif isinstance(event, Failed):
            event = Failed(explain(event.reason), explain(event.output_tail))
        listener(event)

    return explained


def _program_output(output: str) -> str:
    """The reproducer's name as a program (a notebook's as the script it holds: the report runs it)."""
    return os.path.splitext(output)[0] + ".py" if is_notebook(output) else output


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

    def __init__(self, path: str, render=None) -> None:
        self.path = path
        self.render = render  # text -> the file's text (a notebook's JSON); None: the program itself
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
            atomic_write(self.path, self.render(text) if self.render is not None else text)
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
