"""A test's project: where its root is, and the folders its imports resolve in as pytest has them.

A test in a project's usual layout imports the project's own package from
beside its folder, not from below it: `tests/test_ops.py` does `from pkg.ops
import rsub` with `pkg/` beside `tests/` (tinygrad's `test/` and `tinygrad/`),
or from `src/` (`src/pkg/`). pytest finds it because of where it stands:

* the project root (`project_root`): the first folder up from the test holding
  a pytest or packaging config file (`pytest.ini`, `pyproject.toml`,
  `tox.ini`, `setup.cfg`, `setup.py`) or `.git`; pytest's rootdir is that
  folder in the layouts this covers. `python -m pytest` run there puts it on
  `sys.path`, and so does a `conftest.py` there (pytest inserts a conftest's
  folder, its "basedir", in its default import mode);
* the test module's basedir: the first folder up from the test's own without
  an `__init__.py` (with `tests/__init__.py`, the root);
* the `pythonpath` ini option (`pythonpath = src .`), relative to the root;
* `src/` under the root when it holds a package (installed as editable, the
  src layout's usual way).

`import_roots` gives those folders, in that order, without the test's own
folder (always first). The inliner (`inline.py`) resolves the program's
imports in the test's folder and then in these, and a module found there is
the program's own code; the engine runs candidates with them on `sys.path`,
so a candidate runs the same wherever the user started it. `package_version`
says which version of a package the project declares, for a result that
still imports it. Reads files only.
"""

from __future__ import annotations

import ast
import configparser
import os
import re

ROOT_MARKERS = (
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "setup.py",
    ".git",
)


def project_root(path: str) -> str:
    """The first folder up from the file at `path` holding a config file or `.git` (its own folder if none)."""
    start = folder = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def import_roots(path: str) -> tuple[str, ...]:
    """The folders besides the test's own that pytest's `sys.path` gives its imports (module docstring)."""
    own = os.path.dirname(os.path.abspath(path))
    root = project_root(path)
    if root == own:
        return ()
    basedir = own
    while os.path.isfile(os.path.join(basedir, "__init__.py")) and basedir != root:
        basedir = os.path.dirname(basedir)
    found = [basedir, root]
    found.extend(
        os.path.normpath(os.path.join(root, entry)) for entry in _ini_pythonpath(root)
    )
    src = os.path.join(root, "src")
    if os.path.isdir(src) and any(
        os.path.isfile(os.path.join(src, n, "__init__.py")) for n in _listing(src)
    ):
        found.append(src)
    return tuple(f for f in dict.fromkeys(found) if f != own and os.path.isdir(f))


def project_imports(text: str, path: str) -> list[tuple[str, str]]:
    """(top-level package or module, the folder of `import_roots` it is found in) for each one of the
    test's project that `text` (the test file at `path`) imports anywhere, in order; not those of its
    own folder, which the inliner takes, nor installed ones."""
    own = os.path.dirname(os.path.abspath(path))
    roots = import_roots(path)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module.split(".")[0])
    found = []
    for name in dict.fromkeys(names):
        if _module_in(own, name):
            continue
        root = next((r for r in roots if _module_in(r, name)), None)
        if root is not None:
            found.append((name, root))
    return found


def _module_in(folder: str, name: str) -> bool:
    return os.path.isfile(os.path.join(folder, name + ".py")) or os.path.isfile(
        os.path.join(folder, name, "__init__.py")
    )


def package_version(folder: str, root: str) -> str | None:
    """The version a package (its folder) declares: a literal `__version__` in its `__init__.py`,
    else the `version` of the project's pyproject.toml or setup.cfg at `root`; None if neither says."""
    try:
        with open(os.path.join(folder, "__init__.py"), "rb") as handle:
            tree = ast.parse(handle.read())
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Constant)
                and any(
                    isinstance(t, ast.Name) and t.id == "__version__"
                    for t in statement.targets
                )
            ):
                return str(statement.value.value)
    except (OSError, SyntaxError, ValueError):
        pass
    project = _toml(os.path.join(root, "pyproject.toml")).get("project", {})
    if isinstance(project, dict) and isinstance(project.get("version"), str):
        return project["version"]
    version = _ini(os.path.join(root, "setup.cfg"), "metadata", "version")
    return version or None


def _ini_pythonpath(root: str) -> list[str]:
    """The `pythonpath` ini option of the project's pytest configuration, in pytest's order of files."""
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest")):
        if os.path.isfile(os.path.join(root, name)):
            return (_ini(os.path.join(root, name), section, "pythonpath") or "").split()
    options = _toml(os.path.join(root, "pyproject.toml")).get("tool", {})
    options = (
        options.get("pytest", {}).get("ini_options")
        if isinstance(options, dict)
        else None
    )
    if isinstance(options, dict):
        value = options.get("pythonpath", [])
        return [value] if isinstance(value, str) else [str(v) for v in value]
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        value = _ini(os.path.join(root, name), section, "pythonpath")
        if value is not None:
            return value.split()
    return []


def _ini(path: str, section: str, key: str) -> str | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
        return parser.get(section, key, fallback=None)
    except (configparser.Error, UnicodeDecodeError):
        return None


def _toml(path: str) -> dict:
    """The two keys read here of a pyproject.toml (`[project] version`, `[tool.pytest.ini_options]
    pythonpath`), by their usual spelling: a string, or a list of strings on one or more lines
    (no TOML parser before Python 3.11)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}
    sections: dict[str, str] = {}
    for match in re.finditer(
        r"^\[([^\]\n]+)\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL
    ):
        sections[match.group(1).strip()] = match.group(2)
    found: dict = {}
    pythonpath = re.search(
        r"^\s*pythonpath\s*=\s*(\[[^\]]*\]|\"[^\"]*\")",
        sections.get("tool.pytest.ini_options", ""),
        re.MULTILINE,
    )
    if pythonpath:
        found["tool"] = {
            "pytest": {
                "ini_options": {
                    "pythonpath": re.findall(r"\"([^\"]*)\"", pythonpath.group(1))
                }
            }
        }
    version = re.search(
        r"^\s*version\s*=\s*\"([^\"]*)\"", sections.get("project", ""), re.MULTILINE
    )
    if version:
        found["project"] = {"version": version.group(1)}
    return found


def _listing(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
