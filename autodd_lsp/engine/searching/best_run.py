"""The best text's own run, at the cycle that confirms: the removals it shows refused.

The fixpoint leaves out, until a cycle changes nothing, the removals of a binding
that the original's run read from code that stays (`run_map.read_by_the_run`), and
then tries each alone in a cycle that confirms (`fixpoint.py`). Nearly all are
refused there: the reader still stands and still runs. Before that cycle, one
recording run of the best text (`ValueRecorder.map_of`: the original's recorder,
on the best) says which of its statements ran. A removal is then refused without
a candidate where it takes away every binding of a name that such a statement
reads, so that the read is a NameError:

- a plain name, read in a function or at module level (not in a class body,
  whose own bindings the names index keeps apart), and not a builtin; or `self.x`
  in a method of a class of the program's own whose bases are too (no library
  base, metaclass, decorator but `@dataclass` or `__getattr__` to serve `x`), in
  a program that sets no attribute by name (`setattr`, `__dict__`): `obj.x`
  elsewhere may be another class's, or a library object's;
- every binding of that name in the program is one the index sees (assignments,
  imports, `def`s, `class`es, loop and `with` targets, parameters, handlers):
  none bound by `:=`, a comprehension, `global`, `del` or `+=` alone; for `x` as
  an attribute, every `something.x = ...` and every class's own `x` go with it;
- the read is evaluated whenever its statement runs: not in a branch of `and`,
  `or` or `a if c else b`, a lambda, a comprehension past its first iterable, an
  `assert`'s message, an annotation, or a handler's type;
- the statement ran in the best's run, it is not on the failure's path (where
  the run stopped midway) and no `try` around it in its function could catch the
  NameError;
- the program reaches no name by `exec`, `eval`, `globals()`, `locals()`,
  `vars()` or `import *`.

What it misses (a caller's `try` that catches the NameError and goes on to the
same failure) costs a reduction not tried, never a wrong result. Without the
best's run (no recording: a pytest test, a killed program, the library API; an
intermittent failure, whose runs do not all run the same statements; or it did
not fail as the original does), every removal is tried as before. The run is
one more run of the program per cycle that confirms, not counted as a candidate.
"""

from __future__ import annotations

import ast
from collections import Counter

from autodd_lsp.engine.searching.run_map import collect_names, holds, inside
from autodd_lsp.syntax.bindings import BUILTIN_NAMES, bound_names
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source
from autodd_lsp.values import ValueLookup

_REACH_BY_STRING = frozenset({"exec", "eval", "globals", "locals", "vars", "__builtins__", "__import__"})


def refused_by_the_best_run(source: Source, edits: list[Edit], best: ValueLookup, held: list[int]) -> dict[int, str]:
    """The edits (by index) that leave a read its run evaluated without a binding (see the module
    docstring), each with the error that read would raise. `best`: the best text's run map by its
    own offsets; `held`: the offsets of the failure's path in it (`FailingPath.held_offsets`)."""
    tree = source.tree
    if _reaches_by_string(tree):
        return {}
    binders, reads = collect_names(source)
    counted = Counter(name for _, space, name, _ in binders if space == "name")
    every = Counter(bound_names(tree)) + Counter(h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name)
    sure = {name for name, count in every.items() if counted[name] == count and name not in BUILTIN_NAMES}
    serving: dict[tuple[str, str], list[int]] = {}
    for number, (_, space, name, _) in enumerate(binders):
        if space == "attribute" or name in sure:
            serving.setdefault((space, name), []).append(number)
    unconditional = _evaluated_reads(source)
    own_attributes = set() if _reaches_attributes_by_string(tree) else _own_attribute_reads(tree, source)
    headers = {span: source.header_end(node) for node, span in zip(source.statements, source.statement_spans, strict=True)}
    needs: list[tuple[tuple[int, int], frozenset[int], str]] = []  # (the read's statement, what serves it, its error)
    for statement, span, space, name, scopes in reads:
        if (space, name) not in serving or span not in unconditional:
            continue
        if space == "attribute" and span not in own_attributes:
            continue  # `obj.x`: another class, a library's, may serve it
        if best.ran(statement[0]) is not True or holds(held, statement[0], headers[statement]):
            continue  # not run, or the run stopped in it (a compound statement: in its header)
        found = frozenset(n for n in serving[(space, name)] if space == "attribute" or binders[n][3] in scopes)
        if found:
            error = f"NameError: name '{name}' is not defined" if space == "name" else \
                f"AttributeError: no attribute '{name}'"
            needs.append((statement, found, error))
    refused = {}
    for index, edit in enumerate(edits):
        spans = [(patch.start, patch.end) for patch in edit.patches]
        removed = {n for n, binder in enumerate(binders) if inside(binder[0], spans)}
        errors = [error for statement, found, error in needs if found <= removed and not inside(statement, spans)]
        if errors:
            refused[index] = errors[0]
    return refused


def _own_attribute_reads(tree: ast.AST, source: Source) -> set[tuple[int, int]]:
    """The spans of `self.x` read in a method (undecorated, `self` never rebound) of a class of
    the program's own whose every base is one too, with no metaclass, no decorator but
    `@dataclass` and no `__getattr__`: there `x` comes from a binding the index sees, or
    from nowhere."""
    every_class = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    named = Counter(cls.name for cls in every_class)
    classes = {cls.name: cls for cls in every_class if named[cls.name] == 1}  # a base's name says which class
    closed: dict[str, bool] = {}

    def is_closed(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name not in closed:
            cls = classes[name]
            closed[name] = (
                name not in seen and not cls.keywords
                and all(_is_dataclass(d) for d in cls.decorator_list)
                and not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in _DYNAMIC
                            for n in cls.body)
                and all(isinstance(b, ast.Name) and (b.id == "object" or (b.id in classes and is_closed(b.id, seen | {name})))
                        for b in cls.bases))
        return closed[name]

    found: set[tuple[int, int]] = set()
    for name, cls in classes.items():
        if not is_closed(name):
            continue
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.decorator_list:
                continue
            every = method.args.posonlyargs + method.args.args
            if not every or Counter(bound_names(method))[every[0].arg] != 1:
                continue
            me = every[0].arg
            found.update(source.span(node) for node in ast.walk(method)
                         if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                         and isinstance(node.value, ast.Name) and node.value.id == me)
    return found


def _is_dataclass(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "dataclass") or (
        isinstance(target, ast.Attribute) and target.attr == "dataclass")


_DYNAMIC = frozenset({"__getattr__", "__getattribute__", "__init_subclass__", "__class_getitem__"})


def _reaches_attributes_by_string(tree: ast.AST) -> bool:
    """The program sets or finds attributes by name (`setattr`, `__dict__`, `__setattr__`)."""
    return any((isinstance(node, ast.Name) and node.id in ("setattr", "delattr"))
               or (isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__setattr__", "__class__"))
               for node in ast.walk(tree))


def _reaches_by_string(tree: ast.AST) -> bool:
    return any((isinstance(node, ast.Name) and node.id in _REACH_BY_STRING)
               or (isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names))
               for node in ast.walk(tree))


def _evaluated_reads(source: Source) -> set[tuple[int, int]]:
    """The spans of the names read whenever their statement runs (see the module docstring)."""
    found: set[tuple[int, int]] = set()

    def visit(node: ast.AST, sure: bool) -> None:
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and sure:
            found.add(source.span(node))
        # A class body's names may be its own bindings; what a `try` runs, it may catch; a
        # `match` runs its cases by pattern. A function's body runs where it is called.
        inside = sure and not (isinstance(node, (ast.ClassDef, ast.Try)) or type(node).__name__ in ("TryStar", "Match"))
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for position, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and field == "body":
                    visit(child, True)
                elif isinstance(child, ast.stmt):
                    visit(child, inside)
                else:
                    visit(child, sure and _always(node, field, position))

    visit(source.tree, True)
    return found


def _always(parent: ast.AST, field: str, position: int) -> bool:
    """Whether the expression in `parent`'s `field` (at `position`) is evaluated whenever `parent` is."""
    if isinstance(parent, ast.BoolOp):
        return position == 0
    if isinstance(parent, ast.IfExp):
        return field == "test"
    if isinstance(parent, (ast.Lambda, ast.ExceptHandler, ast.arg)) or field in ("annotation", "returns"):
        return False
    if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return field == "generators" and position == 0
    if isinstance(parent, ast.comprehension):
        return field == "iter"
    if isinstance(parent, ast.Assert):
        return field == "test"
    return True
