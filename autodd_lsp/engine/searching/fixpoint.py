"""The fixpoint over pass groups: run them in order until a whole cycle changes nothing.

The groups (`passes.Group`: statements, canonicalize, simplify, slow) run in order, again and again,
until a cycle changes nothing; then the tidy passes run once. A person's text, adopted between
groups (`FixpointHost.adopt_offer`), starts the cycle again from it; one adopted after the tidy
passes starts the whole loop again. Each pass proposes edits on the best text, level by level for
passes with levels (outer statements first, re-parsing in between); edits that would change frozen
code are dropped (`protection.py`), and so are the edits found needed before whose key has not
changed since (`memory.py`: for a fine-grained pass the statement around the edit, for a
statement-level one the statements that share a name with it). Each remaining set is searched by
`pass_search.PassSearch`. ProbDD's prior for a pass is the share of its edits found needed in its
previous round. For a pass that removes statements (`uses_map`), the removals of what holds the
original's failing statement are not proposed, and the edits that remove only code the original
never ran are tried first, together, then by halves (`run_map.py`), then in the same way those that
remove only code outside the slice of the failing statement (`run_slice.py`); those refused one by
one are left out of the search of the rest at that level. The removals of a binding that the
original's run read from code that stays (`run_map.read_by_the_run`: `import os` while `os.environ`
is read) are likely refused until that code goes: they are left out of every cycle until one changes
nothing, and then tried in a cycle that confirms (each alone, after the rest), but for those one
recording run of the best text shows refused (`best_run.py`: a read it evaluated would be left
without a binding); a removal that cycle accepts starts the cycles again. So the fixpoint is the
same kind as without them: a cycle that tried every edit no run, and no remembered verdict, had
refused, and changed nothing. A removal left out that way is tried again as soon as a change takes
its last reader away (`_freed`), in the same cycle, before the finer passes work on code that would
go anyway.

Every accepted text is strictly smaller (`metrics.order_key`), so this ends. The same loop serves
the engine and the library (`library.py`): what differs is the host, which judges candidates and
says when to stop.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol

from autodd_lsp.engine.rules.protection import respects_frozen
from autodd_lsp.engine.searching.best_run import refused_by_the_best_run
from autodd_lsp.engine.searching.memory import needed_key, what_it_does
from autodd_lsp.engine.searching.pass_search import PassSearch, SearchHost
from autodd_lsp.engine.searching.run_map import (
    FailingPath,
    holds,
    map_wanted,
    never_ran,
    read_by_the_run,
)
from autodd_lsp.engine.searching.run_slice import outside_the_slice
from autodd_lsp.passes import (
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    proposed_edits,
    registered_passes,
)
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span
from autodd_lsp.values import RecordedValues, ValueLookup

LIKELY_NEEDED = 0.6  # ProbDD's prior for removing what the run read: tried alone, after the rest


class FixpointHost(SearchHost, Protocol):
    """What the fixpoint needs beyond a search's host."""

    def best_so_far(self) -> str:
        """The smallest text that fails the same way so far (what passes propose edits on)."""

    def reduced_original(self) -> str:
        """The text being reduced (what tidy passes compare with)."""

    @property
    def cancelled(self) -> bool:
        """The whole reduction is to stop."""

    def pass_started(self, reduction_pass: ReductionPass) -> RecordedValues | None:
        """`reduction_pass` starts; for one that uses values, they are waited for and returned."""

    def adopt_offer(self) -> bool:
        """Go on from a person's text now, if one waits (True if one was adopted)."""

    def protected(self, source: Source, shadow: str | None) -> list[Span]:
        """The spans of `source` (whose shadow is `shadow`) no pass may touch (frozen code, and what
        the run protects besides)."""

    def run_map(self) -> RecordedValues | None:
        """Which statements the original ran (`run_map.py`), once a pass that uses it has started; None: no map."""

    def failing_path(self) -> FailingPath | None:
        """The original's statements its failure came through (`run_map.py`); None: unknown."""

    def best_run_map(self, text: str) -> ValueLookup | None:
        """One recording run of `text` (the best): which of its statements ran, by its own offsets
        (`best_run.py`); None: none (no recording, or it did not fail as the original does). Asked
        again for the same text, the same answer without another run."""

    def values_now(self, reduction_pass: ReductionPass) -> tuple[bool, RecordedValues | None]:
        """Without waiting or telling anyone: whether what `pass_started` would wait for has come,
        and what it would return (a twin's passes start so, `lookahead.py`)."""

    def refused_without_a_run(self, edit: Edit, error: str) -> None:
        """`edit` of the best text was refused by what its last run showed, with `error` (what a
        person asking why a line is kept is told: `person.Learned`)."""

    def pass_failed(self, reduction_pass: ReductionPass, error: BaseException) -> None:
        """`reduction_pass` raised `error` proposing its edits (our bug): it is skipped there."""


class Predictor(Protocol):
    """What the fixpoint tells the one who predicts its next searches (`lookahead.Lookahead`)."""

    def ahead(self, fixpoint: Fixpoint, cursor: Cursor) -> None:
        """The fixpoint is at `cursor`: predict from here, unless a prediction still holds."""

    def stop(self) -> None:
        """The cycles are over: predict nothing more."""


@dataclass(frozen=True)
class Cursor:
    """Where the fixpoint is: the start of a level of a pass (group, place in it), with the
    pass's values, and whether the cycle and the pass changed something before it."""

    group: int
    member: int
    level: int
    values: RecordedValues | None
    cycle_changed: bool
    pass_changed: bool


class Fixpoint:
    def __init__(self, host: FixpointHost, passes: list[ReductionPass] | None = None) -> None:
        self.host = host
        self.passes = registered_passes() if passes is None else passes
        self._needed: set[tuple] = set()  # keys of edits found needed (`memory.needed_key`)
        self._needed_share: dict[str, float] = {}  # per pass: share of edits found needed last round
        self._pass_context: PassContext | None = None
        self._valued_context: PassContext | None = None  # the same, with the original's values
        self._defer = True  # removals of what the run read wait for a cycle that confirms (`_later`)
        self._deferred = False  # this cycle left some out
        self._waiting: dict[str, set[tuple]] = {}  # per pass: what the removals this cycle left out do
        self.lookahead: Predictor | None = None  # runs the next searches' candidates ahead (`lookahead.py`)

    def forget_needed(self) -> None:
        """What follows depends on a new text alone (a person's, adopted)."""
        self._needed.clear()
        self._needed_share.clear()

    def run(self, pool: ThreadPoolExecutor, cycles: bool = True, tidy: bool = True) -> None:
        """The groups' cycles until one changes nothing (`cycles`), then the tidy passes (`tidy`);
        again from a person's text adopted at the end."""
        host, passes = self.host, self.passes
        adopted = True
        while adopted and not host.cancelled:
            if cycles:
                self._cycles(pool)
            cycles = True  # an adopted text is reduced in full
            if self.lookahead is not None:
                self.lookahead.stop()  # nothing it predicts is asked for any more
            for tidy_pass in (p for p in passes if p.group == Group.TIDY and tidy):
                self.run_pass(tidy_pass, pool)
            adopted = host.adopt_offer()

    def _cycles(self, pool: ThreadPoolExecutor, start: Cursor | None = None) -> None:
        """Cycles until one changes nothing; the first from `start` (a twin's, `lookahead.py`)."""
        changed = True
        while changed and not self.host.cancelled:
            if start is None:
                self._deferred = False
                self._waiting.clear()
            changed, start = self._cycle(pool, start), None
            if not changed and self._deferred:
                changed, self._defer = True, False  # one cycle that tries them too
            elif changed:
                self._defer = True

    def _cycle(self, pool: ThreadPoolExecutor, start: Cursor | None) -> bool:
        """One cycle over the groups (from `start`); whether it changed anything."""
        groups = self._groups()
        changed = start.cycle_changed if start is not None else False
        for g in range(start.group if start is not None else 0, len(groups)):
            members = groups[g]
            resumed = start is not None and g == start.group
            for m in range(start.member if start is not None and resumed else 0, len(members)):
                if self.host.interrupted():
                    break
                at = start if start is not None and resumed and m == start.member else None
                if self.run_pass(members[m], pool, (g, m, changed), at):
                    changed = True
                    self._freed(pool)
            if self.host.adopt_offer():
                return True  # the cycle starts again from the person's text
        return changed

    def _groups(self) -> list[list[ReductionPass]]:
        order = sorted({p.group for p in self.passes} - {Group.TIDY})
        return [[p for p in self.passes if p.group == group] for group in order]

    def twin(self, host: FixpointHost) -> Fixpoint:
        """A copy of this fixpoint's state on `host`, to be run from a cursor (`lookahead.py`)."""
        twin = Fixpoint(host, self.passes)
        twin._needed, twin._needed_share = set(self._needed), dict(self._needed_share)
        twin._pass_context, twin._valued_context = self._pass_context, self._valued_context
        twin._defer, twin._deferred = self._defer, self._deferred
        twin._waiting = {name: set(keys) for name, keys in self._waiting.items()}
        return twin

    def resume(self, pool: ThreadPoolExecutor, start: Cursor) -> None:
        """The cycles from `start` on, as `run` would go on from there (no tidy passes)."""
        self._cycles(pool, start)

    def _freed(self, pool: ThreadPoolExecutor) -> None:
        """The removals left out this cycle because the run read what they remove, tried again
        as soon as a change took the last such reader away (`import os` once `os.environ.get`
        went), before the finer passes work on code that would go anyway; again after each
        change, until none is freed."""
        by_name = {p.name: p for p in self.passes}
        freed_some = True
        while freed_some and not self.host.interrupted():
            freed_some = False
            for name in [name for name, keys in self._waiting.items() if keys]:
                reduction_pass, keys = by_name[name], self._waiting[name]
                level = 0
                while not self.host.interrupted():
                    ctx, edits = self._proposed(reduction_pass, level, None)
                    if edits is None:
                        break
                    free = self._free(ctx.source, [e for e in edits if what_it_does(ctx.source, e) in keys])
                    if free:
                        keys.difference_update(what_it_does(ctx.source, e) for e in free)
                        one = PassSearch(self.host, ctx.source, ctx.guards, free, reduction_pass.prior,
                                         learns=reduction_pass.group == Group.STATEMENTS)
                        freed_some |= one.run(pool)
                    if not reduction_pass.has_levels:
                        break
                    level += 1

    def _free(self, source: Source, edits: list[Edit]) -> list[Edit]:
        """`edits` less those a reader that stays still needs (`run_map.read_by_the_run`)."""
        lookup = self._lookup()
        if lookup is None or not edits:
            return []
        named = set(read_by_the_run(source, edits, lookup))
        return [edit for index, edit in enumerate(edits) if index not in named]

    def run_pass(self, reduction_pass: ReductionPass, pool: ThreadPoolExecutor,
                 position: tuple[int, int, bool] | None = None, start: Cursor | None = None) -> bool:
        """Search the pass's edits, level by level; whether anything was accepted. `position`: the
        pass's group and place in it, and whether its cycle changed something before it (where the
        lookahead starts its twin); `start`: go on from that cursor (a twin)."""
        if start is None:
            values, level, changed = self.host.pass_started(reduction_pass), 0, False
        else:
            values, level, changed = start.values, start.level, start.pass_changed
        while not self.host.interrupted():
            if position is not None and self.lookahead is not None:
                group, member, cycle_changed = position
                self.lookahead.ahead(self, Cursor(group, member, level, values, cycle_changed, changed))
            ctx, proposed = self._proposed(reduction_pass, level, values)
            if proposed is None:
                break
            source, edits = ctx.source, self._unremembered(reduction_pass, ctx.source, proposed)
            if edits and reduction_pass.uses_map:
                again = partial(self._proposed, reduction_pass, level, values)
                mapped, refused = self._map_first(ctx, edits, pool, reduction_pass, again)
                if mapped:
                    changed = True
                    ctx, proposed = again()
                    source, edits = ctx.source, self._unremembered(reduction_pass, ctx.source, proposed or [])
                edits = [e for e in edits if what_it_does(source, e) not in refused]
            if edits and self._search(ctx, edits, pool, reduction_pass):
                changed = True
            if not reduction_pass.has_levels:
                break
            level += 1
        return changed

    def _unremembered(self, reduction_pass: ReductionPass, source: Source, edits: list[Edit]) -> list[Edit]:
        """`edits` less those found needed before whose key is unchanged (`memory.py`)."""
        if reduction_pass.remembers_needed is Remembers.NOTHING:
            return edits
        return [edit for edit in edits if needed_key(reduction_pass, source, edit) not in self._needed]

    def _proposed(self, reduction_pass: ReductionPass, level: int,
                  values: RecordedValues | None) -> tuple[PassContext, list[Edit] | None]:
        """The context of the best text, and the pass's edits at `level` (None: it has no such
        level) that respect frozen code, less, for a pass that uses the map, the removals of
        what holds the failing statement (`_off_the_path`)."""
        ctx = self._context(values if reduction_pass.uses_values else None)
        edits = proposed_edits(reduction_pass, ctx, level, self.host.pass_failed)
        if edits is None:
            return ctx, None
        edits = [e for e in edits if respects_frozen(e, ctx.frozen)]
        if reduction_pass.rewrites_expressions and edits:
            edits = self._in_the_users_words(edits)
        return ctx, self._off_the_path(ctx.source, edits) if reduction_pass.uses_map and edits else edits

    def _in_the_users_words(self, edits: list[Edit]) -> list[Edit]:
        """`edits` less those that rewrite the failing statement's own text (a compound's header,
        not its body): the line the user saw stays as written, and what computes its operands
        stays an expression (values may stand in for inputs further up, never there)."""
        held = self._held()
        if not held:
            return edits
        return [edit for edit in edits
                if not any(holds(held, patch.start, max(patch.end, patch.start + 1)) for patch in edit.patches)]

    def _held(self) -> list[int]:
        """The best text's offsets that came from the original's failing statement (none: unknown)."""
        path = self.host.failing_path()
        return path.held_offsets(self.host.shadow()) if path is not None else []

    def _lookup(self) -> ValueLookup | None:
        """The original's run map read through the best text's shadow; None: no map."""
        recorded = self.host.run_map()
        return None if recorded is None else ValueLookup(recorded, self.host.shadow())

    def _context(self, values: RecordedValues | None) -> PassContext:
        """What passes look at: the best text parsed, with its frozen spans and block guards,
        and for the passes that use them (they waited for them), the original's values.

        Kept while the best text stays the same: most passes and levels end
        without a change, and parsing a big file for each would leave the
        runners idle meanwhile. A pass that does not wait for the values never
        sees them, whenever they arrive: the result is the same for every -j.
        """
        best = self.host.best_so_far()
        context = self._pass_context
        if context is None or context.source.text != best:
            source = Source(best)
            context = self._pass_context = PassContext(source, self.host.protected(source, self.host.shadow()),
                                                       original=self.host.reduced_original(), failing=tuple(self._held()))
            self._valued_context = None
        if values is None:
            return context
        if self._valued_context is None:
            self._valued_context = replace(context, values=ValueLookup(values, self.host.shadow()))
        return self._valued_context

    def _off_the_path(self, source: Source, edits: list[Edit]) -> list[Edit]:
        """`edits` without the removals of what holds the original's failing statement (the map's)."""
        path = self.host.failing_path() if map_wanted() else None
        crossing = set() if path is None else path.crossed_by(source.text, self.host.shadow(), edits)
        return [edit for index, edit in enumerate(edits) if index not in crossing]

    def _map_first(self, ctx: PassContext, edits: list[Edit], pool: ThreadPoolExecutor,
                   reduction_pass: ReductionPass,
                   again: Callable[[], tuple[PassContext, list[Edit] | None]]) -> tuple[bool, set[tuple]]:
        """The edits that remove only code the original never ran, tried together, then by halves;
        then, the same way, those that remove only code outside the slice of the failing statement
        (`run_slice.py`): whether some were accepted, and what those refused one by one did
        (`_what_it_does`). `again`: the context and the edits, proposed again after a change."""
        if self.host.run_map() is None:
            return False, set()
        path = self.host.failing_path()

        def outside(source: Source, edits: list[Edit], lookup: ValueLookup) -> list[int]:
            """Outside the slice, less what a statement that stays still reads (that waits, `_later`)."""
            held = path.held_offsets(lookup.shadow) if path is not None else []
            read = set(read_by_the_run(source, edits, lookup))
            return [i for i in outside_the_slice(source, edits, lookup, held) if i not in read]

        groups: list[Callable[[Source, list[Edit], ValueLookup], list[int]]] = [never_ran, outside]
        accepted, refused = False, set[tuple]()
        for group in groups:
            lookup = self._lookup()
            if lookup is None:
                break
            chosen = [edits[i] for i in group(ctx.source, edits, lookup) if what_it_does(ctx.source, edits[i]) not in refused]
            if not chosen:
                continue
            one = PassSearch(self.host, ctx.source, ctx.guards, chosen, reduction_pass.prior,
                             learns=reduction_pass.group == Group.STATEMENTS, together=True)
            changed = one.run(pool)
            applied = set(one.applied)
            refused |= {what_it_does(ctx.source, chosen[i]) for i in one.needed if i not in applied}
            if changed:
                accepted = True
                ctx, proposed = again()
                edits = proposed or []
        return accepted, refused

    def _later(self, source: Source, edits: list[Edit], prior: float,
               reduction_pass: ReductionPass) -> tuple[list[Edit], float | list[float]]:
        """The edits likely refused while the code around them stays wait for a cycle that
        confirms (a cycle that changed nothing otherwise): left out before, there tried each
        alone, after the rest (prior `LIKELY_NEEDED`). Likely refused: what the pass says
        (`Edit.likely_refused`), and for a pass that uses the map, a removal of a binding the
        original's run read from code that stays (`run_map.read_by_the_run`). Only once the
        original's run is known (no map, no guess)."""
        lookup = self._lookup()
        if lookup is None:
            return edits, prior
        later = {index for index, edit in enumerate(edits) if edit.likely_refused}
        read = set(read_by_the_run(source, edits, lookup)) if reduction_pass.uses_map else set()
        later |= read
        if not later:
            return edits, prior
        if self._defer:
            self._deferred = True
            self._waiting.setdefault(reduction_pass.name, set()).update(what_it_does(source, edits[i]) for i in read)
            return [edit for index, edit in enumerate(edits) if index not in later], prior
        refused = self._refused_by_the_best_run(source, edits, read)
        kept = [index for index in range(len(edits)) if index not in refused]
        return [edits[index] for index in kept], [LIKELY_NEEDED if index in later else prior for index in kept]

    def _refused_by_the_best_run(self, source: Source, edits: list[Edit], read: set[int]) -> set[int]:
        """Of the removals that waited (`read`), those the best text's own run shows refused
        (`best_run.py`); its recording is made once per best text, at the cycle that confirms."""
        if not read:
            return set()
        best = self.host.best_run_map(source.text)  # recorded once per text, by the host
        if best is None:
            return set()
        held = self._held()
        chosen = sorted(read)
        refused = refused_by_the_best_run(source, [edits[i] for i in chosen], best, held)
        for i, error in refused.items():
            self.host.refused_without_a_run(edits[chosen[i]], error)
        return {chosen[i] for i in refused}

    def _search(self, ctx: PassContext, edits: list[Edit], pool: ThreadPoolExecutor, reduction_pass: ReductionPass) -> bool:
        share = self._needed_share.get(reduction_pass.name, reduction_pass.prior)
        prior = min(0.5, max(0.05, share))
        edits, priors = self._later(ctx.source, edits, prior, reduction_pass)
        if not edits:
            return False
        one = PassSearch(self.host, ctx.source, ctx.guards, edits, priors, learns=reduction_pass.group == Group.STATEMENTS)
        accepted = one.run(pool)
        if not self.host.interrupted():
            unapplied = len(edits) - len(one.applied)
            self._needed_share[reduction_pass.name] = unapplied / len(edits)
            if reduction_pass.remembers_needed is not Remembers.NOTHING:
                self._needed.update(needed_key(reduction_pass, ctx.source, edits[i]) for i in one.needed)
        return accepted

