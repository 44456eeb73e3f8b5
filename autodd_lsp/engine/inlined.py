"""The inlining swap: reduce the program with its own modules written into it, if it fails the same way.

With `--inline-modules` (and always for a pytest test, whose conftest.py files
are written into it: `engine/pytest_target.py`), the original's local imports
are inlined (`autodd_lsp.inlining`). When that one file fails as the original
does (the same failure line), it becomes the reduction's original (`Texts.rebase`)
and the result is one standalone file; otherwise the user is told why, and the
reduction goes on from the user's file. When the failure is raised by an inlined
module's own `raise` or `assert`, that check is frozen in the inlined text.
Called once, by `original.OriginalChecks.check`, right after the first run.
"""

from __future__ import annotations

import ast
import os
from typing import Protocol

from autodd_lsp.engine.candidates import CandidateTester
from autodd_lsp.engine.events import Accepted
from autodd_lsp.engine.options import ReduceOptions
from autodd_lsp.engine.pytest_target import PytestTest, conftest_files
from autodd_lsp.engine.reporter import Reporter
from autodd_lsp.engine.texts import Texts
from autodd_lsp.execution import RunResult
from autodd_lsp.freeze import parse_freeze
from autodd_lsp.inlining import (
    Inlined,
    freeze_check,
    inline_conftests,
    inline_local_modules,
)
from autodd_lsp.kinds.signature import output_tail
from autodd_lsp.oracle.run import Oracle
from autodd_lsp.oracle.same import Observation
from autodd_lsp.syntax.metrics import size_of
from autodd_lsp.syntax.parsing import parse


class Original(Protocol):
    """What the swap needs of the original's checks (`original.OriginalChecks`)."""

    options: ReduceOptions
    path: str
    pytest: PytestTest | None
    texts: Texts
    tester: CandidateTester
    reporter: Reporter

    def run_original(self, learn_imports: bool = False, text: str | None = None) -> RunResult: ...

    def observe(self, output: str, text: str) -> Observation | None: ...

    def failure_rule(self, result: RunResult, text: str | None = None) -> Oracle | None: ...


def inlined_instead(
    checks: Original, first: Observation | None,
) -> tuple[RunResult, Oracle, Observation | None] | None:
    """The program with its own modules inlined (autodd_lsp.inlining), if it fails as the original does:
    then the reduction goes on from it, and the result is one standalone file.
    Returns that run, its message oracle and its observation; None to go on with the original."""
    options, pytest, path, notice = checks.options, checks.pytest, checks.path, checks.reporter.notice
    if not (options.inline_modules or pytest):
        return None
    text = checks.texts.original
    files: tuple[str, ...] = ()
    if pytest:
        conftests = inline_conftests(text, path, conftest_files(path))
        for conftest, why in conftests.kept:
            notice(f"{conftest} is not inlined: {why}; the result needs it beside the test")
        text, files = conftests.text, conftests.modules
    inlined = inline_local_modules(text, path) if options.inline_modules else Inlined(text)
    for module, why in inlined.kept:
        notice(f"the import of {module} stays (it is not inlined): {why}")
    if not inlined.modules and not pytest:
        return None
    names = ", ".join(os.path.relpath(m, os.path.dirname(path)) for m in (*files, *inlined.modules))
    frame = first.place.library_frame if first is not None and first.place else None
    # The module's own `raise`/`assert` raises the failure: inlined, its check is frozen (inlining/checks.py)
    check_at = frame if frame is not None and frame[0] in inlined.modules and raises_itself(*frame) else None
    try:
        parse(inlined.text)
    except (SyntaxError, ValueError):
        return None
    if parse_freeze(inlined.text).errors:
        notice(f"{names} not inlined: their freeze annotations do not pair up once inlined")
        return None
    backend = checks.tester.backend
    text = inlined.text
    if check_at is not None:  # a first run finds the check's line in the inlined text; the check is frozen there
        origin = f"{os.path.relpath(check_at[0], os.path.dirname(path))}:{check_at[1]}"
        located = checks.observe(checks.run_original(text=text).output, text)
        line = located.place.program_line if located is not None and located.place else None
        frozen_text = freeze_check(text, line, origin) if line is not None else None
        if frozen_text is None or parse_freeze(frozen_text).errors:
            notice(
                f"{names} not inlined: the failure is raised by {os.path.basename(check_at[0])}'s own "
                "raise or assert, which could not be frozen once inlined (the reproducer keeps that import)"
            )
            return None
        text = frozen_text
    if pytest:  # from here on, without the conftest.py files (see engine/pytest_target.py)
        backend.launch = pytest.launch(conftest=False)
    result = checks.run_original(text=text)
    seen = checks.observe(result.output, text)
    rule = checks.failure_rule(result, text)
    same = rule is not None and (first is None or (seen is not None and seen.normalized == first.normalized))
    if rule is None or not same:
        shown = seen.line.strip() if seen is not None else output_tail(result.output, max_lines=1) or "no output"
        if pytest:
            backend.launch = pytest.launch()
            what = f"with {names} inlined and without conftest.py files" if names else "without its conftest.py files"
            notice(f"the test fails otherwise {what} ({shown}): the result needs them beside it")
        else:
            notice(f"{names} not inlined: with them inlined the program fails otherwise ({shown})")
        return None
    if text == checks.texts.original:
        return result, rule, seen  # a test that needs no conftest.py: nothing to rebase
    tree = parse(text)
    checks.texts.rebase(text, tree)
    checks.reporter.size = size_of(text, tree)
    kept = f"; its check at {origin} is frozen" if check_at is not None else ""
    notice(f"inlined {names}: the reproducer will be one file{kept}")
    checks.reporter.emit(Accepted(text, checks.reporter.size, checks.reporter.stats()))  # the first reproducer, one file
    return result, rule, seen


def raises_itself(path: str, line: int) -> bool:
    """Whether the statement at `path`:`line` is the module's own check (see `own_check`)."""
    try:
        with open(path, "rb") as handle:
            tree = parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return True  # unknown: keep the import
    return own_check(tree, line)


def own_check(tree: ast.AST, line: int) -> bool:
    """Whether a `raise` or an `assert` of `tree` spans `line`: the program reports the failure itself."""
    return any(
        isinstance(node, (ast.Raise, ast.Assert)) and node.lineno <= line <= (node.end_lineno or node.lineno)
        for node in ast.walk(tree)
    )
