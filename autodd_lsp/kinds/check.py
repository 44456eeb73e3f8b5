"""`--check CMD` / `check`: your own test decides (the oracle: `oracle/user_check.py`).

shrinkray's and C-Vise's convention, so existing interestingness scripts work: a
candidate is kept when CMD exits with 0, and CMD runs where the candidate is the
file. CMD runs through the shell, once per candidate instead of the program
(`execution.Launch.shell`), in its job slot's mirror of the folders from the working
folder (where `autodd` was started; the editor's workspace folder) down to the
source's, the candidate in it under the source's own name
(`engine/candidate/mirror.py`), CMD in the mirror's working folder: a check that
names the file (`python service.py`, `import service`) sees the candidate; `{}`
(replaced by its shell-quoted path) and `$AUTODD_CANDIDATE` name it too; `python`
in CMD is the candidates' interpreter (its folder comes first on PATH). Before the
reduction CMD must pass on the original and fail on an empty program under the
source's name (`blind`: one that passes does not read the candidate). The
same-failure rules (failure line, place, recorded values) do not apply: your check
is the rule, and the summary says so. Speed, the cache, `-j`, freeze annotations (never rewritten), the
report (its command is CMD on the reproducer) and the regression test (it runs
CMD on the reproducer, and fails while CMD exits with 0) do. Never suggested by
a trial run (nothing in a run says which check you mean); not for a pytest test
(CMD is given the file); not on Ray (a shell command runs on this machine).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import Kind
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.same import Observation
from autodd_lsp.oracle.user_check import UserCheckOracle

# The regression test's run: the interpreter running pytest runs this snippet, which runs CMD as the
# reduction did (its folder, the reproducer for {}, AUTODD_CANDIDATE, this interpreter first on PATH).
_RUN_CHECK = (
    "import os, shlex, subprocess, sys; path = os.path.abspath({name!r}); "
    "env = {{**os.environ, 'AUTODD_CANDIDATE': path, "
    "'PATH': os.pathsep.join([os.path.dirname(sys.executable), os.environ.get('PATH', os.defpath)])}}; "
    "sys.exit(subprocess.run({command!r}.replace('{{}}', shlex.quote(path)), shell=True, cwd={folder!r}, "
    "env=env).returncode)"
)


class Check(Kind):
    name = "check"
    flag = "--check"
    flag_arguments: ClassVar[Mapping[str, Any]] = {
        "metavar": "CMD",
        "help": "your own test instead of a failure: a candidate is kept when CMD exits with 0 (shrinkray's and "
                "C-Vise's convention); CMD runs through the shell where the candidate is SOURCE (a temporary copy of "
                "the folders from here down to it, the candidate under its name), with {} replaced by the "
                "candidate's path (also in $AUTODD_CANDIDATE); the same-bug rules do not apply",
    }
    field = "check"
    records_values = False  # the recording run runs the program, not your check
    test_problem = "--check runs your command on the file: give the file as SOURCE, not a pytest test in it"

    def from_request(self, given: Any) -> Any:
        if not isinstance(given, str):
            raise ValueError(f"{self.field} must be a shell command (a string), got {given!r}")
        return given

    def check(self, value: Any, name: str) -> None:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} needs a shell command that exits with 0 while the bug is there")

    def command(self, value: Any) -> str:
        return str(value)

    def blind(self, value: Any, name: str) -> str:
        return (f"your check `{value}` exits with 0 on an empty {name} too: it does not read the candidate "
                f"(run {name} by its name or give {{}})")

    def describe(self, value: Any, timeout: float | None) -> str:
        return f"your check `{value}` exits with 0"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return f"makes your check `{value}` exit with 0"

    def command_line(self, value: Any) -> list[str]:
        return [self.flag, str(value)]

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return UserCheckOracle(str(value), original)

    def rule(self, oracle: Oracle, match: str, first: Observation | None) -> str:
        return oracle.describe()  # the user's check is the whole rule

    def report_failure(self, value: Any, timeout: float, has_line: bool, code: Callable[[str], str]) -> tuple[str, bool]:
        return f"Your check {code(str(value))} exits with 0 on it (the bug is there); AutoDD read no failure line.", False

    def report_shows(self, value: Any, timeout: float, line: str, code: Callable[[str], str]) -> str:
        return f"your check {code(str(value))} exits with 0 on it."

    def report_command(self, value: Any, reproducer: str) -> str:
        command = str(value)
        if "{}" in command:
            return command.replace("{}", reproducer) + "    # your check: exit status 0 = the bug is there"
        # it reads the file by its own name, as the reduction ran it (engine/candidate/mirror.py)
        return command + "    # your check, with the reproducer in your file's place: exit status 0 = the bug is there"

    def regression_command(self, value: Any, command: list[str], reproducer: str, folder: str) -> list[str]:
        return ["-c", _RUN_CHECK.format(name=reproducer, command=str(value), folder=folder)]

    regression_while_there = (
        "The test runs your check (CHECK) on it, from the folder the\nreduction ran in. While the bug is there "
        "the check exits with 0, and the test fails;\nonce it exits otherwise, the test passes."
    )
    regression_check = '''\
    assert done.returncode != 0, (
        f"the bug is still there: your check {CHECK!r} exits with 0 on {REPRODUCER_NAME}"
        f"\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        return f"CHECK = {str(value)!r}"


KIND = Check()
