"""What every kind of failure declares: `Kind`, the base of the one class in each kind's module.

A kind is everything the rest of AutoDD needs to know about one way a program
can fail, in one place:

* how a person asks for it: its command-line flag and argparse shape
  (`flag`, `flag_arguments`, `from_flag`), its `autodd.minimize` argument
  (`field`, `from_request`, `to_request`), and how it is checked (`check`,
  which names the flag or the argument it was given as);
* how it is said: `describe` (what is kept), `sentence` (what a program with
  it does), `command_line` (the flag that asks for it);
* how it is judged: `oracle` (the pure judge of `autodd_lsp/oracle/`), its
  failure lines (`observer`), what the original must show (`not_reproduced`),
  the rule's words (`rule`), the environment its runs need (`env`), whether the
  original's values are recorded (`records_values`), whether candidates run to
  the original's limit (`runs_to_the_limit`), what a pytest test changes
  (`test_problem`, `test_must_fail`);
* whether a trial run suggests it (`suggest`);
* how the bug report and the regression test express it (`report_*`,
  `regression_*`; the report's own layout is `autodd_lsp/report`'s).

Values are plain (a message, a pattern, a signal's name, a status, None): the
engine's `FailureSpec` pairs a kind's name with one. A bad value is a
`ValueError` with one line for the person; the caller turns it into its own
error. This package sits above the oracle and below the engine: it imports the
oracle and nothing of the engine or the front ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.same import Observation, Observer


class _NotGiven:
    def __repr__(self) -> str:
        return "NOT_GIVEN"


# What `from_flag` returns when the flag was not on the command line.
NOT_GIVEN: Any = _NotGiven()

# The regression test's helper that leaves out the source lines a traceback quotes.
UNQUOTED_LINES = '''

def unquoted_lines(output):
    """The lines of `output`, less the source lines a traceback quotes."""
    found, after_header = [], False
    for line in output.splitlines():
        quoted = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        if not quoted:
            found.append(line)
    return found
'''


class Kind:
    """One kind of failure to keep; a module defines one subclass and registers one instance."""

    name: ClassVar[str]  # how the engine names it: FailureSpec.kind ("exit-code")
    flag: ClassVar[str]  # its command-line flag ("--exit-code")
    flag_arguments: ClassVar[Mapping[str, Any]]  # argparse's add_argument keywords for the flag
    field: ClassVar[str]  # its autodd.minimize argument ("exitCode")
    env: ClassVar[Mapping[str, str]] = {}  # what its runs' environment gets beyond the user's
    records_values: ClassVar[bool] = True  # the recording run can show it (a killed run writes nothing)
    runs_to_the_limit: ClassVar[bool] = False  # candidates get the original's limit; the original runs once
    test_problem: ClassVar[str] = ""  # why a pytest test cannot keep it ("": it can)
    test_must_fail: ClassVar[bool] = False  # with a pytest test, the test must also fail as a test
    probes_operands: ClassVar[bool] = False  # every run is of the probed program (engine/rules/operand_probe.py)

    # -- asked for -------------------------------------------------------------------

    def from_flag(self, given: Any) -> Any:
        """The value argparse left for the flag, or NOT_GIVEN when the flag was not given."""
        return NOT_GIVEN if given is None else given

    def from_request(self, given: Any) -> Any:
        """The value of the autodd.minimize argument (given: not absent, null, false or "");
        ValueError (one line naming `field`) for one of the wrong type."""
        return given

    def to_request(self, value: Any) -> Any:
        """The autodd.minimize argument's value that asks for `value` (from_request's inverse)."""
        return value

    def check(self, value: Any, name: str) -> None:
        """Raise ValueError (one line; `name` is the flag or the argument it was given as) for a bad value."""
        if value is not None:
            raise ValueError(f"{name} takes no value")

    def command(self, value: Any) -> str:
        """The shell command that judges each candidate instead of a run of the program ("": the program
        runs, as `python file.py`); `execution.Launch.shell` runs it."""
        return ""

    def blind(self, value: Any, name: str) -> str:
        """With a `command`: the one line that refuses it when it accepts an empty program under the
        source's name `name` (it does not read the candidate)."""
        return ""

    # -- said ------------------------------------------------------------------------

    def describe(self, value: Any, timeout: float | None) -> str:
        """What is kept, in words: "the message 'boom'", "killed by SIGSEGV", "hangs past 2 s"."""
        raise NotImplementedError

    def sentence(self, value: Any, timeout: float | None) -> str:
        """What a program with this failure does, after "it": "is killed by SIGSEGV"."""
        raise NotImplementedError

    def command_line(self, value: Any) -> list[str]:
        """The flag (and its value) that asks for this on the command line."""
        return [self.flag] if value is None else [self.flag, str(value)]

    # -- judged ----------------------------------------------------------------------

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        """The kind's judge, set from the original's run."""
        raise NotImplementedError

    def observer(self, oracle: Any, is_program: Callable[[str], bool],
                 program_paths: Callable[[], tuple[str, ...]]) -> Observer | None:
        """What reads this kind's failure lines and their places (None: it has none)."""
        return None

    def not_reproduced(self, value: Any, oracle: Oracle, run: Run, runs: int, timeout: float, hint: bool) -> str:
        """Why the original does not count, after `runs` runs (`run` the last); `hint`: say --repeat may help."""
        return oracle.why_not(run, timeout)

    def loose_rule(self, oracle: Oracle) -> str:
        """The rule's words when only the kind's own rule judges."""
        return oracle.describe()

    def rule(self, oracle: Oracle, match: str, first: Observation | None) -> str:
        """How candidates are judged, in words: what is kept and, by default, the same failure line's rule."""
        kept = self.loose_rule(oracle)
        if match == "substring" or first is None:
            return kept  # nothing more to compare: no failure line (a hang, a crash without a dump, a bare exit)
        if first.place is None:
            return f"{kept}; same failure line"
        return f"{kept}; same failure line, same place"

    def rule_prefix(self, oracle: Oracle) -> str:
        """What the rule's words start with before the failure line's rule ("exit status 3; ")."""
        return oracle.describe() + "; "

    # -- suggested ---------------------------------------------------------------------

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        """Values a trial run of the program suggests, best first; `offered`: kinds before this one offered some."""
        return []

    def title(self, value: Any, timeout: float | None) -> str:
        """How a suggestion of this kind is offered to a person to pick."""
        return self.describe(value, timeout)

    # -- written up --------------------------------------------------------------------

    def kept(self, value: Any, signal: int | None) -> Any:
        """The value a finished reduction kept (`signal`: the one the original died by, if any)."""
        return value

    run_flags: ClassVar[str] = ""  # interpreter flags the report's command to run the reproducer carries

    def report_failure(self, value: Any, timeout: float, has_line: bool, code: Callable[[str], str]) -> tuple[str, bool]:
        """The report's sentence before its failure lines, and whether the lines follow."""
        if has_line:
            return f"It {self.sentence(value, timeout)}; the line showing its failure:", True
        return f"It {self.sentence(value, timeout)}; it shows no failure line of its own.", False

    def report_shows(self, value: Any, timeout: float, line: str, code: Callable[[str], str]) -> str:
        """What the reproducer shows, for the report's first sentence (`line`: its failure line, or "")."""
        return f"it {self.sentence(value, timeout)}" + (f", showing {code(line)}." if line else ".")

    regression_while_there: ClassVar[str]  # the regression test's docstring: what the test sees while the bug is there
    regression_helpers: ClassVar[str] = ""  # functions the test's check uses
    regression_check: ClassVar[str]  # the test's check of `done` (its run) and `output`
    regression_timed_out: ClassVar[str] = "python {REPRODUCER_NAME} did not finish within {TIMEOUT_S:g} s"
    # the test's COMMAND as a Python expression over the test's own names, when a list of words cannot say it
    regression_command_expression: ClassVar[str] = ""

    def report_command(self, value: Any, reproducer: str) -> str:
        """The report's command that shows the failure ("": run the reproducer, `python NAME`)."""
        return ""

    def regression_command(self, value: Any, command: list[str], reproducer: str, folder: str) -> list[str]:
        """What the regression test runs after the interpreter: `command` (the reproducer as a script or
        its test) unless the kind judges another way; `folder`: where the reduction's runs ran."""
        return command

    def regression_constants(self, value: Any) -> str:
        """The test module's constants that name the failure (of the value `kept` returned)."""
        return ""

    def regression_limit(self, timeout: float, minimum: float) -> float:
        """The test's time limit: room to finish, at least `minimum`."""
        return max(timeout, minimum)


class SwitchKind(Kind):
    """A failure asked for by a flag without a value (`--hang`, `--wrong-answer`): `true` as its argument."""

    def from_flag(self, given: Any) -> Any:
        return None if given else NOT_GIVEN

    def from_request(self, given: Any) -> Any:
        if given is not True:
            raise ValueError(f"{self.field} must be true")
        return None

    def to_request(self, value: Any) -> Any:
        return True


class PrintedKind(Kind):
    """A failure named by text the program prints (a message, a regular expression): a string
    argument, failure lines found by its oracle, and a pytest test must also fail as a test."""

    test_must_fail = True

    def from_request(self, given: Any) -> Any:
        if not isinstance(given, str):
            raise ValueError(f"{self.field} must be a string")
        return given

    def observer(self, oracle: Any, is_program: Callable[[str], bool],
                 program_paths: Callable[[], tuple[str, ...]]) -> Observer | None:
        return Observer(oracle.message, is_program, program_paths, find=oracle.find)
