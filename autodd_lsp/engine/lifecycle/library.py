"""The library API: reduce a source text with a plain Python predicate, no processes.

    from autodd_lsp.engine import minimize
    small = minimize(source_text, lambda text: "boom" in text)

It is exported by `autodd_lsp.engine`, not by the top-level package, which
programs import for `__freeze__` and which therefore loads nothing.

`minimize(source, check)` returns the smallest text it finds for which
`check(text)` is true. It is the engine's reduction without its runs: the same
passes (all but the formatter, which starts ruff), the same fixpoint over their
groups (`fixpoint.py`), the same search of each pass (`pass_search.py`), the same
order (`metrics.order_key`: every accepted text is strictly smaller, so it ends)
and the same cheap checks before `check` is asked (not smaller than the best, seen
before, does not compile, breaks frozen code). Freeze annotations
(`# autodd: freeze`, `__freeze__`) are honoured as in a run: frozen code is never
edited. What needs a run is not here: the oracle (the predicate is the oracle),
values recorded from a run, the probe that frozen code still runs, and the
final re-run.

`check` is called with candidate texts, one at a time (from a worker thread),
and must be deterministic for the result to be; an exception it raises ends the
reduction and propagates. It must be true for `source`, or ValueError; a source
that does not parse, or whose freeze annotations do not pair up, raises
`autodd_lsp.engine.UsageError` with one line that says where.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.candidates import BestOrder
from autodd_lsp.engine.candidate.compiler import CandidateCompiler
from autodd_lsp.engine.lifecycle.texts import parse_program
from autodd_lsp.engine.rules.protection import frozen_fingerprint, frozen_spans
from autodd_lsp.engine.searching.fixpoint import Fixpoint
from autodd_lsp.engine.searching.pass_search import PlainCancels
from autodd_lsp.engine.searching.run_map import FailingPath
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.passes import ReductionPass, registered_passes
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span
from autodd_lsp.values import RecordedValues, ValueLookup

PATH = "<minimize>"  # the file name candidates are compiled under


def minimize(source: str, check: Callable[[str], bool]) -> str:
    """The smallest text found from `source` for which `check(text)` holds (see the module docstring)."""
    parse_program(source, PATH)
    if not check(source):
        raise ValueError("check(source) is false: there is nothing to keep")
    host = _PredicateHost(source, check)
    with ThreadPoolExecutor(host.jobs + 1, thread_name_prefix="autodd-minimize") as pool:
        Fixpoint(host, [p for p in registered_passes() if not p.runs_a_tool]).run(pool)
    return host.best


class _PredicateHost(PlainCancels):
    """The fixpoint's host (`fixpoint.FixpointHost`) for a predicate: candidates judged by `check`,
    one at a time; nothing to wait for, no person in the loop, no origins kept."""

    jobs = 1

    def __init__(self, source: str, check: Callable[[str], bool]) -> None:
        self.original = self.best = source
        self._check = check
        self._order = BestOrder()
        self._order.set(source)
        self._compiler = CandidateCompiler()
        self._frozen = frozen_fingerprint(source)
        self._verdicts: dict[str, bool] = {}
        self._one_at_a_time = threading.Lock()  # the search prepares one candidate ahead: `check` waits

    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None, expected: bool = False) -> bool:
        if not self._order.smaller(text):
            return False
        with self._one_at_a_time:
            if cancel.is_set():
                return False  # thrown away by its search (moot, or stopped)
            known = self._verdicts.get(text)
            if known is None:
                well_formed = self._compiler.compile(text, PATH) is not None and (
                    not self._frozen or frozen_fingerprint(text) == self._frozen)
                known = self._verdicts[text] = well_formed and bool(self._check(text))
            return known

    def shadow(self) -> str | None:
        return None  # no origins: nothing here asks where a line came from

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        return lambda line: None

    def rejection_recorder(self, shadow_base: str | None) -> Callable[[RunResult, str], None] | None:
        return None

    def accept(self, text: str, shadow: str | None) -> None:
        self.best = text
        self._order.set(text)

    def show_smaller(self, text: str) -> None:
        pass

    def interrupted(self) -> bool:
        return False

    def offer_waiting(self) -> bool:
        return False

    def tick(self) -> None:
        pass

    def best_so_far(self) -> str:
        return self.best

    def reduced_original(self) -> str:
        return self.original

    @property
    def cancelled(self) -> bool:
        return False

    def pass_started(self, reduction_pass: ReductionPass) -> RecordedValues | None:
        return None

    def run_map(self) -> RecordedValues | None:
        return None  # a predicate, not a program's run

    def failing_path(self) -> FailingPath | None:
        return None

    def best_run_map(self, text: str) -> ValueLookup | None:
        return None  # no runs: every removal that waited is tried

    def values_now(self, reduction_pass: ReductionPass) -> tuple[bool, RecordedValues | None]:
        return True, None

    def refused_without_a_run(self, edit: Edit, error: str) -> None:
        pass  # never called: no map of a run

    def pass_failed(self, reduction_pass: ReductionPass, error: BaseException) -> None:
        raise error  # a pass tested against a plain predicate shows its bug

    def adopt_offer(self) -> bool:
        return False

    def protected(self, source: Source, shadow: str | None) -> list[Span]:
        return frozen_spans(source)
