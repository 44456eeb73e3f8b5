"""The registry of kinds of failure (autodd_lsp/kinds): everything that lists the kinds derives from it.

Pure: nothing here runs a program (the kinds' behaviour on real programs is tests/test_failure_kinds.py's).
"""

import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

from autodd_lsp.cli.arguments import build_parser, failure_to_keep
from autodd_lsp.engine import FailureSpec, ReduceOptions, RunOptions, UsageError
from autodd_lsp.engine.asking.question import failure_question
from autodd_lsp.execution import RunResult
from autodd_lsp.kinds import KINDS, Kind
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.server.request import (
    ENGINE_OPTIONS,
    MinimizeRequest,
    RunError,
    failure_fields,
    failure_from_arguments,
)

ROOT = Path(__file__).resolve().parents[1]
# One value of each registered kind, as a person could ask for it.
EXAMPLES: dict[str, str | int | None] = {
    "message": "ValueError: bad shape",
    "regex": r"K_A = \d+",
    "crash": "SIGSEGV",
    "exit-code": 3,
    "hang": None,
    "wrong-answer": None,
    "check": "python driver.py {}",
}


def test_every_registered_kind_has_an_example_here():
    assert set(EXAMPLES) == set(KINDS)


@pytest.mark.parametrize("name", list(KINDS))
def test_each_kind_is_a_cli_flag_and_a_server_argument_that_ask_for_the_same_failure(name):
    spec = FailureSpec(name, EXAMPLES[name])
    spec.validate()
    # The command line: the kind's flag parses back to the same failure.
    args = build_parser().parse_args(["prog.py", *spec.command_line()])
    assert failure_to_keep(args) == spec
    # The server: the kind's argument parses back to the same failure.
    assert failure_from_arguments(spec.arguments()) == spec
    request = MinimizeRequest.parse(({"uri": "file:///p.py", **spec.arguments()},))
    assert request.failure == spec


def test_the_front_ends_list_exactly_the_registered_kinds():
    flags = {option for action in build_parser()._actions for option in action.option_strings}
    assert {kind.flag for kind in KINDS.values()} <= flags
    assert failure_fields() == [kind.field for kind in KINDS.values()]
    with pytest.raises(UsageError, match=re.escape("(--err-msg, --err-regex, --crash, --exit-code, --hang, --wrong-answer or --check)")):
        failure_to_keep(build_parser().parse_args(["prog.py", "--hang", "--exit-code", "3"]))
    with pytest.raises(RunError, match=re.escape("give one failure to keep (errMsg, errRegex, crash, exitCode, hang, wrongAnswer, check), not")):
        failure_from_arguments({"errMsg": "x", "hang": True})


def test_every_kind_and_option_is_documented_for_the_command_line_and_the_server():
    # the manual (docs/, the MkDocs site) in words, besides the options table generated from the code
    docs = "\n".join(path.read_text() for path in sorted((ROOT / "docs").rglob("*.md")))
    server = (ROOT / "notes" / "server.md").read_text()
    minimize = re.search(r"`autodd\.minimize \{(.*?)\}`", server)
    assert minimize is not None, "notes/server.md lists no autodd.minimize arguments"
    documented = set(re.findall(r"(\w+)\??(?::|,|$)", minimize.group(1)))
    for kind in KINDS.values():
        assert kind.flag in docs, f"docs/ does not mention {kind.flag}"
        assert kind.field in documented, f"notes/server.md's autodd.minimize does not list {kind.field}"
    for key in ENGINE_OPTIONS:  # and the run options, derived from the engine's options model
        assert key in documented, f"notes/server.md's autodd.minimize does not list {key}"


def test_a_bad_value_is_named_as_it_was_given():
    with pytest.raises(UsageError, match=r"^--exit-code must be from 1 to 255, got 0"):
        FailureSpec.exit_code(0).validate()
    with pytest.raises(RunError, match=r"^exitCode must be from 1 to 255, got 0"):
        failure_from_arguments({"exitCode": 0})
    with pytest.raises(RunError, match=r"^crash: unknown signal 'SIGNOPE'"):
        failure_from_arguments({"crash": "SIGNOPE"})
    with pytest.raises(RunError, match=r"^errRegex: bad regular expression"):
        failure_from_arguments({"errRegex": "("})
    with pytest.raises(RunError, match=r"^hang must be true"):
        failure_from_arguments({"hang": "yes"})
    with pytest.raises(UsageError, match="cannot be kept for a pytest test"):
        ReduceOptions(failure=FailureSpec.exit_code(3), test="test_x").validate()


# -- the failure question, read from runs (no program is run) ------------------------------------

TRACEBACK = b'Traceback (most recent call last):\n  File "p.py", line 1, in <module>\nValueError: bad shape\n'


def question(run: RunResult, test: str = ""):
    return failure_question(run, RunOptions(timeout=2.0, test=test))


def test_the_question_offers_messages_first_then_the_failures_without_one():
    crashed = question(RunResult(b"", b"Fatal Python error: Segmentation fault\n", -11))
    assert crashed.messages == ["Fatal Python error: Segmentation fault"]
    assert [(c.title, c.spec.arguments(), c.spec.command_line()) for c in crashed.others] == [
        ("killed by SIGSEGV", {"crash": "SIGSEGV"}, ["--crash", "SIGSEGV"])]
    exited = question(RunResult(b"", TRACEBACK, 1))
    assert exited.messages[0] == "ValueError: bad shape" and exited.others == []  # the 1 of an uncaught exception
    assert [c.title for c in question(RunResult(b"", b"", 3)).others] == ["exit status 3"]
    assert [c.spec for c in question(RunResult(b"", b"", None, timed_out=True)).choices] == [FailureSpec.hang()]
    assert question(RunResult(b"fine\n", b"", 0)).choices == ()


def test_a_tests_question_offers_only_what_it_prints():
    failed = question(RunResult(b"", TRACEBACK + b"FAILED p.py::test_x\n", 1), test="test_x")
    assert failed.not_run is None and failed.others == [] and "ValueError: bad shape" in failed.messages
    passed = question(RunResult(b"1 passed\n", b"", 0), test="test_x")
    assert passed.not_run and passed.choices == ()


# -- a new kind is one module: registered alone, it is a flag, an argument and a suggestion ---------


class Silent(Kind):
    """A test-only kind: the program prints nothing at all."""

    name = "silent"
    flag = "--silent"
    flag_arguments: ClassVar[dict[str, Any]] = {"action": "store_true", "help": "the program prints nothing"}
    field = "silent"

    def from_flag(self, given):
        return None if given else super().from_flag(None)

    def from_request(self, given):
        if given is not True:
            raise ValueError(f"{self.field} must be true")
        return None

    def describe(self, value, timeout):
        return "prints nothing"

    def sentence(self, value, timeout):
        return "prints nothing"

    def oracle(self, value, original: Run, text: str, timeout: float) -> Oracle:
        raise AssertionError("not judged here")

    def suggest(self, run, offered):
        return [None] if not run.output.strip() and not offered else []


def test_a_kind_registered_alone_gets_a_flag_an_argument_and_a_place_in_the_question(monkeypatch):
    monkeypatch.setitem(KINDS, "silent", Silent())
    spec = FailureSpec("silent")
    spec.validate()
    assert spec.describe() == "prints nothing" and spec.command_line() == ["--silent"]
    assert failure_to_keep(build_parser().parse_args(["prog.py", "--silent"])) == spec
    assert "--silent" in build_parser().format_help()
    assert failure_fields()[-1] == "silent"
    assert failure_from_arguments({"silent": True}) == spec
    with pytest.raises(RunError, match="not hang and silent"):
        failure_from_arguments({"silent": True, "hang": True})  # listed in the registry's order
    assert [c.spec for c in question(RunResult(b"", b"", 0)).choices] == [spec]


def test_every_engine_option_with_a_flag_is_the_cli_flag_with_its_default_and_help():
    from autodd_lsp.engine.lifecycle.options import engine_options

    actions = {action.dest: action for action in build_parser()._actions}
    for option in engine_options():
        if not option.flags:
            continue
        action = actions[option.field]
        assert tuple(action.option_strings) == option.flags
        default = tuple(action.default) if isinstance(action.default, list) else action.default  # a repeatable flag
        assert (default, action.help) == (option.default, option.help), option.field


def test_the_kinds_import_nothing_above_them():
    import ast

    above = ("autodd_lsp.engine", "autodd_lsp.cli", "autodd_lsp.server", "autodd_lsp.report", "autodd_lsp.execution")
    for path in (ROOT / "autodd_lsp" / "kinds").glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        assert not [name for name in imported if name.startswith(above)], path.name
