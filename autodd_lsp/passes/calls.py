"""Inline a function that is called once: its body replaces the call, the def goes.

    def run(cfg):                 cfg = make()
        build(cfg)          ->    build(cfg)
        return check(cfg)         result = check(cfg)
    result = run(make())

Handles a call that is a statement (`f(...)`) or the whole right-hand side of a
single assignment (`x = f(...)`), for plain functions whose only `return` is the
last statement of their body. An argument that is the parameter's own name
(`run(cfg)` for `def run(cfg)`) needs no `cfg = cfg` line.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.compound import body_span, is_block
from autodd_lsp.syntax.indent import reindent
from autodd_lsp.syntax.patch import Edit, Patch, delete
from autodd_lsp.syntax.source import Source, last_line


def _inlinable(func: ast.AST) -> bool:
    if not isinstance(func, ast.FunctionDef) or func.decorator_list:
        return False
    args = func.args
    if args.vararg or args.kwarg or args.posonlyargs or args.kwonlyargs:
        return False
    for node in ast.walk(func):
        if node is not func and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False  # nested scopes: `return` and names would mean something else
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Await)):
            return False
        if isinstance(node, ast.Return) and node is not func.body[-1]:
            return False
    return True


def _call_of(stmt: ast.stmt) -> ast.Call | None:
    value = None
    if isinstance(stmt, ast.Expr) or (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        value = stmt.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value
    return None


def _bindings(source: Source, func: ast.FunctionDef, call: ast.Call, indent: str) -> str | None:
    """`param = argument` lines, or None if the call does not match the signature."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    params = func.args.args
    defaults = [None] * (len(params) - len(func.args.defaults)) + list(func.args.defaults)
    if len(call.args) > len(params):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    if set(keywords) - {p.arg for p in params}:
        return None
    lines = []
    for i, (param, default) in enumerate(zip(params, defaults, strict=False)):
        value = call.args[i] if i < len(call.args) else keywords.get(param.arg, default)
        if value is None:
            return None
        text = source.segment(value)
        if text != param.arg:  # `opts = opts` binds nothing new: the name already holds the value
            lines.append(f"{indent}{param.arg} = {text}\n")
    return "".join(lines)


def inline_edit(source: Source, func: ast.FunctionDef, stmt: ast.stmt, call: ast.Call, name: str) -> Edit | None:
    if not is_block(source, func, func.body) or not source.owns_its_lines(stmt):
        return None
    indent = source.indent_of_line(stmt.lineno)
    bindings = _bindings(source, func, call, indent)
    if bindings is None:
        return None
    body = func.body
    last = body[-1]
    result = None
    if isinstance(last, ast.Return):
        result = source.segment(last.value) if last.value is not None else "None"
        body = body[:-1]
    target = source.segment(stmt.targets[0]) if isinstance(stmt, ast.Assign) else None
    tail = ""
    if target is not None:
        tail = f"{indent}{target} = {result or 'None'}\n"
    elif result is not None and result != "None":
        tail = f"{indent}{result}\n"
    kept = body_span(source, body) if body else None
    inner = source.indent_of_line(source.first_line(func.body[0]))

    def build(render) -> str:
        text = reindent(render(*kept), inner, indent) if kept else ""
        return bindings + text + tail

    call_start, call_end = source.line_start(stmt.lineno), source.line_end(last_line(stmt))
    def_start, def_end = source.stmt_lines_span(func)
    patches = (
        Patch(call_start, call_end, build, keeps=(kept,) if kept else ()),
        delete(def_start, def_end),
    )
    weight = (def_end - def_start) // 4
    return Edit(patches, name, weight=weight)


@register
class InlineCalls(ReductionPass):
    name = "inline functions called once"
    group = Group.SIMPLIFY
    order = -1

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        functions = {}
        for stmt in source.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                functions[stmt.name] = stmt if stmt.name not in functions else None
        uses: dict[str, int] = {}
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Name):
                uses[node.id] = uses.get(node.id, 0) + 1
        edits = []
        for node in ast.walk(source.tree):
            if not isinstance(node, ast.stmt):
                continue
            call = _call_of(node)
            if call is None or not isinstance(call.func, ast.Name):  # _call_of: a call of a name
                continue
            func = functions.get(call.func.id)
            if not isinstance(func, ast.FunctionDef) or uses.get(func.name) != 1 or not _inlinable(func) or ctx.is_frozen(func):
                continue
            edit = inline_edit(source, func, node, call, self.name)
            if edit is not None:
                edits.append(edit)
        return edits
