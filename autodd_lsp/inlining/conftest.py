"""Inline a pytest test's conftest.py files, so that the reduced test is one standalone file.

pytest supplies a test's fixtures from the conftest.py files of its folder and
the folders above it. A test file copied alone into an empty folder has none,
so their code is written at the top of the test file (after its docstring and
`__future__` imports), outermost conftest first: pytest imports them in that
order before the test module, and a fixture defined in the test module
overrides a conftest's, as a later definition overrides an earlier one here.
All of each conftest goes in (its fixtures, autouse ones included, and what
they use); the reduction then removes what the test does not need.

Names follow pytest's rules, not only Python's: a fixture keeps its name (it is
looked up by name), unless the test module defines the same name (then the
module's wins in pytest, and the conftest's is renamed `conftest_name`); any
other top-level name of a conftest is renamed where it collides with a name of
the test module or of another conftest. The same import in both is no
collision. `__file__` and `__name__` become strings (`renaming.py`,
through `scopes.py`). The user's files are only read. Hooks (`pytest_*`
functions) do not work from a test module: the engine runs the inlined test
without conftest.py files and uses it only if it fails the same way.
"""

from __future__ import annotations

import ast
import os

from autodd_lsp.files import read_python_source
from autodd_lsp.inlining.inline import Inlined
from autodd_lsp.inlining.names import top_level_names
from autodd_lsp.inlining.renaming import CannotInline, apply_patches, rename_module
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.source import Source


def inline_conftests(text: str, path: str, conftests: list[str]) -> Inlined:
    """`text` (the test file at `path`) with the code of `conftests` (outermost first) written at its top."""
    try:
        tree = parse(text)
    except SyntaxError:
        return Inlined(text)
    modules: list[tuple[str, str, ast.Module]] = []
    kept: list[tuple[str, str]] = []
    for conftest in conftests:
        try:
            conftest_text = read_python_source(conftest)
            modules.append((conftest, conftest_text, parse(conftest_text)))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as error:
            kept.append((conftest, f"cannot be read: {error}"))
    if kept or not modules:
        return Inlined(text, kept=tuple(kept))
    own = _bindings_of(tree)
    taken = set(own) | {name for _, _, t in modules for name in top_level_names(t)}  # and every new name
    pieces = []
    for index, (conftest, conftest_text, conftest_tree) in enumerate(modules):
        if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in conftest_tree.body):
            return Inlined(text, kept=((conftest, "it has a __future__ import of its own"),))
        others: dict[str, object] = dict(own)
        for other_index, (_, _, other_tree) in enumerate(modules):
            if other_index != index:
                for name, key in _bindings_of(other_tree).items():
                    others.setdefault(name, key)
        fixtures = _fixture_names(conftest_tree)
        new_names = {}
        for name, key in _bindings_of(conftest_tree).items():
            collides = name in others and (key is None or others[name] != key)
            if name in fixtures and name not in own:
                collides = False  # a later conftest's fixture overrides it, as in pytest
            new = name
            if collides:
                new = f"conftest_{name}"
                while new in taken:
                    new += "_"
                taken.add(new)
            new_names[name] = new
        try:
            body = rename_module(conftest_text, conftest_tree, new_names, "conftest", conftest)
        except CannotInline as why:
            return Inlined(text, kept=((conftest, str(why)),))
        pieces.append(f"# from {os.path.relpath(conftest, os.path.dirname(os.path.abspath(path)))}\n"
                      + body.rstrip("\n") + "\n\n\n")
    at = _insertion_point(text, tree)
    code = "".join(pieces) if at < len(text) or text.endswith("\n") or not text else "\n" + "".join(pieces)
    try:
        new_text = apply_patches(text, [(at, at, code)])
    except CannotInline:
        return Inlined(text)
    return Inlined(new_text, tuple(c for c, _, _ in modules))


def _bindings_of(tree: ast.Module) -> dict[str, object]:
    """Top-level names -> the import that binds them (a hashable key), or None for any other binding."""
    keys: dict[str, object] = dict.fromkeys(top_level_names(tree))
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                bound = (alias.asname or alias.name).split(".")[0]
                key: tuple[object, ...]
                if isinstance(statement, ast.Import):
                    key = ("import", alias.name if alias.asname else bound)
                else:
                    key = ("from", statement.level, statement.module, alias.name)
                keys[bound] = key if keys.get(bound, key) in (None, key) and _bound_once(tree, bound) else None
    return keys


def _bound_once(tree: ast.Module, name: str) -> bool:
    """Whether only imports bind `name` at the top level (an import, then `name = ...`, is no import)."""
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
                return False
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                return False
    return True


def _fixture_names(tree: ast.Module) -> set[str]:
    """Top-level functions decorated with `fixture` / `pytest.fixture` / `pytest.fixture(...)`."""
    names = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in statement.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in ("fixture", "yield_fixture"):
                    names.add(statement.name)
    return names


def _insertion_point(text: str, tree: ast.Module) -> int:
    """Where the conftests' code goes: after the docstring and the `__future__` imports."""
    body = tree.body
    index = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        index = 1
    while index < len(body):
        statement = body[index]
        if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
            break
        index += 1
    if index == len(body):
        return len(text)
    statement = body[index]
    line = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
    return Source(text, tree).offset(line, 0)
