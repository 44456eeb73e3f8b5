"""A top-level import the interpreter cannot satisfy: the environment, not a bug to reduce.

When a person asks what their program fails with (no failure given: `autodd SOURCE`,
the editor's question), a run that ends in `ModuleNotFoundError: No module named 'torch'`
raised by one of the program's own top-level imports says that the interpreter lacks
the package, not that the program has a bug: offering it as "the failure to keep"
would "reduce" the program to `import torch`. `missing_import` recognises that run;
`MissingImport.message` says which interpreter (path, version) lacks which module and
how to choose another. A person who names that failure themselves (`--err-msg "No module
named 'torch'"`) still gets it reduced: only the suggestion is withheld.
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import dataclass

from autodd_lsp.syntax.parsing import parse

_MISSING = re.compile(r"^ModuleNotFoundError: No module named '([^']+)'\s*$")
VERSION_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class MissingImport:
    module: str  # as the error names it ("torch", "numpy.linalg")
    python: str  # the interpreter that ran the program
    version: str  # its version ("3.11.4"), "" when it could not be asked

    def message(self) -> str:
        version = f" (Python {self.version})" if self.version else ""
        return (f"{self.python}{version} cannot import {self.module!r}, which the program imports at its top "
                "level: that is the environment, not a bug to reduce. Run it with an interpreter that has "
                f"{self.module.split('.')[0]!r}: --python PATH on the command line; in VS Code the "
                "autodd.interpreter setting, or the Python extension's selected interpreter")

    def fields(self) -> dict[str, str]:
        """The editor's view of it (the server's `environment` field)."""
        return {"python": self.python, "version": self.version, "module": self.module, "message": self.message()}


def missing_import(output: str, text: str, python: str) -> MissingImport | None:
    """The module a top-level import of `text` could not find, when that ended the run `output`; else None."""
    lines = [line for line in output.splitlines() if line.strip()]
    found = _MISSING.match(lines[-1]) if lines else None
    if found is None:
        return None
    module = found.group(1)
    if module.split(".")[0] not in top_level_roots(text):
        return None  # a lazy import inside a function: where the program fails may be the bug
    return MissingImport(module, python, interpreter_version(python))


def top_level_roots(text: str) -> set[str]:
    """The first components of the modules `text` imports at module level (absolute imports)."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return set()
    roots: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            roots.add(stmt.module.split(".")[0])
    return roots


def interpreter_version(python: str) -> str:
    """`python`'s version ("3.11.4"), or "" when it cannot be asked."""
    try:
        done = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, timeout=VERSION_TIMEOUT_S, stdin=subprocess.DEVNULL,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
