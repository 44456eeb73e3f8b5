"""The slice of the failing statement: code the failure cannot have read, proposed for removal early.

After the code that never ran (`run_map.never_ran`), a statement pass tries,
together and then by halves, the removals of statements outside the slice of
the original's failing statement (`engine/searching/fixpoint.py`, `_map_first`). The
slice starts at the statements that hold a copy of the failing path (the
failing statement, the calls that led to it, and the statements around them:
`FailingPath.held_offsets`) and grows by names, like `run_map.read_by_the_run`:
a statement in the slice pulls in every statement that binds what it reads in
scope (an assignment, an import, a `def`, a `class`, a parameter, an attribute
set anywhere); a `def` pulled in that way brings what it gives back (its
`return`s and `yield`s), a `class` its dunder methods (`__init__`, ...); a
`def` in the slice brings the statements that call it; every statement in the
slice brings the statements around it (their own headers only: a loop's
iterable, a `def`'s defaults and decorators, not the rest of their bodies). A
statement that may change an object in place (`items.append(x)`,
`table[k] = v`, `parser.add_argument(...)`) counts as binding that object's
name. Reads of statements the original never ran do not count.

Names only, no flow, no types, and no side effects beyond those in-place
changes: a random seed, an environment variable set for a library, a
registration by decorator lie outside the slice and are needed. That misleads
the proposal only: the group is refused and split by halves, and what it
refused one by one is searched as usual. A run judges every candidate, so
nothing about what counts as the same failure changes.
"""

from __future__ import annotations

import ast

from autodd_lsp.engine.searching.run_map import collect_names, outermost_removed
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, own_nodes, statement_bodies
from autodd_lsp.values import ValueLookup


def outside_the_slice(source: Source, edits: list[Edit], lookup: ValueLookup, held: list[int]) -> list[int]:
    """Indices of the edits that remove only statements outside the slice of the statements
    holding the `held` offsets (sorted; the failing path's copy in `source`); none if no
    statement holds one (the failing path is unknown or gone)."""
    statements, spans = source.statements, source.statement_spans
    index_of = {id(node): i for i, node in enumerate(statements)}
    at_span = {span: i for i, span in enumerate(spans)}
    parent: dict[int, int] = {}
    for i, node in enumerate(statements):
        for body in statement_bodies(node):
            for child in body:
                parent[index_of[id(child)]] = i
    seeds = [i for i, (start, end) in enumerate(spans) if any(start <= offset < end for offset in held)]
    if not seeds:
        return []
    binders, reads = collect_names(source)
    serving: dict[tuple[str, str], list[tuple[int, int, bool]]] = {}  # (space, name) -> (statement, scope, whole)
    for span, space, name, scope in binders:
        at = at_span.get(span)
        whole = at is not None and isinstance(statements[at], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if at is None:
            at = index_of.get(scope)  # a parameter: its function
        if at is not None:
            serving.setdefault((space, name), []).append((at, scope, whole))
    for i, node in enumerate(statements):
        for name in _changed_in_place(node):
            serving.setdefault(("name", name), []).append((i, -1, False))
    read_by: dict[int, list[tuple[str, str, tuple[int, ...]]]] = {}
    for statement, _, space, name, scopes in reads:
        if lookup.ran(statement[0]) is not False:
            read_by.setdefault(at_span[statement], []).append((space, name, scopes))
    readers: dict[str, list[int]] = {}  # a name (or attribute) -> the statements that read it
    for at, pairs in read_by.items():
        for _, name, _ in pairs:
            readers.setdefault(name, []).append(at)
    in_slice: set[int] = set()
    todo: list[int] = []

    def add(i: int) -> None:
        while i not in in_slice:  # it, and the statements around it
            in_slice.add(i)
            todo.append(i)
            node = statements[i]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for caller in readers.get(node.name, ()):  # what runs it
                    add(caller)
            if i not in parent:
                return
            i = parent[i]

    def pulled(i: int) -> None:
        """A `def` or `class` whose value the slice reads: what it gives back."""
        add(i)
        for inner in _given_back(statements[i]):
            add(index_of[id(inner)])

    for seed in seeds:
        add(seed)
    while todo:
        for space, name, scopes in read_by.get(todo.pop(), ()):
            for at, scope, whole in serving.get((space, name), ()):
                if space == "attribute" or scope == -1 or scope in scopes:
                    (pulled if whole else add)(at)
    found = []
    for index, edit in enumerate(edits):
        removed = outermost_removed(source, edit)
        if removed and not any(index_of[id(node)] in in_slice for node in removed):
            found.append(index)
    return found


def _given_back(node: ast.stmt) -> list[ast.stmt]:
    """What a function gives back to its caller (its `return`s, its statements that `yield`); for a
    class, that of the methods Python calls by itself (`__init__`, `__call__`, ...)."""
    if isinstance(node, ast.ClassDef):
        return [part for method in node.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                and method.name.startswith("__") and method.name.endswith("__") for part in [method, *_given_back(method)]]
    return [inner for inner in own_nodes(node) if isinstance(inner, ast.Return)
            or (isinstance(inner, ast.Expr) and isinstance(inner.value, (ast.Yield, ast.YieldFrom)))]


def _changed_in_place(node: ast.stmt) -> set[str]:
    """The names whose object `node` may change in place: `x.method(...)` as a statement,
    `x[k] = ...`, `x.attr = ...`, `x[k] += ...`."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return _base(node.value.func)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
    return {name for target in targets if isinstance(target, (ast.Subscript, ast.Attribute)) for name in _base(target)}


def _base(expr: ast.expr) -> set[str]:
    """The name an attribute or subscript chain starts from (`x` of `x.a[0].b`); none for a plain name."""
    if not isinstance(expr, (ast.Attribute, ast.Subscript)):
        return set()
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return {expr.id} if isinstance(expr, ast.Name) else set()
