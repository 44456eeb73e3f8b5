"""The original's run as a map: which statements never ran, proposed for removal first.

The recording run (`execution/record_main.py`) marks every statement the
original ran (`RecordedValues.statements`). Code that never ran is the likeliest
to go, so before a pass that removes statements searches its edits as usual,
the edits that remove only code that never ran are tried together as one
candidate, then by halves (`search.Halves`); the usual search then goes on with
the rest. The map is only a proposal: each of those candidates is judged by a
run like any other, so nothing about what counts as the same failure changes.
A program without a recording (it failed, an older Python, a pytest test) is
reduced as before.

What "never ran" means for an edit: every statement it removes never ran; a
function whose body never ran (defined, never called) counts as never run, a
class when everything in its body does (its methods never called, and nothing
else there: a class attribute runs when the class is made). A statement whose
origin in the original is unknown counts as run. A definition whose mere
presence matters (a decorator that registers it, a metaclass or
`__init_subclass__` that reads it) misleads the map: its group is refused and
split, which costs a few candidates, never the result.

The failing path (`FailingPath`): where the rule checks the failure's place,
a candidate's innermost frame in the program must be on a line whose text came
from the original's failing statement (oracle/same.py, rule 2). A statement
removal that takes the copy of that statement away together with other code
(its loop, its `with`, its `def`, the class around that) can never keep the
failure: it is not proposed at all, in any cycle. The failing statement alone
is still tried (what its removal shows is what a person hovering it asks).
The outer frames (`main()`, the call in `main`) are not left out: once the
kernel's definition fails by itself, the calls after it are dead code, and
a reproducer must lose them (tried, they left `run()` and `main()` behind).

What the run read (`read_by_the_run`): a removal that takes away every binding
a statement that stays and ran could have read (`import os` while
`os.environ.get(...)` stays; a dataclass field while `cfg.block_M` stays) is
likely refused while that reader stays. The fixpoint leaves such removals out
until a cycle changes nothing, then tries them in one cycle that confirms
(`engine/searching/fixpoint.py`). Names and scopes only, no flow and no types: a removal
named wrongly (a builtin shadowed by the program's own function, an attribute
another class also has) waits for that cycle, and costs a candidate there.

`AUTODD_RUN_MAP=off` in the environment turns the map off (all parts): for
the benchmark and the tests that compare the candidates it saves; not a user
setting.
"""

from __future__ import annotations

import ast
import bisect
import os
from dataclasses import dataclass

from autodd_lsp.syntax.bindings import own_identifiers
from autodd_lsp.syntax.origin import SHADOW_BASE, OriginalStatements
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span, statement_bodies
from autodd_lsp.values import ValueLookup

SWITCH = "AUTODD_RUN_MAP"


def map_wanted() -> bool:
    return os.environ.get(SWITCH, "") != "off"


def never_ran(source: Source, edits: list[Edit], lookup: ValueLookup) -> list[int]:
    """Indices of the edits that remove only statements the original never ran."""
    found = []
    for index, edit in enumerate(edits):
        outermost = outermost_removed(source, edit)
        if outermost and all(_never_ran(source, node, lookup) for node in outermost):
            found.append(index)
    return found


def outermost_removed(source: Source, edit: Edit) -> list[ast.stmt]:
    """The statements `edit` removes whole, the outermost of them (not those inside another)."""
    removed = [node for node, (start, end) in zip(source.statements, source.statement_spans, strict=True)
               if any(patch.start <= start and end <= patch.end for patch in edit.patches)]
    inner = {id(child) for node in removed for child in ast.walk(node) if child is not node}
    return [node for node in removed if id(node) not in inner]


def read_by_the_run(source: Source, edits: list[Edit], lookup: ValueLookup) -> list[int]:
    """Indices of the edits that remove every binding a read could have been served by,
    where the reading statement stays and ran in the original (or its origin is unknown):
    such a removal is likely refused (a NameError, an AttributeError) while the reader stays.

    A name (`x`) is served by the bindings of `x` in the reader's function, the functions
    around it and the module (an assignment, an import, a `def`, a `class`, a parameter, a
    loop's or `with`'s target); an attribute (`obj.x`) by a class's `x` (an attribute, a
    method) and by any `something.x = ...`. No flow, no types: a removal named wrongly costs
    a candidate later, in the cycle that confirms (`engine/searching/fixpoint.py`)."""
    binders, reads = collect_names(source)
    serving: dict[tuple[str, str], list[int]] = {}
    for number, (_, space, name, _) in enumerate(binders):
        serving.setdefault((space, name), []).append(number)
    served_by: list[tuple[Span, frozenset[int]]] = []
    readers_of: dict[int, list[int]] = {}
    for statement, span, space, name, scopes in reads:
        if lookup.ran(statement[0]) is False:
            continue
        found = frozenset(n for n in serving.get((space, name), ()) if space == "attribute" or binders[n][3] in scopes)
        if found:
            for n in found:
                readers_of.setdefault(n, []).append(len(served_by))
            served_by.append((span, found))
    result = []
    for index, edit in enumerate(edits):
        spans = [(patch.start, patch.end) for patch in edit.patches]
        removed = {n for n, binder in enumerate(binders) if n in readers_of and inside(binder[0], spans)}
        touched = {r for n in removed for r in readers_of[n]}
        if any(served_by[r][1] <= removed and not inside(served_by[r][0], spans) for r in touched):
            result.append(index)
    return result


Binder = tuple[Span, str, str, int]  # (statement span, or a parameter's; namespace; name; scope)
Read = tuple[Span, Span, str, str, tuple[int, ...]]  # (statement, the read, namespace, name, scopes around it)


def collect_names(source: Source) -> tuple[list[Binder], list[Read]]:
    """Every binding and every read of `source`, with their statements and function scopes (0:
    the module; a function's: `id` of its node). Namespaces: "name" (`x`), "attribute" (`obj.x`,
    a class body's bindings, `something.x = ...`)."""
    binders: list[Binder] = []
    reads: list[Read] = []
    _collect(source, source.tree.body, (0,), False, binders, reads)
    return binders, reads


def inside(span: Span, spans: list[Span]) -> bool:
    """`span` lies within one of `spans`."""
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _collect(source: Source, body: list[ast.stmt], scopes: tuple[int, ...], in_class: bool,
             binders: list, reads: list) -> None:
    """`read_by_the_run`'s bindings and reads of the statements of `body` (and their blocks),
    in the function scopes `scopes` (innermost first; 0 is the module)."""
    for node in body:
        span = source.span(node)
        for name in _names_bound(node):
            binders.append((span, "attribute" if in_class else "name", name, scopes[0]))
        for name in _attributes_set(node):
            binders.append((span, "attribute", name, scopes[0]))
        reads.extend((span, source.span(read), space, name, scopes) for read, space, name in _reads_in(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = (id(node), *scopes)
            args = node.args
            every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
            binders.extend((source.span(arg), "name", arg.arg, id(node)) for arg in every)
            _collect(source, node.body, inner, False, binders, reads)
        elif isinstance(node, ast.ClassDef):
            _collect(source, node.body, scopes, True, binders, reads)
        else:
            inner_statements = [stmt for body in statement_bodies(node) for stmt in body]
            _collect(source, inner_statements, scopes, in_class, binders, reads)


def _names_bound(node: ast.stmt) -> set[str]:
    """The names `node` itself binds (not the statements inside it, not a `def`'s parameters)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
    if isinstance(node, ast.Try):
        return {handler.name for handler in node.handlers if handler.name}
    return {inner.id for target in _targets(node) for inner in ast.walk(target)
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)}


def _attributes_set(node: ast.stmt) -> set[str]:
    """The attributes `node` itself sets (`self.x = ...`)."""
    return {inner.attr for target in _targets(node) for inner in ast.walk(target)
            if isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store)}


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign):  # a dataclass's field too
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _reads_in(node: ast.stmt) -> list[tuple[ast.expr, str, str]]:
    """The reads of `node`'s own expressions (not those of the statements inside it): each
    `name` ("name") and `obj.name` ("attribute"), with the node that reads it."""
    return [(inner, "name" if isinstance(inner, ast.Name) else "attribute", name)
            for inner, name in own_identifiers(node)
            if isinstance(inner, (ast.Name, ast.Attribute)) and isinstance(inner.ctx, ast.Load)]


def _never_ran(source: Source, node: ast.stmt, lookup: ValueLookup) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        seen = [lookup.ran(source.span(inner)[0]) for inner in node.body]
        return any(ran is False for ran in seen) and not any(seen)  # its body never began
    if isinstance(node, ast.ClassDef):
        body = node.body[1:] if _is_docstring(node.body[0]) else node.body  # a docstring is not marked
        return bool(body) and all(_never_ran(source, inner, lookup) for inner in body)
    return lookup.ran(source.span(node)[0]) is False


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


@dataclass(frozen=True)
class FailingPath:
    """The original's statements the failure came through (`statements`: indices into `original`)."""

    statements: frozenset[int]
    original: OriginalStatements

    def crossed_by(self, text: str, shadow: str | None, edits: list[Edit]) -> set[int]:
        """Indices of the edits (statement removals) of `text` that take away a copy of a
        failing-path statement together with other code: the statements around it. The
        failing statement alone is still tried (what its removal shows is what a person asks
        about it). `shadow`: the origins of `text`'s characters (syntax/origin.py); None:
        unknown, nothing is left out."""
        held = self.held_offsets(shadow)
        if not held:
            return set()
        return {index for index, edit in enumerate(edits)
                if any(holds(held, patch.start, patch.end) and _other_code(text, held, patch.start, patch.end)
                       for patch in edit.patches)}

    def held_offsets(self, shadow: str | None) -> list[int]:
        """The offsets of a text (its `shadow`: syntax/origin.py) whose characters came from a
        failing-path statement, in order; none if unknown."""
        if shadow is None or not self.statements:
            return []
        return [offset for offset, char in enumerate(shadow) if ord(char) >= SHADOW_BASE
                and not self.statements.isdisjoint(self.original.of_offsets((ord(char) - SHADOW_BASE,)))]


def holds(offsets: list[int], start: int, end: int) -> bool:
    """Some offset (sorted) lies in [start, end)."""
    at = bisect.bisect_left(offsets, start)
    return at < len(offsets) and offsets[at] < end


def _other_code(text: str, held: list[int], start: int, end: int) -> bool:
    """[start, end) of `text` has a line of code (not blank, not a comment) with no `held` offset."""
    line_start = start
    for line in text[start:end].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not holds(held, line_start, line_start + len(line)):
            return True
        line_start += len(line) + 1
    return False
