"""Edits as text patches over node spans, and rendering any set of them at once.

An `Edit` is one reduction step a pass proposes (drop this statement, replace
that call by its argument...). It is made of `Patch`es: a patch replaces the span
[start, end) of the base text by what its `build` function returns. `build`
receives a `render(start, end)` callback giving the *edited* text of any span
inside the patch, so nested edits compose: replacing an `if` by its body keeps
whatever was already removed inside the body. `keeps` lists those inner spans;
the engine uses it to check that no frozen code is dropped.

Patches of chosen edits must nest or be disjoint; `render` drops a patch that
crosses an earlier one (first chosen wins). Block guards are patches that are
always applied: when every statement of a block is removed they put `pass` back,
so a candidate never fails to parse just because a block became empty.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import partial

from autodd_lsp.syntax.source import Span

Render = Callable[[int, int], str]


@dataclass(frozen=True, eq=False)
class Patch:
    start: int
    end: int
    build: Callable[[Render], str]
    keeps: tuple[Span, ...] = ()
    guard: bool = False  # block guards sit outside edits that share their span


@dataclass(frozen=True, eq=False)
class Edit:
    patches: tuple[Patch, ...]
    pass_name: str
    weight: int = 0  # characters it removes, roughly: bigger edits are tried first
    # The pass expects it refused while the code around it stays (engine/searching/fixpoint.py: tried
    # in a cycle that confirms, not before); never decides anything by itself.
    likely_refused: bool = False


def delete(start: int, end: int) -> Patch:
    return Patch(start, end, lambda render: "")


def replace(start: int, end: int, text: str) -> Patch:
    return Patch(start, end, lambda render: text)


def replace_with_span(start: int, end: int, kept: Span, wrap: str = "{}") -> Patch:
    """Replace [start, end) by the (edited) text of `kept`, formatted into `wrap`."""
    return Patch(start, end, lambda render: wrap.format(render(*kept)), keeps=(kept,))


def rewrite(text: str, start: int, end: int, new: str) -> list[Patch]:
    """Patches that turn text[start:end] into `new`, touching only the characters that differ.

    What stays is the base text itself, so it keeps its origin (syntax/origin.py): a
    reformatted failing line still comes from its statement, and the editor's diff is small.
    """
    old = text[start:end]
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return [
        replace(start + i1, start + i2, new[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def block_guard(start: int, end: int, indent: str) -> Patch:
    def build(render: Render) -> str:
        text = render(start, end)
        return text if _has_code(text) else text + f"{indent}pass\n"

    return Patch(start, end, build, keeps=((start, end),), guard=True)


def _has_code(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def _sort_key(patch: Patch):
    # Outer patches first; at equal spans a guard is outer.
    return (patch.start, -patch.end, 0 if patch.guard else 1)


def _crosses(a: Patch, b: Patch) -> bool:
    if a.start == b.start and a.end == b.end:
        return a.guard == b.guard  # two edits on one span: only the first applies
    nested = (a.start <= b.start and b.end <= a.end) or (b.start <= a.start and a.end <= b.end)
    disjoint = a.end <= b.start or b.end <= a.start
    return not (nested or disjoint)


def select_patches(edits: Sequence[Edit], guards: Sequence[Patch]) -> list[Patch]:
    """The patches to apply: guards, then each edit whose patches fit with those chosen."""
    return EditSelector(edits, guards).patches(range(len(edits)))


class EditSelector:
    """`select_patches` for many subsets of one list of edits (a search's candidates).

    Which edits cross a guard, and which cross each other, depends only on the
    edits: it is worked out once here, so that a candidate costs only its own
    edits, not a comparison with every patch of the file. Likewise which guards
    enclose each edit: a guard with no chosen patch inside renders its span
    unchanged, so only the enclosing ones are applied (a file has a guard per block).
    """

    def __init__(self, edits: Sequence[Edit], guards: Sequence[Patch]) -> None:
        self.edits = list(edits)
        self.guards = list(guards)
        placed_guards = _Intervals(guards)
        self._blocked = [any(placed_guards.crossed_by(p) for p in edit.patches) for edit in self.edits]
        self._conflicts = _crossing_pairs(self.edits)
        tree = _GuardTree(self.guards)
        self._enclosing = [tree.enclosing(edit.patches) for edit in self.edits]

    def patches(self, indices: Iterable[int]) -> list[Patch]:
        """The patches of the edits at `indices`, taken in increasing order, first chosen wins,
        with the guards around them."""
        chosen: set[int] = set()
        guards: set[int] = set()
        selected: list[Patch] = []
        for index in sorted(indices):
            if self._blocked[index] or not chosen.isdisjoint(self._conflicts.get(index, ())):
                continue
            chosen.add(index)
            selected.extend(self.edits[index].patches)
            guards.update(self._enclosing[index])
        selected = [self.guards[g] for g in sorted(guards)] + selected  # guards first, as given
        selected.sort(key=_sort_key)
        return selected


class _GuardTree:
    """Block guards nest (blocks do): the guards around a patch are the innermost one
    and its ancestors. If some do not nest, every guard counts as around every patch."""

    def __init__(self, guards: Sequence[Patch]) -> None:
        self._order = sorted(range(len(guards)), key=lambda g: (guards[g].start, -guards[g].end))
        self._starts = [guards[g].start for g in self._order]
        self._guards = guards
        self._parent: dict[int, int | None] | None = {}
        open_guards: list[int] = []  # the chain of guards around the current start
        for g in self._order:
            while open_guards and guards[open_guards[-1]].end <= guards[g].start:
                open_guards.pop()
            if open_guards and guards[open_guards[-1]].end < guards[g].end:
                self._parent = None  # crossing guards
                break
            self._parent[g] = open_guards[-1] if open_guards else None
            open_guards.append(g)

    def enclosing(self, patches: Iterable[Patch]) -> frozenset[int]:
        if self._parent is None:
            return frozenset(range(len(self._guards)))
        found: set[int] = set()
        for patch in patches:
            if patch.start == patch.end:  # an insertion may also touch the end of a guard
                found.update(g for g in self._order if self._guards[g].start <= patch.start <= self._guards[g].end)
                continue
            position = bisect_right(self._starts, patch.start)
            guard = self._order[position - 1] if position else None
            while guard is not None and guard not in found:
                if self._guards[guard].end >= patch.end:
                    found.add(guard)  # and, nesting, all of its ancestors
                guard = self._parent[guard]
        return frozenset(found)


def _crossing_pairs(edits: Sequence[Edit]) -> dict[int, set[int]]:
    """For each edit, the other edits one of whose patches crosses one of its own (most have none)."""
    owned = sorted(((p, i) for i, edit in enumerate(edits) for p in edit.patches), key=lambda pair: pair[0].start)
    conflicts: dict[int, set[int]] = {}
    for position, (patch, owner) in enumerate(owned):
        for other, other_owner in owned[position + 1 :]:
            if other.start > patch.end:
                break  # sorted by start: no later patch overlaps this one
            if other_owner != owner and _crosses(patch, other):
                conflicts.setdefault(owner, set()).add(other_owner)
                conflicts.setdefault(other_owner, set()).add(owner)
    return conflicts


class _Intervals:
    """Patches sorted by start, to find those a new one crosses without comparing with all.

    A patch crossing [s, e) overlaps it, so it starts before e and, being at most
    `longest` long, after s - longest: only that window is compared (ends
    included, for insertions at one point).
    """

    def __init__(self, patches: Iterable[Patch] = ()) -> None:
        self._patches = sorted(patches, key=lambda p: p.start)
        self._starts = [p.start for p in self._patches]
        self._longest = max((p.end - p.start for p in self._patches), default=0)

    def crossed_by(self, patch: Patch) -> bool:
        lo = bisect_left(self._starts, patch.start - self._longest)
        hi = bisect_right(self._starts, patch.end)  # also a same-point insertion
        return any(_crosses(patch, other) for other in self._patches[lo:hi])


def render(text: str, patches: Sequence[Patch]) -> str:
    """Apply sorted, properly nested patches to `text`.

    A patch's `build` may render any span of the base text, also one outside the
    patch (inlining a function renders the function's body at the call site):
    the text it gets has every chosen patch inside that span applied.
    """
    order = {id(p): i for i, p in enumerate(patches)}
    starts = [p.start for p in patches]

    def render_span(start: int, end: int, caller: Patch | None = None) -> str:
        window = patches[bisect_left(starts, start) : bisect_right(starts, end)]
        inside = [p for p in window if p.end <= end and p is not caller]
        if caller is not None:
            # A patch never renders itself or a patch around it with the very same span.
            rank = order[id(caller)]
            inside = [
                p
                for p in inside
                if not (p.start == caller.start and p.end == caller.end and order[id(p)] < rank)
            ]
        return _render_range(start, end, inside)

    def _render_range(lo: int, hi: int, inside: list[Patch]) -> str:
        out: list[str] = []
        pos = lo
        i = 0
        while i < len(inside):
            patch = inside[i]
            j = i + 1
            while j < len(inside) and inside[j].end <= patch.end and inside[j].start < patch.end:
                j += 1  # skip patches nested in this one: its build renders them
            out.append(text[pos : patch.start])
            if patch.guard and j == i + 1:
                out.append(text[patch.start : patch.end])  # nothing changed in the block: it still has code
            else:
                out.append(patch.build(partial(render_span, caller=patch)))
            pos = patch.end
            i = j
        out.append(text[pos:hi])
        return "".join(out)

    return render_span(0, len(text))
