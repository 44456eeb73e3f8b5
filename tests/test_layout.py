"""The package's shape, read from its source (no import, no process: fast).

- no two modules share a file name (`__init__.py` and `__main__.py` aside): a name says
  which module is meant, in a traceback, a note or a review;
- dependencies point one way: no module imports a layer listed below its own in
  notes/architecture.md's table (front ends -> engine -> lower layers), and every
  package of autodd_lsp has its row there;
- the front ends drive the engine through `autodd_lsp.engine` alone: no engine
  submodule, nothing of the layers the engine hides (execution, search, passes...);
- no import cycle between modules (function-level imports included: a cycle hidden
  in a function is still one);
- the engine's modules live in rooms (its subpackages), each with its row in
  notes/architecture.md's room table, and no room imports a room listed below its own;
- no module over 450 lines, and no two classes or type aliases share a name (one name
  per concept).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autodd_lsp"
ARCHITECTURE = ROOT / "notes" / "architecture.md"


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its file (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            candidates = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c in known and c != name)
    return found


def layer_ranks() -> dict[str, int]:
    """Top-level package of autodd_lsp -> its row in architecture.md's layer table (0 = top).

    A row counts when its home column names only `autodd_lsp/<package>/` folders (the
    front ends share one row); rows that name single modules describe a feature across
    layers and rank nothing.
    """
    ranks: dict[str, int] = {}
    row = 0
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3 or cells[0] in ("layer", "") or set(cells[0]) <= {"-"}:
            continue
        homes = re.findall(r"`([^`]+)`", cells[1])
        packages = [m.group(1) for home in homes if (m := re.fullmatch(r"autodd_lsp/(\w+)/", home))]
        if packages and len(packages) == len([h for h in homes if h.startswith("autodd_lsp/")]):
            for package in packages:
                ranks[package] = row
            row += 1
    return ranks


def test_no_two_modules_share_a_file_name():
    names = Counter(path.name for path in PACKAGE.rglob("*.py") if path.name not in ("__init__.py", "__main__.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_every_package_has_its_layer_and_none_imports_a_layer_below_it():
    ranks = layer_ranks()
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages - ranks.keys() == set(), "a package without its row in notes/architecture.md"
    assert ranks["syntax"] < ranks["passes"] < ranks["engine"] < ranks["cli"] == ranks["server"]
    known = modules()
    upward = []
    for name, path in known.items():
        layer = name.split(".")[1] if name.count(".") >= 1 else ""
        for imported in imported_modules(name, path, known):
            target = imported.split(".")[1] if imported.count(".") >= 1 else ""
            if layer in ranks and target in ranks and ranks[target] > ranks[layer]:
                upward.append(f"{name} imports {imported}")
            if layer not in ranks and name != "autodd_lsp.__main__" and target in ranks:
                upward.append(f"{name} (shared ground, below every layer) imports {imported}")
    assert upward == []


FRONT_ENDS = ("cli", "server")
HIDDEN_BY_THE_ENGINE = ("execution", "search", "passes", "oracle", "values", "inlining")


def test_the_front_ends_use_the_engine_package_alone():
    reached_past = []
    for front_end in FRONT_ENDS:
        for path in sorted((PACKAGE / front_end).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and not node.level:
                    named = [node.module or ""]
                elif isinstance(node, ast.Import):
                    named = [alias.name for alias in node.names]
                else:
                    continue
                for module in named:
                    parts = module.split(".")
                    if parts[0] == "autodd_lsp" and len(parts) > 1 and (
                        (parts[1] == "engine" and len(parts) > 2) or parts[1] in HIDDEN_BY_THE_ENGINE
                    ):
                        reached_past.append(f"{path.relative_to(ROOT)} imports {module}")
    assert reached_past == []


def test_no_import_cycle_between_modules():
    known = modules()
    graph = {name: imported_modules(name, path, known) for name, path in known.items()}
    cycles = []
    done: set[str] = set()

    def visit(name: str, stack: list[str]) -> None:
        if name in stack:
            cycles.append(" -> ".join([*stack[stack.index(name):], name]))
            return
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*stack, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []


def test_the_scan_sees_imports_and_layers():
    """The checks above would pass vacuously if the scan found nothing: it finds what is there."""
    known = modules()
    assert "autodd_lsp.passes.base" in imported_modules("autodd_lsp.passes.format", known["autodd_lsp.passes.format"], known)
    serve_loop = "autodd_lsp.execution.runner.serve_loop"
    assert "autodd_lsp.execution.runner.child" in imported_modules(serve_loop, known[serve_loop], known)  # relative
    ranks = layer_ranks()
    assert len(set(ranks.values())) >= 10 and ranks["execution"] < ranks["engine"]


ENGINE = PACKAGE / "engine"


def room_ranks() -> dict[str, int]:
    """Room of the engine -> its row in architecture.md's room table (0 = the bottom room)."""
    ranks: dict[str, int] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and (m := re.fullmatch(r"`autodd_lsp/engine/(\w+)/`", cells[1])):
            ranks[m.group(1)] = len(ranks)
    return ranks


def test_the_engine_is_rooms_and_none_imports_a_room_below_it():
    ranks = room_ranks()
    rooms = {path.parent.name for path in ENGINE.glob("*/__init__.py")}
    assert rooms == ranks.keys(), "a room without its row in notes/architecture.md, or a row without its room"
    assert [path.name for path in ENGINE.glob("*.py")] == ["__init__.py"], "a module outside the rooms"
    assert ranks["spec"] < ranks["rules"] < ranks["candidate"] < ranks["searching"] < ranks["lifecycle"]
    known = modules()
    downward = []
    for name, path in known.items():
        parts = name.split(".")
        if parts[:2] != ["autodd_lsp", "engine"] or len(parts) < 3:
            continue
        for imported in imported_modules(name, path, known):
            target = imported.split(".")
            if target[:2] == ["autodd_lsp", "engine"] and len(target) == 2:
                downward.append(f"{name} imports the engine's API (the rooms are below it)")
            elif target[:2] == ["autodd_lsp", "engine"] and ranks[target[2]] > ranks[parts[2]]:
                downward.append(f"{name} imports {imported}")
    assert downward == []
    for room in rooms:
        assert ast.get_docstring(ast.parse((ENGINE / room / "__init__.py").read_text(encoding="utf-8"))), \
            f"engine/{room}/ states no contract"


def test_no_module_is_over_450_lines():
    long = {str(path.relative_to(ROOT)): n for path in PACKAGE.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 450}
    assert long == {}


def test_no_two_classes_or_type_aliases_share_a_name():
    """One name per concept: a class (or a capitalised alias such as `Record = dict[...]`) is
    named once in the package, so that a name in a note or a traceback means one thing."""
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                name = node.name
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id[:1].isupper() and not node.targets[0].id.isupper()):
                name = node.targets[0].id
            else:
                continue
            where.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}
    assert len(where) > 100  # the scan sees the package's classes


def test_the_room_scan_sees_the_rooms():
    ranks = room_ranks()
    assert len(ranks) == 7
    known = modules()
    fixpoint = "autodd_lsp.engine.searching.fixpoint"
    assert "autodd_lsp.engine.rules.protection" in imported_modules(fixpoint, known[fixpoint], known)
