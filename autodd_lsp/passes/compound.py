"""Flatten compound statements: keep one branch or the body, drop the header.

`if c: A else: B` becomes `A` or `B`; `for v in e: A` becomes `v = <value>`
then `A` (one iteration; the value `v` had when the original read it, see
autodd_lsp.values, or 0 for a name the run never read); `while`, `try`, `with`, `def` and `class` give way to their
body; `else` branches are dropped. Bodies are re-indented to the statement's
level, strings inside them untouched. A loop's or a function's body is not
hoisted where it cannot stand (`syntax/placement.py`: a `return` at module level,
a `break` outside a loop), nor a function's body that reads one of its parameters
that nothing else in the program binds: there the name is unbound, a NameError as
soon as the body runs (a method's `self`; on argparse_large nearly every refused
flatten was one), nor a class's body where the program reads the class's name.
A branch the original's run never took (`taken`: the run map says its header ran
and its first statement did not) is not put in its header's place either: an `if`'s
body or `else`, a loop's body, a handler.
"""

from __future__ import annotations

import ast
from collections import Counter

from autodd_lsp.passes.base import (
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    is_elif,
    register,
)
from autodd_lsp.passes.constants import usable_here
from autodd_lsp.syntax.bindings import binding_counts, parameters
from autodd_lsp.syntax.indent import reindent
from autodd_lsp.syntax.patch import Edit, Patch
from autodd_lsp.syntax.placement import LOOPS, Nesting, placed_statements
from autodd_lsp.syntax.source import Source, Span, last_line


def body_span(source: Source, body: list[ast.stmt]) -> Span:
    return source.stmt_lines_span(body[0])[0], source.line_end(last_line(body[-1]))


def is_block(source: Source, header: ast.stmt, body: list[ast.stmt]) -> bool:
    """An indented block on lines of its own (not `if x: y` on one line)."""
    return bool(body) and body[0].lineno > header.lineno and all(source.owns_its_lines(s) for s in body)


def hoist(source: Source, stmt: ast.stmt, body: list[ast.stmt], name: str, prefix: str = "") -> Edit:
    """Replace `stmt` (header, decorators and all) by `body` at the statement's indentation.

    `prefix` (already indented at the statement's level) is put before the body.
    """
    start = source.line_start(source.first_line(stmt))
    end = source.line_end(last_line(stmt))
    kept = body_span(source, body)
    outer = source.indent_of_line(source.first_line(stmt))
    inner = source.indent_of_line(source.first_line(body[0]))

    def build(render) -> str:
        return prefix + reindent(render(*kept), inner, outer)

    patch = Patch(start, end, build, keeps=(kept,))
    weight = (end - start) - (kept[1] - kept[0]) + len(prefix)
    return Edit((patch,), name, weight=weight)


def if_edits(ctx: PassContext, stmt: ast.If, name: str) -> list[Edit]:
    source = ctx.source
    edits = []
    if is_block(source, stmt, stmt.body) and taken(ctx, stmt, stmt.body):
        edits.append(hoist(source, stmt, stmt.body, name))
    if not stmt.orelse or not taken(ctx, stmt, stmt.orelse):
        return edits
    first_else = stmt.orelse[0]
    if isinstance(first_else, ast.If) and is_elif(source, first_else):
        edits.append(promote_elif(source, stmt, first_else, name))
    elif is_block(source, stmt, stmt.orelse):
        edits.append(hoist(source, stmt, stmt.orelse, name))
    return edits


def taken(ctx: PassContext, header: ast.stmt, branch: list[ast.stmt]) -> bool:
    """Whether the original's run may have taken `branch` of `header` (an `if`'s body or
    `else`, a loop's body, a handler): not where the run map says `header` ran and the
    branch's first statement never did. Put in the header's place, such a branch runs code
    the program decided not to run (`if cfg.debug:`, a loop over nothing, a handler for an
    error that never came): refused but for what was idle anyway, which the statement pass
    removes whole. Unknown (no map, code of unknown origin, a header that never ran: a
    kernel TileLang traces): taken."""
    if ctx.values is None or not branch:
        return True
    return not (ctx.values.ran(ctx.source.span(header)[0]) is True
                and ctx.values.ran(ctx.source.span(branch[0])[0]) is False)


def promote_elif(source: Source, stmt: ast.If, elif_stmt: ast.If, name: str) -> Edit:
    """`if a: ... elif b: ...` becomes `if b: ...`."""
    start = source.line_start(stmt.lineno)
    end = source.line_end(last_line(stmt))
    kept = (source.offset(elif_stmt.lineno, elif_stmt.col_offset), end)
    indent = source.indent_of_line(stmt.lineno)

    def build(render) -> str:
        return indent + "if" + render(*kept)[len("elif"):]

    weight = kept[0] - start
    return Edit((Patch(start, end, build, keeps=(kept,)),), name, weight=weight)


def drop_else(source: Source, stmt: ast.stmt, name: str) -> Edit | None:
    """Remove the `else:` branch (or the `elif` chain) of an if/for/while/try."""
    orelse = getattr(stmt, "orelse", None)
    if not orelse:
        return None
    end = source.line_end(last_line(orelse[-1]))
    if isinstance(stmt, ast.If) and is_elif(source, orelse[0]):
        start = source.line_start(orelse[0].lineno)
    else:
        else_line = _else_keyword_line(source, stmt, orelse)
        if else_line is None:
            return None
        start = source.line_start(else_line)
    if isinstance(stmt, ast.Try) and not stmt.handlers and not stmt.finalbody:
        return None
    patch = Patch(start, end, lambda render: "")
    return Edit((patch,), name, weight=end - start)


def _else_keyword_line(source: Source, stmt: ast.stmt, orelse: list[ast.stmt]) -> int | None:
    indent = source.indent_of_line(stmt.lineno)
    first = source.first_line(orelse[0])
    for line in range(first, stmt.lineno, -1):
        text = source.lines[line - 1]
        if text.startswith(indent + "else") and text[len(indent) + 4 :].lstrip().startswith(":"):
            return line
    return None


def for_edits(ctx: PassContext, stmt: ast.For | ast.AsyncFor, name: str) -> list[Edit]:
    source = ctx.source
    if not is_block(source, stmt, stmt.body):
        return []
    indent = source.indent_of_line(stmt.lineno)
    target = source.segment(stmt.target)
    values = dict.fromkeys(value for value in (loop_value(ctx, stmt), first_item(source, stmt)) if value is not None)
    return [hoist(source, stmt, stmt.body, name, prefix=f"{indent}{target} = {value}\n") for value in values]


def first_item(source: Source, stmt: ast.For | ast.AsyncFor) -> str | None:
    """The text of the first item of a loop over a list or tuple written out (`for m, n in
    [(64, 32), ...]`): the first iteration's value, whatever the run recorded (code whose
    origin is unknown, inlined from a module, has no record)."""
    items = stmt.iter.elts if isinstance(stmt.iter, (ast.List, ast.Tuple)) else []
    if not items or any(isinstance(item, ast.Starred) for item in items):
        return None
    return source.segment(items[0])


def loop_value(ctx: PassContext, stmt: ast.For | ast.AsyncFor) -> str | None:
    """Text for the loop target's first value: what the body read of each name it binds.

    A name the run read as a module, class, function or an instance with no
    literal gets nothing (None: no edit); one it never read gets 0.
    """
    reads: dict[str, ast.Name] = {}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in reads:
            reads[node.id] = node

    def value_of(target: ast.expr) -> str | None:
        if isinstance(target, ast.Name):
            use = reads.get(target.id)
            recorded = ctx.recorded(use) if use is not None else None
            if recorded is None:
                return "0"
            if recorded.literal is None or not usable_here(ctx, recorded):
                return None
            return recorded.literal
        if isinstance(target, (ast.Tuple, ast.List)):
            found = [value_of(element) for element in target.elts]
            parts = [part for part in found if part is not None]
            if len(parts) != len(found):
                return None
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return None  # a starred, attribute or subscript target

    text = value_of(stmt.target)
    if text is not None and isinstance(stmt.target, ast.Tuple) and text.startswith("("):
        text = text[1:-1] if not text.endswith(",)") else text
    return text


def with_edits(source: Source, stmt: ast.With | ast.AsyncWith, name: str) -> list[Edit]:
    if not is_block(source, stmt, stmt.body):
        return []
    edits = [hoist(source, stmt, stmt.body, name)]
    item = stmt.items[0] if len(stmt.items) == 1 else None
    if item is not None and item.optional_vars is not None:
        indent = source.indent_of_line(stmt.lineno)
        binding = f"{indent}{source.segment(item.optional_vars)} = {source.segment(item.context_expr)}\n"
        edits.append(hoist(source, stmt, stmt.body, name, prefix=binding))
    return edits


def try_edits(ctx: PassContext, stmt: ast.stmt, name: str) -> list[Edit]:
    # A Try, or a TryStar (3.11+, absent from the 3.10 stubs mypy checks against): both have a body.
    source = ctx.source
    body: list[ast.stmt] = stmt.body  # type: ignore[attr-defined]
    edits = []
    if is_block(source, stmt, body):
        edits.append(hoist(source, stmt, body, name))
    for handler in getattr(stmt, "handlers", []):
        if is_block(source, handler, handler.body) and taken(ctx, stmt, handler.body):
            edits.append(hoist(source, stmt, handler.body, name))
    return edits


def definition_edits(
    source: Source, stmt: ast.While | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, name: str,
) -> list[Edit]:
    if not is_block(source, stmt, stmt.body):
        return []
    return [hoist(source, stmt, stmt.body, name)]


@register
class SimplifyCompound(ReductionPass):
    name = "flatten compound statements"
    group = Group.STATEMENTS
    order = 1
    uses_values = True  # a loop's first values
    remembers_needed = Remembers.BY_NAMES

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        edits: list[Edit] = []
        everywhere = binding_counts(source.tree)
        for stmt, place in placed_statements(source.tree):
            if ctx.is_frozen(stmt):
                continue
            edits.extend(self._for_statement(ctx, stmt, place, everywhere))
            dropped = drop_else(source, stmt, self.name)
            if dropped:
                edits.append(dropped)
        return edits

    def _for_statement(self, ctx: PassContext, stmt: ast.stmt, place: Nesting, everywhere: Counter[str]) -> list[Edit]:
        source = ctx.source
        if isinstance(stmt, (*LOOPS, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and not place.allows(stmt.body):
            return []  # `return` where the `def` stood, `break` where the loop stood: the compiler refuses it
        if isinstance(stmt, ast.If):
            return if_edits(ctx, stmt, self.name)
        if isinstance(stmt, LOOPS) and not taken(ctx, stmt, stmt.body):
            return []
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            return for_edits(ctx, stmt, self.name)
        if isinstance(stmt, ast.While):
            return definition_edits(source, stmt, self.name) if is_block(source, stmt, stmt.body) else []
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            return with_edits(source, stmt, self.name)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            return try_edits(ctx, stmt, self.name)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and unbound_when_hoisted(source, stmt, everywhere):
            return []
        if isinstance(stmt, ast.ClassDef) and read_outside(source, stmt):
            return []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return definition_edits(source, stmt, self.name)
        return []


def unbound_when_hoisted(source: Source, func: ast.FunctionDef | ast.AsyncFunctionDef, everywhere: Counter[str]) -> bool:
    """Whether `func`'s body reads a parameter of its own that no other binding could serve
    once the body stands where the `def` was. `everywhere`: the program's bindings
    (`binding_counts(source.tree)`); any outside `func`, in any scope, counts (a generous guess),
    and so do the parameters of the functions around it."""
    params = parameters(func)
    read = {node.id for stmt in func.body for node in ast.walk(stmt)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    wanted = params & read
    if not wanted:
        return False
    outside = everywhere - binding_counts(func)
    parent = source.parents.get(func)
    while parent is not None and wanted:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            wanted -= parameters(parent)
        parent = source.parents.get(parent)
    return any(outside[name] == 0 for name in wanted)


def read_outside(source: Source, cls: ast.ClassDef) -> bool:
    """Whether the program reads the class's name outside its own body: without the class,
    `C()` or `C.x` is a NameError. (A function's body may stand where its `def` was even so:
    where the failure comes from that body, the call after it never runs.)"""
    inside = {id(node) for node in ast.walk(cls)}
    return any(isinstance(node, ast.Name) and node.id == cls.name and isinstance(node.ctx, ast.Load)
               and id(node) not in inside for node in ast.walk(source.tree))


