"""What a finished reduction gives a maintainer besides the file: a bug report and a regression test.

    from autodd_lsp.report import bug_report, regression_test

    atomic_write(report_path, bug_report(summary, source_path, output_path, err_msg, options))
    atomic_write(test_path, regression_test(summary, source_path, output_path, err_msg, options))

Both take the engine's `Summary` of a finished run, the source's and the
reproducer's paths (only their names and the source's folder are used), the
message and the run's `ReduceOptions` (`python`: the interpreter whose
environment the report describes; `timeout`), and return text; they write
nothing. `bug_report` runs one short environment query with `options.python`
(`bugreport.query_environment`); `regression_test` runs nothing. Front-end
independent: the CLI (`--report`, `--emit-test`) and the language server
(`autodd.writeReport`, `autodd.writeTest`) only choose the paths and write.
"""

from __future__ import annotations

import os

from autodd_lsp.report.bugreport import (
    Environment,
    Package,
    bug_report,
    imported_modules,
    query_environment,
)
from autodd_lsp.report.regression import regression_test


def default_report_path(source_path: str) -> str:
    """`folder/name.py` -> `folder/name.report.md`."""
    stem, _ = os.path.splitext(source_path)
    return stem + ".report.md"


def default_test_path(source_path: str) -> str:
    """`folder/name.py` -> `folder/test_name_regression.py`."""
    folder, name = os.path.split(source_path)
    stem, _ = os.path.splitext(name)
    return os.path.join(folder, f"test_{stem}_regression.py")


__all__ = [
    "Environment",
    "Package",
    "bug_report",
    "default_report_path",
    "default_test_path",
    "imported_modules",
    "query_environment",
    "regression_test",
]
