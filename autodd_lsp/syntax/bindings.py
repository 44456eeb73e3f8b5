"""Names a syntax tree binds and reads, and whether a call to one of its own functions still binds.

Static and by name only: no flow, no types. The fixpoint's memory of edits found
needed keys a statement-level edit by the statements that share an identifier with
it (`engine/searching/memory.py`, `own_identifiers`). Inlining judges name collisions by
`names_in` (`inlining/names.py`, `inline.py`). The passes use it to leave out edits
that cannot run: a function's body hoisted where a parameter it reads is unbound
(`passes/compound.py`), an argument dropped from a call to the program's own
function that then lacks a required one (`passes/elements.py`). A wrong answer
here costs a reduction not tried, never a wrong result: every candidate the
passes do propose is still judged by a run.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter, defaultdict
from collections.abc import Iterator

from autodd_lsp.syntax.source import Source

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
BUILTIN_NAMES = frozenset(dir(builtins))  # what a name no binding serves falls back to


def bound_name(alias: ast.alias) -> str:
    """The name an import binds: `import a.b` binds `a`."""
    return alias.asname or alias.name.split(".")[0]


def bound_names(tree: ast.AST, skip: frozenset[int] | set[int] = frozenset(), params: bool = True) -> Iterator[str]:
    """Each binding of a name in `tree` (assigned, deleted, a parameter unless `params` is
    false, defined, imported, declared `global`/`nonlocal`), once per binding; nodes whose id
    is in `skip` aside."""
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                yield node.id
        elif isinstance(node, ast.arg):
            if params:
                yield node.arg
        elif isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.alias):
            yield bound_name(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            yield from node.names


def names_in(tree: ast.AST, reads: bool = True, skip: frozenset[int] | set[int] = frozenset()) -> set[str]:
    """The names `tree` binds, and with `reads` those it reads too; nodes whose id is in `skip` aside."""
    names = set(bound_names(tree, skip))
    if reads:
        names.update(node.id for node in ast.walk(tree)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in skip)
    return names


def own_identifiers(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Each identifier of `node`'s own code, with the node that spells it: names, attributes
    (`obj.x`'s `x`), parameters, keywords, a `def`'s or `class`'s name, imported names;
    not those of the statements inside it (a block's body)."""
    if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
        yield node, node.name
    todo = [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.stmt)]
    while todo:
        inner = todo.pop()
        if isinstance(inner, ast.Name):
            yield inner, inner.id
        elif isinstance(inner, ast.Attribute):
            yield inner, inner.attr
        elif isinstance(inner, (ast.arg, ast.keyword)) and inner.arg:  # a keyword's is None in `**kwargs`
            yield inner, inner.arg
        elif isinstance(inner, ast.alias):
            yield inner, bound_name(inner)
        todo.extend(child for child in ast.iter_child_nodes(inner) if not isinstance(child, ast.stmt))


def binding_counts(tree: ast.AST) -> Counter[str]:
    """How often each name is bound in `tree`, parameters aside."""
    return Counter(bound_names(tree, params=False))


def parameters(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = func.args
    return {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}


class OwnFunctions:
    """The program's own functions a call reaches, where the name says so for sure: `f(...)`
    for the one module-level `def f` the program binds `f` by, and `self.m(...)` or
    `cls.m(...)` inside a class for the one `def m` of the program, a method of that class."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self._bound = binding_counts(source.tree)
        self._defs: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.AST]]] = defaultdict(list)
        self._collect(source.tree)

    def _collect(self, parent: ast.AST) -> None:
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, FUNCTIONS):
                self._defs[child.name].append((child, parent))
            self._collect(child)

    def callee(self, call: ast.Call) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
        """The `def` `call` reaches and whether it receives its instance (or class) first."""
        func = call.func
        if isinstance(func, ast.Name):
            name, method = func.id, False
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            name, method = func.attr, True
        else:
            return None
        found = self._defs.get(name, [])
        if len(found) != 1 or self._bound[name] != 1:
            return None
        definition, parent = found[0]
        if not isinstance(parent, ast.ClassDef if method else ast.Module):
            return None
        if method and self._source.ancestor(call, ast.ClassDef) is not parent:
            return None  # `self` may be another class's instance, with a method of its own
        decorators = {d.id for d in definition.decorator_list if isinstance(d, ast.Name)}
        if len(decorators) != len(definition.decorator_list) or decorators - {"staticmethod", "classmethod"}:
            return None  # a decorator may change what the call receives
        return definition, method and "staticmethod" not in decorators


def binds(func: ast.FunctionDef | ast.AsyncFunctionDef, bound_first: bool, positional: int, keywords: set[str]) -> bool:
    """Whether `positional` arguments and these keywords fill `func`'s parameters
    (`bound_first`: its first one is the instance or class)."""
    a = func.args
    full = [*a.posonlyargs, *a.args]
    first_default = len(full) - len(a.defaults)
    slots = list(enumerate(full))[1 if bound_first else 0:]
    if positional > len(slots) and a.vararg is None:
        return False
    by_keyword = {p.arg for p in a.args} | {p.arg for p in a.kwonlyargs}
    if a.kwarg is None and not keywords <= by_keyword:
        return False
    for number, param in slots[positional:]:
        if number < first_default and (param.arg not in keywords or param in a.posonlyargs):
            return False
    return all(default is not None or param.arg in keywords for param, default in zip(a.kwonlyargs, a.kw_defaults, strict=True))
