"""Inline the program's own modules, so that the reproducer is one standalone file.

A failure often passes through the user's modules beside the script (files under
its folder, not installed packages; for a test, also its project's package beside
its folder, in the folders `project.import_roots` names). The reproducer must still be one file that
runs with a fresh `python` from any folder, so each such module imported at the
top level of the program is written into it, where the import stood:

* its top-level names keep their names, unless they would collide with a name
  used elsewhere (then `module_name`); every use that resolves to them is
  renamed (`scopes.py` follows Python's scoping rules). A name both bind by the
  same import of an installed module (`import torch` in each) is no collision;
* `import m` / `import m as x` goes, and `x.name` becomes the (new) name
  (`import a.b`: `a.b.name` and `a.name`); `from m import a as b` goes, and `b`
  becomes `a`'s (new) name; `from m import *` binds m's exported names;
* the module's own local imports are inlined first, the same way (relative
  imports in packages too), and a package's `__init__.py` before its first
  submodule; `__name__` and `__file__` in it become its name and its path as
  strings, so an `if __name__ == "__main__":` in it stays dead.

A script that rebinds the module's name (`model = model.RNNModel(...)`) gives the module a
name of its own first (`rebinding.py`). A module used in any other way (passed as a value, an attribute set on it from a
function, a star import whose names the program defines too, imported inside a
function, a `__future__` import of its own) keeps its import: `Inlined.kept`
says which and why. The user's files
are only read. The engine runs the inlined program before reducing it and uses
it only if it fails as the original does.

This module decides: which imports name the program's own files, in what
order their code runs, under which names, and when an import must stay.
`renaming.py` makes the text edits it asks for and `names.py` answers what a
syntax tree binds and reads; neither knows of this module.
"""

from __future__ import annotations

import ast
import builtins
import os
from dataclasses import dataclass, field

from autodd_lsp.files import read_python_source
from autodd_lsp.inlining.names import (
    bindings,
    is_docstring,
    names_used,
    only_attribute_uses,
    top_level_names,
)
from autodd_lsp.inlining.rebinding import name_the_rebound_modules
from autodd_lsp.inlining.renaming import (
    CannotInline,
    apply_patches,
    rename_module,
    rename_patches,
)
from autodd_lsp.syntax.bindings import bound_name, names_in
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.source import Source, end_col, last_line


@dataclass(frozen=True)
class Inlined:
    text: str
    modules: tuple[str, ...] = ()  # files inlined, in the order they run
    kept: tuple[tuple[str, str], ...] = ()  # (module, why its import stays)
    spans: tuple[tuple[int, int], ...] = ()  # where the inlined code lies in `text` (character ranges)


@dataclass
class _Module:
    path: str  # absolute file path
    name: str  # the name it is imported by (dotted)
    package: str  # folder its relative imports start from
    root: str  # the folder of `roots` its name is relative to


@dataclass
class _State:
    roots: tuple[str, ...]  # where absolute imports resolve: the program's folder, then a test's project's
    taken: set[str]
    order: list[str] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)
    done: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> its names' new names
    hoisted: list[str] = field(default_factory=list)
    active: set[str] = field(default_factory=set)
    # name -> the installed module (or its name) that the program or an inlined module binds to it
    # by its one top-level import: a module that imports the same under that name needs no rename
    imports: dict[str, tuple[str, ...]] = field(default_factory=dict)


def inline_local_modules(text: str, path: str, roots: tuple[str, ...] = ()) -> Inlined:
    """`text` (the program at `path`) with its own top-level-imported modules inlined: those in its
    folder and below it, and in `roots` (a test's project's folders, `project.import_roots`)."""
    root = os.path.dirname(os.path.abspath(path))
    try:
        tree = parse(text)
    except SyntaxError:
        return Inlined(text)
    me = _Module(os.path.abspath(path), "__main__", root, root)
    state = _State(roots=(root, *roots), taken=set(dir(builtins)))
    original = text  # given back when nothing is inlined
    text = name_the_rebound_modules(text, tree, lambda name: _resolve(state, me, name, 0) is not None)
    tree = parse(text) if text is not original else tree
    state.taken |= names_used(tree) - _imported_only(tree, me, state)
    state.imports = _installed_imports(tree, me, state)
    spans: list[tuple[int, int]] = []
    try:
        new_text, _ = _rewrite_importer(text, tree, me, state, spans)
    except CannotInline as why:
        return Inlined(original, kept=(*state.kept, ("the program's imports", str(why))))
    if not state.order:
        return Inlined(original, kept=tuple(state.kept))
    return Inlined(new_text, tuple(state.order), tuple(state.kept), tuple(spans))


# -- finding the program's own modules ------------------------------------------------


def _resolve(state: _State, importer: _Module, module: str | None, level: int) -> tuple[str, str, str] | None:
    """(file, dotted name, its root) of a local module, or None if it is not one of the program's files."""
    if level:
        base = importer.package
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases = [(base, importer.root)]
    else:
        bases = [(root, root) for root in state.roots]
    if not module:  # `from .. import name`: the package itself
        init = os.path.join(bases[0][0], "__init__.py")
        if level and os.path.isfile(init) and os.path.abspath(init).startswith(importer.root + os.sep):
            return os.path.abspath(init), os.path.relpath(bases[0][0], importer.root).replace(os.sep, "."), importer.root
        return None
    parts = module.split(".")
    for base, root in bases:
        candidate = os.path.join(base, *parts)
        for file in (candidate + ".py", os.path.join(candidate, "__init__.py")):
            if os.path.isfile(file) and os.path.abspath(file).startswith(root + os.sep):
                return os.path.abspath(file), module, root
    return None


# -- rewriting an importer -------------------------------------------------------------


def _rewrite_importer(text: str, tree: ast.Module, me: _Module, state: _State,
                      spans: list[tuple[int, int]] | None = None) -> tuple[str, dict[str, str]]:
    """`text` with its top-level imports of local modules replaced by their code, and the names
    those imports bound, mapped to the inlined modules' names for them; `spans` gets where
    that code lies in the new text."""
    offset = Source(text, tree).offset

    patches: list[tuple[int, int, str]] = []
    renames: dict[str, str] = {}  # importer's global name -> new name
    attribute_modules: dict[str, dict[str, str]] = {}  # alias -> (its names -> new names)
    for statement in tree.body:
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        replacement = _inline_statement(statement, tree, me, state, renames, attribute_modules)
        if replacement is None:
            continue
        start = offset(statement.lineno, statement.col_offset)
        end = offset(last_line(statement), end_col(statement))
        patches.append((start, end, replacement))
    if not patches:
        return text, renames
    _check_local_imports_elsewhere(tree, me, state, attribute_modules)
    inlined = set(patches)
    patches.extend(rename_patches(tree, renames, attribute_modules, offset))
    if spans is not None:
        spans.extend(_new_spans(patches, inlined))
    return apply_patches(text, patches), renames


def _new_spans(patches: list[tuple[int, int, str]], wanted: set[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Where the replacements of the `wanted` patches lie once all `patches` are applied."""
    spans, shift = [], 0
    for start, end, replacement in sorted(patches):
        if (start, end, replacement) in wanted:
            spans.append((start + shift, start + shift + len(replacement)))
        shift += len(replacement) - (end - start)
    return spans


def _inline_statement(statement, tree, me: _Module, state: _State, renames, attribute_modules) -> str | None:
    """The code that replaces one import statement (None: it stays as it is)."""
    if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
        return None
    pieces: list[str] = []
    plan: list[tuple[ast.alias, tuple[str, str, str] | None, str | None]] = []  # alias, module found, name imported from it
    for alias in statement.names:
        if alias.name == "*":  # `from m import *`: every name m exports
            plan.append((alias, _resolve(state, me, statement.module, statement.level), "*"))
            continue
        if isinstance(statement, ast.Import):
            plan.append((alias, _resolve(state, me, alias.name, 0), None))
            continue
        module = statement.module
        submodule = _resolve(state, me, _qualified(statement, alias), statement.level)  # `from pkg import mod`
        if submodule is not None:
            plan.append((alias, submodule, None))
        else:
            plan.append((alias, _resolve(state, me, module, statement.level), alias.name))
    if all(found is None for _, found, _ in plan):
        return None
    resolved = [(alias, found, name) for alias, found, name in plan if found is not None]
    if len(resolved) < len(plan):
        state.kept.append((_statement_modules(statement), "its import statement also imports other modules"))
        return None
    for alias, found, name in resolved:
        bound = bound_name(alias)
        if name is None and not only_attribute_uses(tree, bound):
            state.kept.append((found[1], f"{bound} is used as a value, not only as {bound}.name"))
            return None
        if name == "*":
            clash = sorted(_exported(found[0]) & top_level_names(tree, skip=statement))
            if clash:
                state.kept.append((found[1], f"`from {found[1]} import *` and the program both define {clash[0]}"))
                return None
    for alias, found, name in resolved:
        bound = bound_name(alias)
        inits = _package_inits(state, found[0], found[2])
        code = None if inits is None else _module_code(state, _Module(found[0], found[1], os.path.dirname(found[0]), found[2]))
        if inits is None or code is None or (name not in (None, "*") and name not in state.done[found[0]]):
            if code is not None:
                state.kept.append((found[1], f"{name} is not one of its top-level names"))
            return None if not pieces else _give_up()
        pieces.extend(inits)
        pieces.append(code)
        names = state.done[found[0]]
        if name == "*":
            exported = _exported(found[0])
            if not exported <= names.keys():
                raise CannotInline(f"its __all__ names {sorted(exported - names.keys())[0]}, which it does not define")
            renames.update({n: names[n] for n in exported})
        elif name is None and not alias.asname and "." in alias.name:
            # `import a.b` binds the package `a`: `a.b.x` is b's x, `a.y` the package's y
            _nest(attribute_modules, alias.name.split("."), names, state, found[2])
        elif name is None:  # keeping what an earlier `import a.b` nested in `a`
            nested = {k: v for k, v in attribute_modules.get(bound, {}).items() if isinstance(v, dict)}
            attribute_modules[bound] = {**names, **nested}
        else:
            renames[bound] = names[name]
    return "".join(pieces).rstrip("\n")


def _exported(path: str) -> set[str]:
    """The names `from m import *` binds: m's `__all__` when it is a literal, else its public names."""
    try:
        tree = parse(read_python_source(path))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets
        ):
            try:
                names = ast.literal_eval(statement.value)
            except ValueError:
                raise CannotInline("its __all__ is computed") from None
            return {str(n) for n in names}
    return {n for n in top_level_names(tree) if not n.startswith("_")}


def _package_inits(state: _State, path: str, root: str) -> list[str] | None:
    """The code of the packages' `__init__.py` above `path` (below `root`) that has not run yet,
    outermost first: Python runs them before the module. None: one of them cannot be inlined."""
    chain, folder = [], os.path.dirname(path)
    while folder.startswith(root + os.sep) and os.path.isfile(os.path.join(folder, "__init__.py")):
        if os.path.join(folder, "__init__.py") != path:
            chain.append(folder)
        folder = os.path.dirname(folder)
    pieces = []
    for folder in reversed(chain):
        name = os.path.relpath(folder, root).replace(os.sep, ".")
        code = _module_code(state, _Module(os.path.join(folder, "__init__.py"), name, folder, root))
        if code is None:
            return None
        pieces.append(code)
    return pieces


def _nest(attribute_modules: dict, parts: list[str], names: dict[str, str], state: _State, root: str) -> None:
    """After `import a.b.c` (found in `root`): `a` maps to the package's names, with `b` (and in it `c`) nested."""
    level = attribute_modules
    for depth, part in enumerate(parts[:-1], 1):
        init = os.path.join(root, *parts[:depth], "__init__.py")
        existing = level.get(part)
        level[part] = dict(existing) if isinstance(existing, dict) else dict(state.done.get(init, {}))
        level = level[part]
    level[parts[-1]] = names


def _give_up():
    raise CannotInline("part of an import statement could not be inlined")


def _statement_modules(statement) -> str:
    if isinstance(statement, ast.Import):
        return ", ".join(a.name for a in statement.names)
    return "." * statement.level + (statement.module or "")


def _module_code(state: _State, module: _Module) -> str | None:
    """The module's code as inlined (its own local imports inlined first); "" if already inlined."""
    if module.path in state.done:
        return ""
    if module.path in state.active:
        state.kept.append((module.name, "imports itself back (a cycle)"))
        return None
    try:
        text = read_python_source(module.path)
        tree = parse(text)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as error:
        state.kept.append((module.name, f"cannot be read: {error}"))
        return None
    if all(is_docstring(s) for s in tree.body):  # an empty `__init__.py`: nothing to run
        state.done[module.path] = {}
        return ""
    state.active.add(module.path)
    try:
        names = top_level_names(tree)
        if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in tree.body):
            raise CannotInline("it has a __future__ import of its own")
        # Names it binds by importing another local module are that module's: they reserve nothing.
        via_import = _imported_only(tree, module, state)
        own_imports = _installed_imports(tree, module, state)
        new_names = {
            name: name if name in own_imports and state.imports.get(name) == own_imports[name]
            else _fresh_name(state, module, name)
            for name in sorted(names - via_import)
        }
        for name, what in own_imports.items():  # kept under its name: later modules may share it too
            if new_names.get(name) == name:
                state.imports.setdefault(name, what)
        # its inner names too: a later module must not shadow them
        state.taken.update(names_used(tree) - via_import)
        state.done[module.path] = new_names
        body, imported = _rewrite_importer(text, tree, module, state)  # its own local imports
        body_tree = parse(body)
        still = top_level_names(body_tree)
        by_imports = {n for st in body_tree.body if isinstance(st, ast.ImportFrom) for n in bindings(st)}
        for name in sorted(names & via_import & by_imports):  # its import was kept: a name of its own
            new_names[name] = _fresh_name(state, module, name)
        for gone in names - still:  # bound by an import that was inlined: its uses name the other
            new_names.pop(gone, None)  # module's global now, and so does `module.gone`
        body = rename_module(body, body_tree, new_names, module.name, module.path)
        state.done[module.path] = {**new_names, **{n: imported[n] for n in names - new_names.keys() if n in imported}}
    except CannotInline as why:
        state.done.pop(module.path, None)
        state.kept.append((module.name, str(why)))
        return None
    finally:
        state.active.discard(module.path)
    state.order.append(module.path)
    return body if body.endswith("\n") else body + "\n"


def _imported_only(tree: ast.Module, me: _Module, state: _State) -> set[str]:
    """Names that `tree` binds only by `from <local module> import ...`: once inlined they are that
    module's own names, so they do not make its names collide."""
    imported: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module != "__future__":
            found = _resolve(state, me, statement.module, statement.level)
            for alias in statement.names:
                if alias.name == "*":
                    if found is not None:
                        imported |= _exported_or_none(found[0])
                elif found is not None or _resolve(state, me, _qualified(statement, alias), statement.level):
                    imported.add(alias.asname or alias.name)
    if not imported:
        return imported
    own = {id(alias) for s in tree.body if isinstance(s, ast.ImportFrom) for alias in s.names}
    return imported - names_in(tree, reads=False, skip=own)


def _installed_imports(tree: ast.Module, me: _Module, state: _State) -> dict[str, tuple[str, ...]]:
    """Names that `tree` binds once at its top level, by importing an installed module or a name
    from one (`import torch`, `import torch.nn as nn`, `from math import pi`): what each holds."""
    bound: dict[str, int] = {}
    for statement in tree.body:
        for name in bindings(statement):
            bound[name] = bound.get(name, 0) + 1
    found: dict[str, tuple[str, ...]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if _resolve(state, me, alias.name, 0) is None:
                    held = alias.name if alias.asname else alias.name.split(".")[0]
                    found[bound_name(alias)] = ("module", held)
        elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module != "__future__":
            if _resolve(state, me, statement.module, 0) is None:
                for alias in statement.names:
                    if alias.name != "*" and _resolve(state, me, _qualified(statement, alias), 0) is None:
                        found[alias.asname or alias.name] = ("from", statement.module or "", alias.name)
    # a name that is also bound otherwise (assigned, imported twice) may hold something else
    return {name: what for name, what in found.items() if bound.get(name) == 1}


def _qualified(statement: ast.ImportFrom, alias: ast.alias) -> str:
    return f"{statement.module}.{alias.name}" if statement.module else alias.name


def _exported_or_none(path: str) -> set[str]:
    try:
        return _exported(path)
    except CannotInline:
        return set()


def _fresh_name(state: _State, module: _Module, name: str) -> str:
    """`name`, or `module_name` when another module or the program uses it; reserved."""
    new = name
    if name in state.taken:
        stem = module.name.rsplit(".", 1)[-1].replace("-", "_")  # a package's own name for its __init__
        new = f"{stem}_{name}"
        while new in state.taken:
            new += "_"
    state.taken.add(new)
    return new


def _check_local_imports_elsewhere(tree: ast.Module, me: _Module, state: _State, attribute_modules) -> None:
    """A local module inlined here and also imported inside a function would run twice."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import) and any(bound_name(a) in attribute_modules for a in inner.names):
                    raise CannotInline("it is imported inside a function too")


