"""The search of one pass's edits: which subsets to try, each rendered, tested, maybe accepted.

A pass proposes edits on the best text (`fixpoint.py`); ProbDD picks subsets
of them (`search/`: one ProbDD for all, or one per independent region with a
merge), and each subset becomes a candidate: the base text with those edits
rendered (`syntax/patch.render`), tested by the host (`SearchHost.test`: for
the engine, `candidates.CandidateTester`; for the library, a plain predicate).
An interesting subset's text is kept until the search accepts it, so it is
not rendered again; so is its shadow (where its characters came from in the
original), made when a judge first needs it. The search knows nothing about
Python: the host gives it region starts here, and the verdicts.

`PassSearch` is one such search, its state named: the base, the edits'
selector, the texts judged interesting, the shadows made, and per region the
text of what it applied so far.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.search import (
    Halves,
    ProbDD,
    Strategy,
    regions_of,
    search,
    search_regions,
)
from autodd_lsp.syntax.origin import aligned
from autodd_lsp.syntax.patch import Edit, EditSelector, Patch, render
from autodd_lsp.syntax.source import Source, first_line


class SearchHost(Protocol):
    """What a search needs from the reduction that runs it."""

    @property
    def jobs(self) -> int:
        """How many candidates run at once."""
        ...

    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None, expected: bool = False) -> bool:
        """Is `text` smaller than the best and does it fail the same way (`CandidateTester.test`)?
        `expected`: the search expects it is (what a prediction goes by: `lookahead.py`)."""
        ...

    def new_cancel_event(self) -> Cancel: ...

    def discarded(self, events: Iterable[Cancel]) -> None: ...

    def shadow(self) -> str | None:
        """The best text's shadow (None: origins unknown)."""
        ...

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf: ...

    def rejection_recorder(self, shadow_base: str | None) -> Callable[[RunResult, str], None] | None:
        """What learns from rejected removals of statements (`person.Learned.recorder`), or None."""
        ...

    def accept(self, text: str, shadow: str | None) -> None: ...

    def show_smaller(self, text: str) -> None: ...

    def interrupted(self) -> bool:
        """Stop the search under way (cancelled, or a person's text waits)."""
        ...

    def offer_waiting(self) -> bool:
        """A person's text waits to be adopted (it replaces what a search would accept now)."""
        ...

    def tick(self) -> None: ...


class PlainCancels:
    """Cancel flags for a host whose candidates cancel nothing by their verdicts (the library's,
    the lookahead's twin): plain events, and nothing counted when a search throws them away."""

    def new_cancel_event(self) -> Cancel:
        return threading.Event()

    def discarded(self, events: Iterable[Cancel]) -> None:
        pass


class PassSearch:
    """One search of `edits` on the parsed base text `source`, with ProbDD's prior `prior`
    (`together`: the edits are expected to go together: all at once, then by halves, `Halves`);
    `learns`: rejected removals are recorded (the statements group). `run` returns whether
    something was accepted; `applied` and `needed` say which edits were, and which were needed."""

    def __init__(self, host: SearchHost, source: Source, guards: list[Patch], edits: list[Edit],
                 prior: float | list[float], learns: bool, together: bool = False) -> None:
        self.host, self.source, self.edits, self.prior = host, source, edits, prior
        self.base = source.text
        self.selector = EditSelector(edits, guards)
        self.accepted = False
        self.applied: list[int] = []
        self.needed: list[int] = []
        self.interesting: dict[tuple[int, ...], str] = {}  # texts judged interesting, until accepted
        self.shadows: dict[tuple[int, ...], str] = {}  # made for a judge, kept for the acceptance
        self.shadow_base = host.shadow()
        # What rejected removals of statements did (engine/person/person.py); their shadows are made for that, not kept.
        self.record = host.rejection_recorder(self.shadow_base) if learns else None
        self.together = together
        self.regions = None if together else regions_of(
            [min(patch.start for patch in edit.patches) for edit in edits], region_starts(source))
        self.region_of = {i: number for number, region in enumerate(self.regions or []) for i in region}
        self.region_text: dict[int, str] = {}  # per region, the text of what it applied so far

    def candidate(self, indices: list[int]) -> str:
        return render(self.base, self.selector.patches(indices))

    def shadow_of(self, indices: list[int], text: str) -> str | None:
        if self.shadow_base is None:
            return None
        key = tuple(sorted(indices))
        made = self.shadows.get(key)
        if made is None:
            made = self.shadows[key] = aligned(text, render(self.shadow_base, self.selector.patches(indices)))
        return made

    def test(self, indices: list[int], cancel: Cancel, expected: bool = False) -> bool:
        text = self.candidate(indices)
        if self.regions is not None and len({self.region_of[i] for i in indices}) == 1:
            if text == self.region_text.get(self.region_of[indices[0]]):
                return False  # moot on top of the region's own edits (the best is still the base)
        record, shadow_base = self.record, self.shadow_base
        learn = None if record is None or shadow_base is None else (  # a recorder implies a base shadow
            lambda result: record(result, aligned(text, render(shadow_base, self.selector.patches(indices)))))
        statements_of = self.host.statements_of(lambda: self.shadow_of(indices, text))
        verdict = self.host.test(text, cancel, statements_of, learn, expected or self.expects(indices))
        if verdict:
            self.interesting[tuple(sorted(indices))] = text
        return verdict

    def fold_test(self, indices: list[int], cancel: Cancel) -> bool:
        """`test` for a text the search expects accepted: a round's fold (edits each accepted alone,
        `search/driver.py`) or the regions' union."""
        return self.test(indices, cancel, expected=True)

    def expects(self, indices: list[int]) -> bool:
        """Whether the text of `indices` is expected accepted: edits the map expects to go together
        (`together`: in the corpus, 3 in 4 such candidates were)."""
        return self.together

    def on_accept(self, applied: list[int]) -> None:
        self.accepted = True
        text = self.interesting.pop(tuple(sorted(applied)), None)
        self.interesting.clear()  # the others were stale
        text = self.candidate(applied) if text is None else text
        self.host.accept(text, self.shadow_of(applied, text))
        self.shadows.clear()

    def region_accept(self, number: int, applied: list[int]) -> None:
        key = tuple(sorted(applied))
        text = self.region_text[number] = self.interesting.get(key) or self.candidate(applied)
        self.host.show_smaller(text)

    def run(self, pool: ThreadPoolExecutor) -> bool:
        host = self.host
        if self.regions is None:
            strategy: Strategy = Halves(len(self.edits)) if self.together else ProbDD(len(self.edits), prior=self.prior)
            search(
                strategy, self.test, pool, host.jobs, self.on_accept, host.interrupted, host.tick,
                new_event=host.new_cancel_event, on_discard=host.discarded, fold_test=self.fold_test,
            )
            self.applied, self.needed = strategy.applied, strategy.open_or_needed()
        else:  # independent top-level statements: one chain each, then a merge (search/regions.py)
            outcome = search_regions(
                self.regions, self.prior, self.test, pool, host.jobs,
                host.interrupted, host.tick, host.new_cancel_event, host.discarded, self.region_accept,
                self.fold_test,
            )
            self.applied, self.needed = outcome.applied, outcome.needed
            if self.applied and not host.offer_waiting():  # a person's text waiting replaces it
                self.on_accept(self.applied)
        return self.accepted


def region_starts(source: Source) -> list[int]:
    """Where the search's independent regions begin (search/regions.py): each top-level
    statement, and each statement of a top-level function's or class's body."""
    starts = []
    for node in source.tree.body:
        starts.append(source.line_start(first_line(node)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            starts.extend(source.line_start(first_line(inner)) for inner in node.body)
    return sorted(starts)
