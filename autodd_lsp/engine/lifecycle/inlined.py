"""The inlining swap: reduce the program with its own modules written into it, if it fails the same way.

Unless `--keep-imports`, the program's own modules end inlined
(`autodd_lsp.inlining`), so that the result is one standalone file. When:
  * a script is first reduced as it is, its imports kept (candidates run beside
    it, so they work); then `inline_reduced` inlines the modules the reduced
    program still imports, only the names it still uses and what those need
    (`inlining/pruning.py`), and the reduction goes on from that text, after
    the original's checks run again on it (`reduction.py` runs these stages).
    Inlining everything first (`inline_lazily` off) made a 257-line script
    6,876 nodes and its reduction crawl (issue 22);
  * a pytest test gets its conftest.py files and modules inlined before
    reducing (`inlined_instead`, called by `original.OriginalChecks.check`
    right after the first run): the test runs without conftest.py from then on.
Either way the inlined text is used only if it fails as the original does (the
same failure line: an exception class of an inlined module may lose its
module's name, `same_once_inlined`), and it becomes the reduction's original
(`Texts.rebase`); otherwise the user is told why, and the reduction goes on
(or ends) with the imports. When the failure is raised by an inlined module's
own `raise` or `assert`, that check is frozen in the inlined text.
"""

from __future__ import annotations

import ast
import os
from typing import Protocol

from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.engine.lifecycle.events import Accepted
from autodd_lsp.engine.lifecycle.options import ReduceOptions
from autodd_lsp.engine.lifecycle.reporter import Reporter
from autodd_lsp.engine.lifecycle.texts import Texts
from autodd_lsp.engine.spec.pytest_target import PytestTest, conftest_files
from autodd_lsp.execution import RunResult
from autodd_lsp.freeze import parse_freeze
from autodd_lsp.inlining import (
    Inlined,
    freeze_check,
    inline_conftests,
    inline_local_modules,
    prune_unused,
)
from autodd_lsp.inlining.project import import_roots
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
    """Before reducing: the program with its conftest.py files and own modules inlined, if it fails as
    the original does (a pytest test; a script only with `inline_lazily` off: it inlines after
    reducing, `inline_reduced`). Returns that run, its message oracle and its observation; None
    to go on with the original."""
    options, pytest, path, notice = checks.options, checks.pytest, checks.path, checks.reporter.notice
    if not pytest and (not options.inline_modules or options.inline_lazily):
        return None
    text = checks.texts.original
    files: tuple[str, ...] = ()
    if pytest:
        conftests = inline_conftests(text, path, conftest_files(path))
        for conftest, why in conftests.kept:
            notice(f"{conftest} is not inlined: {why}; the result needs it beside the test")
        text, files = conftests.text, conftests.modules
    # a test's project's own package too, beside its folder (inlining/project.py)
    roots = import_roots(path) if pytest else ()
    inlined = inline_local_modules(text, path, roots) if options.inline_modules else Inlined(text)
    for module, why in inlined.kept:
        notice(f"the import of {module} stays (it is not inlined): {why}")
    if not inlined.modules and not pytest:
        return None
    return _swap(checks, inlined.text, (*files, *inlined.modules), first)


def inline_reduced(checks: Original, first: Observation | None) -> bool:
    """After reducing with the imports kept: the best text with the own modules it still imports
    inlined, only what it uses of them (`inlining/pruning.py`; all of them if that does not fail
    the same way), becomes the reduction's original (`Texts.rebase`) if it fails as the original
    does. Whether it did; the caller then runs the original's checks on it."""
    path, notice = checks.path, checks.reporter.notice
    inlined = inline_local_modules(checks.texts.best, path)
    for module, why in inlined.kept:
        notice(f"the import of {module} stays (it is not inlined): {why}")
    if not inlined.modules:
        return False
    pruned = prune_unused(inlined.text, inlined.spans)
    if pruned != inlined.text and _swap(checks, pruned, inlined.modules, first, quiet=True) is not None:
        return True
    return _swap(checks, inlined.text, inlined.modules, first) is not None


def _swap(
    checks: Original, text: str, modules: tuple[str, ...], first: Observation | None, quiet: bool = False,
) -> tuple[RunResult, Oracle, Observation | None] | None:
    """`text` (the program with `modules` written into it) run; if it fails as the original did
    (`first`), the reduction's original from now on. A failure raised by a module's own check gets
    that check frozen. `quiet`: no notice when it fails otherwise (another text will be tried)."""
    pytest, path, notice = checks.pytest, checks.path, checks.reporter.notice
    names = ", ".join(os.path.relpath(m, os.path.dirname(path)) for m in modules)
    frame = first.place.library_frame if first is not None and first.place else None
    # The module's own `raise`/`assert` raises the failure: inlined, its check is frozen (inlining/checks.py)
    check_at = frame if frame is not None and frame[0] in modules and raises_itself(*frame) else None
    try:
        parse(text)
    except (SyntaxError, ValueError):
        return None
    if parse_freeze(text).errors:
        notice(f"{names} not inlined: their freeze annotations do not pair up once inlined")
        return None
    backend = checks.tester.backend
    if check_at is not None:  # a first run finds the check's line in the inlined text; the check is frozen there
        origin = f"{os.path.relpath(check_at[0], os.path.dirname(path))}:{check_at[1]}"
        located = checks.observe(checks.run_original(text=text).output, text)
        line = located.place.program_line if located is not None and located.place else None
        frozen_text = freeze_check(text, line, origin) if line is not None else None
        if frozen_text is None or parse_freeze(frozen_text).errors:
            if not quiet:
                notice(
                    f"{names} not inlined: the failure is raised by {os.path.basename(check_at[0])}'s own "
                    "raise or assert, which could not be frozen once inlined (the reproducer keeps that import)"
                )
            return None
        text = frozen_text
    if pytest:  # from here on, without the conftest.py files (see engine/spec/pytest_target.py)
        backend.launch = pytest.launch(conftest=False)
    result = checks.run_original(text=text)
    seen = checks.observe(result.output, text)
    rule = checks.failure_rule(result, text)
    same = rule is not None and (first is None or (seen is not None and same_once_inlined(first, seen, modules, path)))
    if rule is None or not same:
        shown = seen.line.strip() if seen is not None else output_tail(result.output, max_lines=1) or "no output"
        if pytest:
            backend.launch = pytest.launch()
            what = f"with {names} inlined and without conftest.py files" if names else "without its conftest.py files"
            notice(f"the test fails otherwise {what} ({shown}): the result needs them beside it")
        elif not quiet:
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


def same_once_inlined(first: Observation, seen: Observation, modules: tuple[str, ...], path: str) -> bool:
    """Whether the inlined program's failure line `seen` is the original's `first`. An exception
    class defined in an inlined module loses its module's name in the traceback
    (`mylib.pricing.PricingError: ...` reads `PricingError: ...` once the class is the program's):
    that name is the only difference allowed."""
    if seen.normalized == first.normalized:
        return True
    roots = (os.path.dirname(os.path.abspath(path)), *import_roots(path))
    for module in modules:
        root = next((r for r in roots if module.startswith(r + os.sep)), roots[0])
        dotted = os.path.splitext(os.path.relpath(module, root))[0].replace(os.sep, ".")
        dotted = dotted.removesuffix(".__init__")
        if first.normalized.startswith(dotted + ".") and first.normalized[len(dotted) + 1:] == seen.normalized:
            return True
    return False


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
