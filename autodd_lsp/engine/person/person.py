"""The user in the loop: texts a person offers during a run, and what a run learned per line.

A reducer decides alone; a person watching it often knows better ("that block
is irrelevant"). This module is the engine's side of that, for any front end;
it knows nothing of editors. The contract (the methods are on `Reduction`):

- `Reduction.offer(text) -> Future[OfferVerdict]`, from any thread while
  `run()` goes on. The text is judged at once (one run; the sequential test's
  runs for an intermittent failure) by the run's own oracle: the same failure
  line from the same place, no new degenerate values..., except the frozen-code
  rules, which follow the offered text: a person who deletes frozen code means
  it, so the offered text's frozen regions are the rule from then on.
  Interesting: the search under way stops, and the reduction adopts the text
  (whether it is smaller or not: the person decided) and starts its pass cycle
  again from it with no memory of needed edits, so what follows depends only
  on the adopted text (deterministic, as a run started from it). The future is
  resolved when the text is adopted (`adopted=True`) or refused; a text judged
  interesting once the passes are over, or replaced by a newer offer before it
  was adopted, resolves `interesting=True, adopted=False`. Not interesting:
  nothing changes; `outcome` says in one line what happened instead.
- `Reduction.why_kept(line) -> Kept | None`, after `run()`: for a 1-based line
  of the final text, what the smallest rejected removal of a statement on it
  did (the failure went away, or another error's line). Learned from the
  statement passes' rejected candidates, keyed by the original statements
  their removal touched (origins: syntax/origin.py), one record per original
  statement (bounded by the program's size). Pure: it never runs user code.
- `Reduction.try_text(text) -> OfferVerdict`, after `run()`, blocking: one
  candidate judged by the run's oracle in a fresh interpreter (an explicit
  user act, e.g. "try without this line"). `without_line(text, line)` makes
  that candidate: the statement that starts on the line removed.
"""

from __future__ import annotations

import ast
import difflib
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autodd_lsp.engine.candidate.verdict import ONE_RUN, run_until_decided
from autodd_lsp.execution import CancelEvent, RunResult
from autodd_lsp.oracle.exit_status import exception_lines
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.syntax.origin import (
    SHADOW_BASE,
    OriginalStatements,
    identity_shadow,
    line_origins,
)
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import Edit, render

if TYPE_CHECKING:
    from autodd_lsp.engine.candidate.candidates import CandidateTester

FAILURE_GONE = "the failure goes away"


@dataclass(frozen=True)
class OfferVerdict:
    """What became of an offered (or tried) text."""

    interesting: bool  # it still fails the same way
    outcome: str  # one line: the failure line, or what happened instead
    adopted: bool = False  # the reduction went on from it (offers during a run only)


@dataclass(frozen=True)
class Kept:
    """Why a line of the final text is still there: what the run saw without it."""

    outcome: str  # FAILURE_GONE, or the first line of what went wrong instead
    together_with: int  # how many other statements that rejected removal also took (0: the line alone)


def describe_outcome(result: RunResult, failure_line: str = "") -> str:
    """One line for what a run did instead of the failure (`failure_line`: the original's)."""
    if result.timed_out:
        return "it runs past the time limit"
    errors = exception_lines(result.output)
    if errors:
        line = errors[-1].line.strip()
        return f"{line} (not from the same place)" if failure_line and line == failure_line.strip() else line
    if result.returncode is not None and result.returncode < 0:
        try:
            return f"killed by {signal.Signals(-result.returncode).name}"
        except ValueError:
            return f"killed by signal {-result.returncode}"
    if result.returncode:
        return f"{FAILURE_GONE} (exit status {result.returncode})"
    return FAILURE_GONE


def syntax_problem(text: str) -> str | None:
    """The text's syntax error in one line, or None when it parses."""
    try:
        parse(text)
    except SyntaxError as error:
        return f"SyntaxError: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError) as error:
        return f"cannot parse: {error}"
    return None


def judge_text(tester: CandidateTester, text: str, statements_of: StatementsOf, failure_line: str,
               cancel: CancelEvent | None = None) -> OfferVerdict:
    """Run a person's `text` on `tester` (until the rate test decides, for an intermittent failure)
    and judge it by the run's rules, frozen code aside: a person's text sets its own frozen
    regions (see the module's docstring), so it is not probed."""
    rules = tester.rules
    decided = run_until_decided(
        lambda: tester.run(text, rules.timeout, cancel or CancelEvent()),
        lambda result: rules.judge.is_interesting(result, text, statements_of),
        rules.rate_test or ONE_RUN,
        rules.timeout_rejects,
    )
    if decided.decision is None:
        return OfferVerdict(False, "the run was stopped")
    if decided.decision:
        return OfferVerdict(True, failure_line)
    assert decided.last is not None
    return OfferVerdict(False, describe_outcome(decided.last, failure_line))


def offered_shadow(base: str, base_shadow: str | None, text: str, original: str | None = None) -> str | None:
    """A shadow for a text a person wrote from `base` (or from an older text): its lines equal to
    base lines keep their origins; the others, when equal to a line of `original`, that line's;
    the rest have none (their text stands for itself)."""
    if base_shadow is None:
        return None
    base_lines, shadow_lines, lines = base.split("\n"), base_shadow.split("\n"), text.split("\n")
    if len(base_lines) != len(shadow_lines):
        return None
    made: list[str | None] = [None] * len(lines)
    matcher = difflib.SequenceMatcher(None, base_lines, lines, autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            made[j1:j2] = shadow_lines[i1:i1 + (j2 - j1)]
    if original is not None and None in made:
        starts: dict[str, int] = {}
        offset = 0
        for line in original.split("\n"):
            starts.setdefault(line, offset)
            offset += len(line) + 1
        identity = identity_shadow(original)
        for j, line in enumerate(lines):
            start = starts.get(line) if made[j] is None and line.strip() else None
            if start is not None and identity is not None:
                made[j] = identity[start:start + len(line)]
    return "\n".join(line if made_line is None else made_line for line, made_line in zip(lines, made, strict=True))


def _origins(shadow: str) -> set[int]:
    return {ord(ch) - SHADOW_BASE for ch in shadow if ord(ch) >= SHADOW_BASE}


class Learned:
    """What rejected removals did, per original statement: the smallest removal's outcome wins."""

    def __init__(self, statements: OriginalStatements) -> None:
        self.statements = statements
        self._records: dict[int, tuple[int, str]] = {}  # statement -> (statements touched, outcome)
        self._lock = threading.Lock()

    def recorder(self, base_shadow: str | None, failure_line: str) -> Callable[[RunResult, str], None] | None:
        """For one search over a base text: record(rejected run, the candidate's shadow); None when
        the base's origins are unknown."""
        if base_shadow is None:
            return None
        base: list[set[int]] = []  # the base's origins, worked out on the first rejection

        def record(result: RunResult, shadow: str) -> None:
            if not base:
                base.append(_origins(base_shadow))
            touched = self.statements.of_offsets(base[0] - _origins(shadow))
            if touched:
                self.add(touched, describe_outcome(result, failure_line))

        return record

    def add_unrun(self, base_shadow: str | None, edit: Edit, error: str) -> None:
        """`edit` of the text whose shadow is `base_shadow` was refused without a run: the text's
        last run read what it removes where nothing else binds it (`engine/searching/best_run.py`)."""
        if base_shadow is None:
            return
        touched = self.statements.of_offsets(_origins(base_shadow) - _origins(render(base_shadow, list(edit.patches))))
        if touched:
            self.add(touched, f"{error} (where the last run read it; refused without running it again)")

    def add(self, touched: frozenset[int], outcome: str) -> None:
        size = len(touched)
        with self._lock:
            for statement in touched:
                known = self._records.get(statement)
                if known is None or size < known[0]:
                    self._records[statement] = (size, outcome)

    def why_kept(self, shadow: str | None, line: int) -> Kept | None:
        """For line `line` (1-based) of the text whose shadow is `shadow`: the record of its statement."""
        if shadow is None:
            return None
        found = [self._records[s] for s in self.statements.of_offsets(line_origins(shadow, line)) if s in self._records]
        if not found:
            return None
        size, outcome = min(found)
        return Kept(outcome, size - 1)


@dataclass
class _Offer:
    text: str
    future: Future


class Offers:
    """Offered texts of one run: judged one at a time in a thread of their own, adopted by the
    reduction at its next safe point (`take`), or refused when the run is past adopting (`close`)."""

    def __init__(self, judge: Callable[[str], OfferVerdict], ready: threading.Event) -> None:
        self._judge = judge
        self._ready = ready  # set once the run's oracle is known
        self._lock = threading.Lock()
        self._queue: list[_Offer] = []
        self._adoption: tuple[_Offer, OfferVerdict] | None = None
        self._closed = False
        self._worker: threading.Thread | None = None

    def submit(self, text: str) -> Future:
        future: Future = Future()
        with self._lock:
            if self._closed:
                future.set_result(OfferVerdict(False, "the run has ended"))
                return future
            self._queue.append(_Offer(text, future))
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._work, name="autodd-offers", daemon=True)
                self._worker.start()
        return future

    @property
    def waiting(self) -> bool:
        """An interesting offer waits to be adopted: the search under way should stop."""
        return self._adoption is not None

    def take(self) -> tuple[str, Callable[[], None]] | None:
        """The offer to adopt now, and what to call once it is adopted; None if none waits."""
        with self._lock:
            adoption, self._adoption = self._adoption, None
        if adoption is None:
            return None
        offer, verdict = adoption
        return offer.text, lambda: offer.future.set_result(OfferVerdict(True, verdict.outcome, adopted=True))

    def close(self) -> None:
        """No more adoptions: a waiting offer, and any judged from now on, are not adopted.
        Returns once an offer being judged has its verdict (its run is over: the run's
        backend and slots may go)."""
        with self._lock:
            self._closed = True
            adoption, self._adoption = self._adoption, None
            queued, self._queue = self._queue, []
            worker = self._worker
        if adoption is not None:
            adoption[0].future.set_result(adoption[1])
        for offer in queued:
            offer.future.set_result(OfferVerdict(False, "the run has ended"))
        if worker is not None and worker is not threading.current_thread():
            worker.join()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._worker = None
                    return
                offer = self._queue.pop(0)
            while not self._ready.wait(0.1):
                if self._closed:
                    break
            try:
                verdict = self._judge(offer.text) if self._ready.is_set() else OfferVerdict(False, "the run has ended")
            except Exception as error:  # noqa: BLE001 - a bug in judging must not leave the front end waiting forever
                verdict = OfferVerdict(False, f"could not be judged: {type(error).__name__}: {error}")
            with self._lock:
                if verdict.interesting and not self._closed:
                    replaced, self._adoption = self._adoption, (offer, verdict)
                    unanswered = None  # answered when it is adopted (or replaced, or the run ends)
                else:
                    replaced, unanswered = None, offer
            if replaced is not None:
                replaced[0].future.set_result(replaced[1])  # a newer offer came first
            if unanswered is not None:
                unanswered.future.set_result(verdict)


def without_line(text: str, line: int) -> str | None:
    """`text` without the statement that starts on `line` (1-based; the outermost one, with its
    body); a body left empty gets `pass`. None when no statement starts there."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    found = None
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            for node in block:
                if isinstance(node, ast.stmt) and _first_line(node) == line:
                    found = (block, node)
                    break
            if found:
                break
        if found:
            break
    if found is None:
        return None
    block, node = found
    lines = text.splitlines(keepends=True)
    start, end = _first_line(node) - 1, node.end_lineno
    if end is None:  # parsed statements always have their end positions
        return None
    if any(other is not node and _first_line(other) <= end and other.end_lineno >= _first_line(node)
           for other in block):
        return None  # shares a line with another statement (`a = 1; b = 2`): not a line of its own
    replacement = []
    if len(block) == 1:
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        replacement = [f"{indent}pass\n"]
    return "".join(lines[:start] + replacement + lines[end:])


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])
