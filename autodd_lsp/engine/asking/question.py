"""The failure question: which failures a trial run of the program shows, for a person to pick one.

Asked when no failure to keep was given. Computed here once, rendered by each
front end in its own words: the CLI prints each choice as a command line
(`FailureSpec.command_line`), the server offers each as an action of
`window/showMessageRequest` (its `title`) and answers `autodd.suggestErrMsg`
with `messages` and `others` (`FailureSpec.arguments`).

Every registered kind is asked in the registry's order (`Kind.suggest`), so
messages come first, best first; a kind after them knows whether any were
offered (a bare exit status 1 is not offered beside an exception's message).
A pytest test is asked only for what it prints: a failed test exits with 1
whatever failed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from autodd_lsp.engine.asking.environment import MissingImport, missing_import
from autodd_lsp.engine.asking.trial import trial_run
from autodd_lsp.engine.lifecycle.options import RunOptions
from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.engine.spec.pytest_target import PytestTest
from autodd_lsp.execution import RunResult
from autodd_lsp.files import read_python_source
from autodd_lsp.kinds import KINDS, message


@dataclass(frozen=True)
class FailureChoice:
    spec: FailureSpec
    title: str  # what a person picks: the message itself, or the failure in words ("killed by SIGSEGV")


@dataclass(frozen=True)
class FailureQuestion:
    run: RunResult  # the trial run it was read from
    choices: tuple[FailureChoice, ...]  # best first; empty: no failure to offer
    not_run: str | None = None  # a pytest test that did not run (not found, passed, not collected): why
    # The run ended in a missing top-level import: the environment, not a bug (nothing is offered).
    environment: MissingImport | None = None

    @property
    def messages(self) -> list[str]:
        """The messages offered (the `--err-msg` / `errMsg` choices)."""
        return [str(choice.spec.value) for choice in self.choices if choice.spec.rules is message.KIND]

    @property
    def others(self) -> list[FailureChoice]:
        """The failures without a message offered: a signal, a hang, an exit status."""
        return [choice for choice in self.choices if choice.spec.rules is not message.KIND]


def ask_failure(source_path: str, options: RunOptions, *, text: str | None = None,
                cancel: threading.Event | None = None) -> FailureQuestion:
    """Run the program once (`trial_run`: `text` instead of the file's, `cancel` stops it) and read the question.
    A run that ends in a missing top-level import offers nothing (engine/asking/environment.py)."""
    run = trial_run(source_path, options, text=text, cancel=cancel)
    program = text if text is not None else _file_text(source_path)
    missing = missing_import(run.output, program, options.python)
    if missing is not None:
        return FailureQuestion(run, (), environment=missing)
    return failure_question(run, options)


def _file_text(path: str) -> str:
    try:
        return read_python_source(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ""


def failure_question(run: RunResult, options: RunOptions) -> FailureQuestion:
    """The failures `run` (a trial run with `options`) shows, as a person is asked to pick one."""
    if options.test:
        not_run = PytestTest(options.test).not_run_reason(run)
        if not_run is not None:
            return FailureQuestion(run, (), not_run)
    choices: list[FailureChoice] = []
    for kind in KINDS.values():
        if options.test and not kind.test_must_fail:
            continue  # judged by what the test prints, or not at all
        for value in kind.suggest(run, offered=bool(choices)):
            choices.append(FailureChoice(FailureSpec(kind.name, value), kind.title(value, options.timeout)))
    return FailureQuestion(run, tuple(choices))
