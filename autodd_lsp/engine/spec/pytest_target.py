"""A failing pytest test as the thing to reduce: `path.py::test_x[64-float16]`.

The one home of what "reduce a test, not a script" means to the engine:

* `split_source` parses SOURCE once: `path.py::test`, `path.py::test[params]`
  or `path.py::Class::test` gives the file and the test's node id inside it
  (`ReduceOptions.test`); anything else with `::` is bad input (one line);
* `PytestTest.launch` is how candidates start (`execution.Launch`): `python -m
  pytest FILE::test` with output options the oracle reads: `--tb=native`
  (Python's own traceback format, which the same-place rule parses), `-q -rN
  --no-header --color=no` (no short summary line repeating the message, no
  colours), `-s` (the test's output in order, before the report), `-p
  no:cacheprovider` (no `.pytest_cache` beside the user's file) and
  `--import-mode=importlib` (a candidate's hidden file name, `.autodd-...`, is
  not an importable module name). Once the conftest.py fixtures are inlined,
  candidates run with `--noconftest`, so a fixture the reduction dropped is not
  supplied by the conftest it came from; the final check (`standalone=True`)
  is plain `python -m pytest file.py::test` in an empty folder;
* `not_run_reason`: the test did not fail (it passed, was not found, did not
  collect), in one line, from pytest's exit status;
* `conftest_files`: the conftest.py files pytest loads for the file (from its
  project root, the first folder up holding a pytest/packaging config file or
  `.git`, down to the file's own folder).

The failure rule itself (a test must run and fail: exit status 1) is the
oracle's (`oracle/pytest_outcome.py`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.execution import FILE, Launch, RunResult
from autodd_lsp.inlining.project import ROOT_MARKERS

# The test's own environment, plus: no bytecode written beside the user's files (pytest caches
# the rewritten test module in __pycache__ otherwise).
PYTEST_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}
_NODE = re.compile(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*(\[.*\])?", re.DOTALL)
_OUTPUT_OPTIONS = ("-p", "no:cacheprovider", "--tb=native", "-q", "-rN", "--no-header", "--color=no", "-s")
# pytest's exit statuses (pytest.ExitCode) other than 1, "tests failed"
_NOT_RUN = {
    0: "the test passes",
    2: "pytest was interrupted (an error while collecting the file?)",
    3: "pytest failed with an internal error",
    4: "pytest cannot run it (no such test, or bad arguments)",
    5: "pytest collected no test",
}


def split_source(source: str) -> tuple[str, str]:
    """SOURCE as (file, test node id inside it; "" for a script). UsageError for a bad node id."""
    path, sep, test = source.partition("::")
    if not sep:
        return source, ""
    check_test_id(test, source)
    return path, test


def check_test_id(test: str, shown: str | None = None) -> None:
    if not _NODE.fullmatch(test):
        raise UsageError(
            f"{shown or test}: not a pytest node id (FILE.py::test_name, FILE.py::test_name[params] "
            "or FILE.py::Class::test_name)"
        )


@dataclass(frozen=True)
class PytestTest:
    test: str  # the node id inside the file: "test_x[64-float16]", "TestK::test_x"

    def launch(self, conftest: bool = True, standalone: bool = False) -> Launch:
        """How a candidate of the test file is started (see the module docstring)."""
        args = [f"{FILE}::{self.test}", *_OUTPUT_OPTIONS]
        if not standalone:
            args.append("--import-mode=importlib")
            if not conftest:
                args.append("--noconftest")
        return Launch("pytest", tuple(args))

    def command(self, file: str) -> list[str]:
        """The command line after `python` that runs the test of `file` alone, as the final check does."""
        return self.launch(standalone=True).argv(file)

    def not_run_reason(self, result: RunResult) -> str | None:
        """Why the run shows no failure of the test (one line), or None if the test failed."""
        if result.returncode == 1 or result.returncode is None or result.returncode < 0:
            return None
        what = _NOT_RUN.get(result.returncode, f"pytest exited with status {result.returncode}")
        return f"{self.test}: {what}"


def conftest_files(path: str) -> list[str]:
    """The conftest.py files that apply to the test file at `path`, outermost first."""
    folder = os.path.dirname(os.path.abspath(path))
    found: list[str] = []
    while True:
        conftest = os.path.join(folder, "conftest.py")
        if os.path.isfile(conftest):
            found.append(conftest)
        parent = os.path.dirname(folder)
        if parent == folder or any(os.path.exists(os.path.join(folder, m)) for m in ROOT_MARKERS):
            break
        folder = parent
    return found[::-1]
