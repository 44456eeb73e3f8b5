"""What the fixpoint remembers of the edits it found needed, and when they are new again.

An edit a pass's search left unapplied (refused alone, `PassSearch.needed`) is
not proposed again in a later cycle while its key is the same
(`fixpoint.py`). The key says what made it needed, per pass
(`ReductionPass.remembers_needed`, `passes.Remembers`):

- `BY_STATEMENT` (the fine-grained passes: expressions, constants, literals,
  elements): the text of the innermost statement around each patch, the
  patch's place in it and its replacement, and the own text of every other
  statement that names a call's keyword the patch takes away (`edit_key`).
  Any change to that statement (a line removed from a string it holds) makes
  the edit new again, and so does a change to a reader of the keyword
  elsewhere: `n_head=4` in `GPTConfig(block_size=64, n_head=4)` is refused
  while `assert config.n_embd % config.n_head == 0` runs, and is tried again
  once that assert went, though the call's own text never changed (before,
  such an argument stayed in the result, and a second reduction of it removed
  it). Only keywords: what other names a fine-grained edit takes away
  (`x.foo(a, b)` -> `a`) are read all over, and retrying on every change to
  any of their readers cost the 19 benchmark cases 12% more candidates for
  sizes that moved no more than keywords alone.
- `BY_NAMES` (the statement-level passes: statements, flatten, parameters):
  what the edit replaces and its replacement, whether a statement it removes is
  alone in its block, and the own text (a compound statement's header) of every
  other statement that shares an identifier with it (`names_key`). A removal is
  refused because something reads what it binds (`import os` while
  `os.environ` is read), or uses what it did to an object its names name
  (`parser.add_argument(...)` while `parser` parses): both readers share a name
  with it, and once one changes or goes, the removal is tried again. The text
  of the statement alone would be too little (`import os` would stay after its
  reader went); the text of the block around it too much (the statement pass
  tried every statement of a big function again after any change in it, which
  is where its candidates went in the later cycles). A statement alone in its
  block leaves `pass` when removed, which is refused; once a sibling arrives it
  may go.

Identifiers are names, attributes, parameters, keywords and imported names
(`syntax/bindings.own_identifiers`), less `self`, `cls` and the builtins the
program does not bind, which nearly every statement shares (a parameter named
`help` or `type` counts: argparse's `help=None` went once its readers did). What no name shows (a global set through a
call, an order that matters) is missed: such an edit is not tried again until
a statement that shares a name with it changes. That costs a reduction not
tried, never a wrong result: every candidate is still judged by a run. The
cycle that confirms (`fixpoint.py`) does not try remembered edits either, as
for the fine-grained passes: trying each alone there cost more than it saved
(`notes/parallelism.md`, third round).

`what_it_does` is the plainer key the run map's steps use: the text an edit
replaces and its replacement, the same removal after other code went.
"""

from __future__ import annotations

import ast
import bisect
import re
from functools import lru_cache

from autodd_lsp.engine.searching.run_map import inside
from autodd_lsp.passes import ReductionPass, Remembers
from autodd_lsp.syntax.bindings import BUILTIN_NAMES, bound_names, own_identifiers
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span, statement_bodies

_WORD = re.compile(r"[A-Za-z_]\w*")
SHARED_BY_ALL = frozenset({"self", "cls"})  # names nearly every statement of a class shares


def needed_key(reduction_pass: ReductionPass, source: Source, edit: Edit) -> tuple:
    """The key `reduction_pass`'s edit is remembered by, once found needed."""
    if reduction_pass.remembers_needed is Remembers.BY_NAMES:
        return names_key(source, edit)
    return edit_key(source, edit)


def edit_key(source: Source, edit: Edit) -> tuple:
    """What an edit does, wherever its statement moved: the text of the innermost
    statement around each patch, the patch's place in it, and the replacement
    (rendered without other edits); and the own text of every other statement that
    names a call's keyword the edit takes away (in the removed text, not in its
    replacement). Any change to that statement -- e.g. a line removed from a string
    it holds -- or to one of those makes the edit new again."""
    index = _names_index(source)
    text = source.text
    plain = lambda start, end: text[start:end]  # noqa: E731
    parts = []
    gone: set[str] = set()
    for patch in edit.patches:
        start, end = _innermost_statement(source, patch.start, patch.end)
        replacement = patch.build(plain)
        parts.append((text[start:end], patch.start - start, patch.end - start, replacement))
        gone |= index.identifiers_within(patch.start, patch.end, keywords=True) - set(_WORD.findall(replacement))
    spans = [(patch.start, patch.end) for patch in edit.patches]
    return (edit.pass_name, tuple(parts), index.own_texts_naming(gone - index.shared, spans))


def names_key(source: Source, edit: Edit) -> tuple:
    """What a statement-level edit does, whether a statement it removes is alone in its
    block, and the own text of every other statement that shares an identifier with it."""
    index = _names_index(source)
    spans = [(patch.start, patch.end) for patch in edit.patches]
    names = {name for start, end in spans for name in index.identifiers_within(start, end)} - index.shared
    removed = sorted({number for start, end in spans for number in index.statements_within(start, end)})
    sharing = index.own_texts_naming(names, spans)
    return (edit.pass_name, what_it_does(source, edit), tuple(index.statements[n].alone for n in removed), sharing)


def what_it_does(source: Source, edit: Edit) -> tuple:
    """The text an edit replaces and its replacement: the same removal after other code went."""
    text = source.text
    plain = lambda start, end: text[start:end]  # noqa: E731
    return tuple((text[patch.start:patch.end], patch.build(plain)) for patch in edit.patches)


class _Statement:
    __slots__ = ("alone", "names", "own_text", "span")

    def __init__(self, span: Span, own_text: str, names: frozenset[str], alone: bool) -> None:
        self.span, self.own_text, self.names, self.alone = span, own_text, names, alone


class _NamesIndex:
    """A text's identifiers by where they begin, its statements with their own names (in
    `ast.walk` order), which statements name each identifier, and the statements by start."""

    def __init__(self, source: Source) -> None:
        found: list[tuple[int, int, str, bool]] = []  # start, end, identifier, a call's keyword
        self.statements: list[_Statement] = []
        self.naming: dict[str, list[int]] = {}  # identifier -> the statements whose own code names it
        self.shared = SHARED_BY_ALL | (BUILTIN_NAMES - set(bound_names(source.tree)))  # unless bound: `help=None`
        for number, (node, span) in enumerate(zip(source.statements, source.statement_spans, strict=True)):
            own = list(own_identifiers(node))
            found.extend((*_spelled_at(source, spelled, span), name, isinstance(spelled, ast.keyword))
                         for spelled, name in own)
            parent = source.parents.get(node)
            alone = parent is not None and any(body == [node] for body in statement_bodies(parent))
            names = frozenset(name for _, name in own) - self.shared
            for name in names:
                self.naming.setdefault(name, []).append(number)
            own_text = source.text[span[0]:source.header_end(node)].strip()
            self.statements.append(_Statement(span, own_text, names, alone))
        found.sort()
        self.identifiers = found
        self.identifier_starts = [start for start, *_ in found]
        self._by_start = sorted(range(len(self.statements)), key=lambda n: self.statements[n].span[0])
        self._starts = [self.statements[n].span[0] for n in self._by_start]

    def identifiers_within(self, start: int, end: int, keywords: bool = False) -> set[str]:
        """The identifiers spelled wholly within [start, end) (`keywords`: only calls' keywords)."""
        names = set()
        at = bisect.bisect_left(self.identifier_starts, start)
        while at < len(self.identifiers) and self.identifiers[at][0] < end:
            _, name_end, name, keyword = self.identifiers[at]
            if name_end <= end and (keyword or not keywords):
                names.add(name)
            at += 1
        return names

    def own_texts_naming(self, names: set[str], spans: list[Span]) -> frozenset[str]:
        """The own text of every statement that names one of `names`, but those within `spans`."""
        return frozenset(self.statements[number].own_text for name in names for number in self.naming.get(name, ())
                         if not inside(self.statements[number].span, spans))

    def statements_within(self, start: int, end: int) -> list[int]:
        """The statements (by number) that lie within [start, end)."""
        found = []
        for at in range(bisect.bisect_left(self._starts, start), bisect.bisect_left(self._starts, end)):
            number = self._by_start[at]
            if self.statements[number].span[1] <= end:
                found.append(number)
        return found


def _spelled_at(source: Source, node: ast.AST, statement: Span) -> Span:
    """Where `node` (an identifier's node) is in the text; a `def`'s or `class`'s name: its statement."""
    if isinstance(node, ast.stmt):
        return statement
    return source.span(node)  # type: ignore[arg-type]  # names, attributes, args, keywords, aliases are located


@lru_cache(maxsize=4)
def _names_index(source: Source) -> _NamesIndex:
    return _NamesIndex(source)


def _innermost_statement(source: Source, start: int, end: int) -> tuple[int, int]:
    best = (0, len(source.text))
    for stmt_start, stmt_end in source.statement_spans:
        if stmt_start <= start and end <= stmt_end and stmt_end - stmt_start < best[1] - best[0]:
            best = (stmt_start, stmt_end)
    return best
