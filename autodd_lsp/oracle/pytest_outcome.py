"""A pytest test's failure: the test must run and fail, not only print the message.

Under pytest a message can show without the test failing: a collection error
(the failing code moved to module level), a test not found, an error that
pytest reports and then exits with another status. Exit status 1 ("tests
failed") is the only one that says the selected test ran and failed (in its
body or its fixtures' set-up); with one node id selected, it is that test.
`TestFailed` wraps the kind's rule (a message or a regular expression) with
that requirement; the rest (failure lines, places) is the wrapped rule's.
"""

from __future__ import annotations

from typing import Any

from autodd_lsp.oracle.run import Oracle, Run

TESTS_FAILED = 1  # pytest.ExitCode.TESTS_FAILED


class TestFailed:
    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, inner: Oracle, original: Run) -> None:
        self.inner = inner
        self.reproduced_by_original = original.returncode == TESTS_FAILED and inner.reproduced_by_original

    def accepts(self, run: Run, text: str) -> bool:
        return run.returncode == TESTS_FAILED and self.inner.accepts(run, text)

    def why_not(self, run: Run, timeout: float) -> str:
        return self.inner.why_not(run, timeout)

    def describe(self) -> str:
        return self.inner.describe()

    def __getattr__(self, name: str) -> Any:  # message, find, ...: the wrapped rule's
        return getattr(self.inner, name)
