"""The shared base of rewrite passes: what a pass sees and how it is registered.

A pass looks at the current program and proposes `Edit`s; it never runs
anything and never decides what is kept: the search strategy tries the edits and
the oracle judges. Passes are registered in groups (`Group`: the spec's four
groups, then tidy); the engine runs the four in order, again and again, until
none makes progress, and tidy once at the end.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from functools import cached_property

from autodd_lsp.syntax.patch import Edit, Patch, block_guard
from autodd_lsp.syntax.source import (
    LOCATED,
    Located,
    Source,
    Span,
    last_line,
    statement_bodies,
)
from autodd_lsp.syntax.style import quote_style_of
from autodd_lsp.values.recorded import Recorded, ValueLookup


@dataclass
class PassContext:
    source: Source
    frozen: list[Span] = field(default_factory=list)
    original: str = ""  # the user's program as given (what tidy passes compare with)
    values: ValueLookup | None = None  # the original's recorded values (autodd_lsp.values), once known
    failing: tuple[int, ...] = ()  # the offsets whose characters came from the original's failing statement

    def touches_frozen(self, span: Span) -> bool:
        """The character span overlaps a frozen region (tidy passes leave such text alone)."""
        return any(start < span[1] and span[0] < end for start, end in self.frozen)

    def is_frozen(self, node: Located) -> bool:
        """The node lies inside a frozen region: it must not change at all."""
        start, end = self.source.span(node)
        return any(fs <= start and end <= fe for fs, fe in self.frozen)

    @cached_property
    def guards(self) -> list[Patch]:
        return block_guards(self.source)

    @cached_property
    def quote(self) -> str:
        """The quotes the user's strings mostly use ('double', 'single' or 'preserve'): for values written in."""
        return quote_style_of(self.original) if self.original else "preserve"

    @cached_property
    def static_kinds(self) -> dict[str, str]:
        """What names bound in the text stand for, where the binding says: module, class, function."""
        kinds: dict[str, str] = {}
        for node in ast.walk(self.source.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    kinds[alias.asname or alias.name.split(".")[0]] = "module"
            elif isinstance(node, ast.ClassDef):
                kinds[node.name] = "class"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kinds[node.name] = "function"
        return kinds

    def recorded(self, node: ast.AST) -> Recorded | None:
        """What `node` evaluated to in the original's run: its own record, or a parameter's."""
        if self.values is None or not isinstance(node, LOCATED):
            return None
        found = self.values.expression(self.source.span(node))
        if found is None and isinstance(node, ast.Name):
            param = self.parameter_of(node)
            if param is not None:
                found = self.values.parameter(self.source.span(param))
        return found

    def parameter_of(self, name: ast.Name) -> ast.arg | None:
        """The parameter of an enclosing function that `name` reads, if any."""
        parents = self.source.parents
        node = parents.get(name)
        while node is not None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
                    if arg.arg == name.id:
                        return arg
            node = parents.get(node)
        return None

    @cached_property
    def failing_parameters(self) -> set[int]:
        """ids of the parameters the failing statement's text reads (`self.array[idx]`, even where
        the failure comes before `idx` is read): they stay parameters, so the line the user saw
        reads a bound name, never a value written in its place."""
        held = set(self.failing)
        found: set[int] = set()
        if not held:
            return found
        for node in ast.walk(self.source.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                start, end = self.source.span(node)
                param = self.parameter_of(node) if start in held and end - 1 in held else None
                if param is not None:
                    found.add(id(param))
        return found

    def kind_of(self, node: ast.AST) -> str | None:
        """module, class, function, value, instance (recorded, or from the binding of a name); None: unknown."""
        found = self.recorded(node)
        if found is not None:
            return found.kind
        if isinstance(node, ast.Name):
            return self.static_kinds.get(node.id)
        return None

    @cached_property
    def in_annotations(self) -> set[int]:
        """ids of the nodes inside annotations: an annotation is kept whole or dropped, never rewritten."""
        inside: set[int] = set()
        for node in ast.walk(self.source.tree):
            for annotation in annotations_of(node):
                inside.update(id(n) for n in ast.walk(annotation))
        return inside


class Group(IntEnum):
    """The pass groups, in the order they run (see notes/passes.md)."""

    STATEMENTS = 1  # remove and flatten statements
    CANONICALIZE = 2  # parameters with their arguments
    SIMPLIFY = 3  # inline, replace by a part or a value
    SLOW = 4  # literals, list elements: many small edits
    TIDY = 5  # readable output, once at the end


# The first guess for a fine-grained pass: its edits one at a time. Below 0.5 ProbDD tries pairs,
# and a pair costs one candidate when both edits go and three when not, so pairs pay only while
# fewer than about 29% of the edits are needed; after the statement group, most of them are
# (notes/parallelism.md, "ProbDD").
MOSTLY_NEEDED = 0.5


class Remembers(Enum):
    """Which of a pass's edits found needed the fixpoint leaves out of later cycles, and
    until what changes (`engine/searching/memory.py`)."""

    NOTHING = "nothing"  # every edit is proposed in every cycle
    BY_STATEMENT = "by statement"  # until the innermost statement around it changes
    BY_NAMES = "by names"  # until it, or a statement that shares a name with it, changes


class ReductionPass:
    """One kind of rewrite. Subclasses set `name` and implement `propose`
    (or `propose_at` if they have levels)."""

    name: str = ""
    group: Group = Group.STATEMENTS
    order: int = 0  # position inside its group: cheap, big-win passes first; unique in the group
    # Passes with levels are searched one level at a time, re-parsing in between
    # (outer statements first, as hierarchical delta debugging does).
    has_levels: bool = False
    # Most edits of a pass are needed, and stay needed while what made them so is the
    # same: in later cycles such an edit is not tried again (`Remembers`).
    remembers_needed: Remembers = Remembers.NOTHING
    # ProbDD's first guess of the share of edits that are needed; the engine
    # replaces it by what it observed in this pass's previous round. Fine-grained
    # passes start from MOSTLY_NEEDED.
    prior: float = 0.1
    # Passes that offer the original's values wait for them (recorded in the background).
    uses_values: bool = False
    # Passes whose edits the engine guides by the run map (engine/searching/run_map.py): edits that remove
    # only code the original never ran go first; removals of a binding the run read from code
    # that stays wait for a cycle that confirms. They wait for the recording too.
    uses_map: bool = False
    # Passes whose edits rewrite expressions inside a statement (a part, a value, a literal, a
    # variable's use, an element): the engine leaves out those that touch the failing statement's
    # own text, so the line the user saw and the mistake in it stay in the user's words
    # (engine/searching/fixpoint.py, `_in_the_users_words`; notes/passes.md).
    rewrites_expressions: bool = False
    # A pass that starts a process of its own (a formatter); the library's `minimize`, which
    # starts none, leaves it out.
    runs_a_tool: bool = False

    def edits(self, ctx: PassContext, level: int = 0) -> list[Edit] | None:
        """Edits for this level, biggest first; None once `level` is past the deepest."""
        proposed = self.propose_at(ctx, level) if self.has_levels else (self.propose(ctx) if level == 0 else None)
        return None if proposed is None else by_weight(proposed)

    def propose(self, ctx: PassContext) -> list[Edit]:
        """The edits of a pass without levels, in any order."""
        raise NotImplementedError

    def propose_at(self, ctx: PassContext, level: int) -> list[Edit] | None:
        """The edits at one level, in any order; None once `level` is past the deepest."""
        raise NotImplementedError


def proposed_edits(reduction_pass: ReductionPass, ctx: PassContext, level: int,
                   failed: Callable[[ReductionPass, BaseException], None]) -> list[Edit] | None:
    """`reduction_pass.edits(ctx, level)`; where the pass raises (a bug of ours on a text it did
    not expect), `failed` is told and the pass has no edits there: the reduction goes on."""
    try:
        return reduction_pass.edits(ctx, level)
    except Exception as error:  # noqa: BLE001 - any bug in a pass; the user's run must not end with it
        failed(reduction_pass, error)
        return None


_REGISTRY: list[ReductionPass] = []


def register(cls: type[ReductionPass]) -> type[ReductionPass]:
    """Register a pass. Its (group, order) must be its own: passes run in that order, which
    must not depend on the order their modules happen to be imported in."""
    taken = next((p for p in _REGISTRY if (p.group, p.order) == (cls.group, cls.order)), None)
    if taken is not None:
        raise ValueError(f"{cls.__name__} has the order of {type(taken).__name__}: {cls.group!r}, {cls.order}")
    _REGISTRY.append(cls())
    return cls


def registered_passes() -> list[ReductionPass]:
    return sorted(_REGISTRY, key=lambda p: (p.group, p.order))


# -- helpers shared by passes ---------------------------------------------------


def block_guards(source: Source) -> list[Patch]:
    """A guard for every indented statement block: it puts `pass` back if the block empties."""
    guards = []
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Module):
            continue
        for body in statement_bodies(node):
            if is_elif_body(source, node, body):
                continue
            if not all(source.owns_its_lines(stmt) for stmt in body):
                continue
            if body[0].lineno == getattr(node, "lineno", 0):
                continue  # `if x: y` on one line
            start = source.stmt_lines_span(body[0])[0]
            end = source.line_end(last_line(body[-1]))
            indent = source.indent_of_line(source.first_line(body[0]))
            guards.append(block_guard(start, end, indent))
    return guards


def is_elif_body(source: Source, node: ast.AST, body: list[ast.stmt]) -> bool:
    """`orelse` holding an `elif` has no block of its own."""
    return (
        isinstance(node, ast.If)
        and body is node.orelse
        and len(body) == 1
        and is_elif(source, body[0])
    )


def is_elif(source: Source, stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If):
        return False
    start = source.offset(stmt.lineno, stmt.col_offset)
    return source.text.startswith("elif", start)


def annotations_of(node: ast.AST) -> list[ast.expr]:
    """The annotations written directly on `node` (a parameter's, a return's, an annotated assignment's)."""
    if isinstance(node, ast.arg):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.returns] if node.returns is not None else []
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    return []


def walk_statements(tree: ast.AST) -> Iterator[tuple[ast.stmt, int]]:
    """Every statement with its nesting depth (module level is 0)."""

    def visit(node: ast.AST, depth: int) -> Iterator[tuple[ast.stmt, int]]:
        for body in statement_bodies(node):
            for stmt in body:
                yield stmt, depth
                yield from visit(stmt, depth + 1)

    yield from visit(tree, 0)


def by_weight(edits: list[Edit]) -> list[Edit]:
    """Biggest first; stable, so equal weights keep source order (deterministic)."""
    return sorted(edits, key=lambda e: -e.weight)
