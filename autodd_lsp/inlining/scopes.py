"""Which names of a module's code read or write its global (module-level) names.

Renaming a module's top-level name `n` (to inline the module beside others)
must rename exactly the uses that resolve to the module-level `n`: not a
parameter or local of the same name in a function, not a class attribute.
Python's rules (LEGB): a name in a function is local if the function binds it
(assignment, parameter, import, def, for target, with target, except name,
walrus, del) and does not declare it `global`/`nonlocal`; a class body's
bindings are not visible to functions inside it; comprehensions have their
own scope for their targets.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# the nodes that open a scope of their own (both tuples above), and those global_name_nodes finds
_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
GlobalNameNode = ast.Name | ast.Global | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def bound_names(node: ast.AST) -> tuple[set[str], set[str]]:
    """Names a function/comprehension binds in its own scope, and those it declares global."""
    bound: set[str] = set()
    declared_global: set[str] = set()
    body: Sequence[ast.AST]
    if isinstance(node, _FUNCTIONS):
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                bound.add(arg.arg)
        body = [node.body] if isinstance(node, ast.Lambda) else node.body  # a lambda's body is one expression
    elif isinstance(node, _COMPREHENSIONS):
        for generator in node.generators:
            bound.update(_targets(generator.target))
        return bound, declared_global
    else:
        body = []

    def visit(child: ast.AST) -> None:
        if isinstance(child, (ast.Global, ast.Nonlocal)):
            (declared_global if isinstance(child, ast.Global) else bound).update(child.names)
            return
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(child.name)
            for decorator in child.decorator_list:
                visit(decorator)
            return  # its body is its own scope
        if isinstance(child, (ast.Lambda, *_COMPREHENSIONS)):
            return
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            bound.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for alias in child.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(child, ast.ExceptHandler) and child.name:
            bound.add(child.name)
        elif isinstance(child, ast.NamedExpr):
            bound.update(_targets(child.target))
        for grandchild in ast.iter_child_nodes(child):
            visit(grandchild)

    for statement in body:
        visit(statement)
    return bound - declared_global, declared_global


def _targets(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def global_name_nodes(tree: ast.Module, names: set[str]) -> list[GlobalNameNode]:
    """The nodes of `tree` that refer to its module-level `names`: Name nodes, the names
    of top-level def/class statements, and `global` statements naming them."""
    found: list[GlobalNameNode] = []

    def visit(node: ast.AST, local: frozenset[str]) -> None:
        if isinstance(node, ast.Name):
            if node.id in names and node.id not in local:
                found.append(node)
            return
        if isinstance(node, ast.Global):
            if set(node.names) & names:
                found.append(node)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in names and node.name not in local:
                found.append(node)  # the def's own name binds it here
        if isinstance(node, (*_FUNCTIONS, *_COMPREHENSIONS)):
            own, declared = bound_names(node)
            inner = frozenset((local | own) - declared)
            # defaults, decorators and the first iterable are evaluated in the enclosing scope
            outer_parts, inner_parts = _split_scope(node)
            for part in outer_parts:
                visit(part, local)
            for part in inner_parts:
                visit(part, inner)
            return
        if isinstance(node, ast.ClassDef):
            for part in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
                visit(part, local)
            # a class body's own bindings shadow globals inside the body only (not in its methods)
            class_bound = {t.id for s in node.body for t in ast.walk(s)
                           if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(statement, local)
                else:
                    visit(statement, frozenset(local | class_bound))
            return
        for child in ast.iter_child_nodes(node):
            visit(child, local)

    visit(tree, frozenset())
    return found


def _split_scope(node: _Scope) -> tuple[list[ast.AST], list[ast.AST]]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        outer: list[ast.AST] = [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]
        outer += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation]
        if node.returns is not None:
            outer.append(node.returns)
        return outer, list(node.body)
    if isinstance(node, ast.Lambda):
        args = node.args
        return [*args.defaults, *(d for d in args.kw_defaults if d is not None)], [node.body]
    generators = node.generators
    outer = [generators[0].iter]
    inner: list[ast.AST] = []
    for index, generator in enumerate(generators):
        inner.append(generator.target)
        if index:
            inner.append(generator.iter)
        inner.extend(generator.ifs)
    inner.extend([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
    return outer, inner
