"""The contract every execution backend keeps.

A backend runs a candidate file so that, from inside, it looks like
`python that_file.py` started from the user's directory:
  * `__name__ == "__main__"`, a real `__file__`, `sys.argv == [path, *launch.args]` (the
    engine puts `path` beside the original, see engine/candidate/slots.py; the arguments are the user's);
  * stdin empty (/dev/null), or the launch's `stdin` file; the interpreter is `python` (never
    whatever is on PATH);
  * the environment is ours, with `extra_env` set (and PYTHONPATH, below);
  * cwd is `cwd` (`IN_ITS_FOLDER`: the candidate's own folder; the final check's
    runs, each alone in an empty folder, subproc only); `sys.path[0]` is the candidate's folder, and `extra_sys_path`
    (normally the original file's folder, so sibling imports still work) follows it,
    as PYTHONPATH would put it;
  * output is captured at the file-descriptor level (os.write, C extensions and
    child processes are seen), bounded to `output_limit` bytes per stream
    (head and tail kept, the middle dropped);
  * a hang is killed together with its whole process group at `timeout`;
    a crash (segfault, os._exit) keeps the output written so far;
  * nothing is left behind: no process, no temp file;
  * with `gpus` (a GpuPool), each run sees one GPU of it in `CUDA_VISIBLE_DEVICES`,
    set before the program's code runs, never the GPU of another running program.

`run` after `close` returns at once with `cancelled=True`; a `python` that cannot
be started at all raises OSError (from `run`, or from `start` for the runner).

How a candidate is started is the backend's `launch` (`Launch`): by default as
`python path`; or as `python -m MODULE ARGS` (a pytest node of the file:
`python -m pytest path::test_x --tb=native`), where `__main__` is that module
and `sys.path[0]` the working directory, as `-m` makes them. It is the one
place that knows the command line; the engine may replace it between runs.
"""

from __future__ import annotations

import os
import shlex
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import CodeType
from typing import Any

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.gpus import GpuPool

FILE = "{file}"  # in Launch.args: the candidate's path
CHECK_FILE = "{}"  # in Launch.shell: the candidate's path, quoted for the shell
CANDIDATE_ENV = "AUTODD_CANDIDATE"  # in a check's environment: the candidate's path


@dataclass(frozen=True)
class Launch:
    """How a candidate file is started: `python FILE *args` (no module: the user's own arguments,
    as given), or `python -m module *args` with FILE in `args` standing for the candidate's path;
    either reading `stdin` (a file's path; "": /dev/null) on its standard input."""

    module: str = ""
    args: tuple[str, ...] = ()
    stdin: str = ""
    # The user's own check (`--check CMD`): run CMD through the shell instead of the program,
    # CHECK_FILE in it standing for the candidate's path (quoted), which CANDIDATE_ENV also holds.
    shell: str = ""
    # Where CMD runs, relative to the candidate's folder (its mirror of the working folder:
    # engine/candidate/mirror.py); "": the backend's cwd.
    shell_cwd: str = ""

    def folder(self, path: str) -> str:
        """The folder the run of the candidate at `path` starts in; "" when it is the backend's cwd."""
        if not (self.shell and self.shell_cwd):
            return ""
        return os.path.normpath(os.path.join(os.path.dirname(path), self.shell_cwd))

    def command(self, python: str, path: str) -> list[str]:
        """The whole command line that starts the candidate at `path`."""
        if self.shell:
            return ["/bin/sh", "-c", self.shell.replace(CHECK_FILE, shlex.quote(path))]
        return [python, *self.argv(path)]

    def env(self, python: str, path: str, base: Mapping[str, str]) -> dict[str, str]:
        """The environment `base` of the run of the candidate at `path`, with what this launch adds:
        for a check, the candidate's path, and the candidates' interpreter's folder first on PATH
        (`python` in CMD is that interpreter, as in an activated virtual environment)."""
        if not self.shell:
            return dict(base)
        folder = os.path.dirname(python)
        path_var = os.pathsep.join(part for part in (folder, base.get("PATH", os.defpath)) if part)
        where = {"PWD": self.folder(path)} if self.shell_cwd else {}  # as a shell that `cd`ed there says
        return {**base, CANDIDATE_ENV: path, "PATH": path_var, **where}

    def module_args(self, path: str) -> list[str]:
        """The arguments after `-m module` (FILE substituted), or after the script's path (as given)."""
        if not self.module:
            return list(self.args)
        return [arg.replace(FILE, path) for arg in self.args]

    def argv(self, path: str) -> list[str]:
        """The command line after `python` for the candidate at `path`."""
        return ["-m", self.module, *self.module_args(path)] if self.module else [path, *self.args]

    def open_stdin(self) -> int:
        """A new read-only descriptor of what the program reads on fd 0 (the caller closes it)."""
        return os.open(self.stdin or os.devnull, os.O_RDONLY | os.O_CLOEXEC)


SCRIPT = Launch()  # `python path`


@dataclass(frozen=True)
class RunResult:
    stdout: bytes
    stderr: bytes
    returncode: int | None  # negative: killed by that signal; None: never finished
    timed_out: bool = False
    cancelled: bool = False
    truncated: bool = False  # some output was dropped to respect output_limit (a marker shows where)
    duration: float = 0.0  # seconds the candidate itself ran (not warm-up)
    # What a probed program reported of its failing numeric comparisons (engine/rules/operand_probe.py
    # takes the probe's marker lines out of stderr and puts them here).
    comparisons: tuple[dict[str, Any], ...] = ()
    # What the failing statement read when the program failed (`execution/statement_hook.py`), from a
    # probed run whose uncaught exception has a place in the program; None otherwise.
    statement: dict[str, Any] | None = None
    # Files the run read before writing them, of those an earlier run wrote (`engine/rules/earlier_files.py`).
    read_earlier: tuple[str, ...] = ()

    @property
    def output(self) -> str:
        """stdout then stderr, decoded leniently; what the oracle searches."""
        return (self.stdout + b"\n" + self.stderr).decode("utf-8", errors="replace")


class CancelEvent:
    """A cancel flag that a running candidate reacts to at once, not at its next tick.

    Quacks like `threading.Event` (`is_set`, `set`, `wait`); `set()` also runs the
    callbacks added with `on_set` (a backend's wake-up). One is made per candidate:
    unlike `threading.Event` it builds no Condition unless someone waits on it.
    """

    def __init__(self) -> None:
        self._flag = False
        self._callbacks: list[Callable[[], None]] = []
        self._guard = threading.Lock()
        self._waiter: threading.Event | None = None

    def is_set(self) -> bool:
        return self._flag

    def on_set(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when set (at once if set already); returns a function that forgets it."""
        with self._guard:
            if not self._flag:
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._guard:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def set(self) -> None:
        with self._guard:
            if self._flag:
                return
            self._flag = True
            callbacks, self._callbacks = self._callbacks, []
            waiter = self._waiter
        if waiter is not None:
            waiter.set()
        for callback in callbacks:
            callback()

    def wait(self, timeout: float | None = None) -> bool:
        with self._guard:
            if self._flag:
                return True
            if self._waiter is None:
                self._waiter = threading.Event()
            waiter = self._waiter
        return waiter.wait(timeout)


IN_ITS_FOLDER = ""  # a backend's cwd: each run in the folder of the file it runs


class Backend(ABC):
    """Runs candidate files. `run` is thread-safe for up to `jobs` concurrent calls."""

    def __init__(
        self,
        python: str,
        cwd: str,
        *,
        jobs: int = 1,
        extra_sys_path: Sequence[str] = (),
        preload: Sequence[str] = (),
        output_limit: int = 8 * 1024 * 1024,
        extra_env: Mapping[str, str] | None = None,
        launch: Launch = SCRIPT,
        gpus: GpuPool | None = None,
    ) -> None:
        self.python = python
        self.launch = launch  # how each candidate is started (see Launch); replaceable between runs
        self.cwd = cwd
        self.jobs = jobs
        self.extra_sys_path = list(extra_sys_path)
        self.extra_env = dict(extra_env or {})  # set in candidates' environment (PYTHONFAULTHANDLER for --crash)
        self.preload = list(preload)  # module names a warm backend may import up front
        self.output_limit = output_limit
        # Each run pins one GPU of the pool in its CUDA_VISIBLE_DEVICES (execution/gpus.py); None: no pinning.
        self.gpus = gpus
        self.learned_imports = 0  # modules a warm backend took up from `learn_imports` runs

    def start(self) -> None:  # noqa: B027 - an optional hook: a no-op unless a backend needs it
        """Warm up (a runner imports `preload` here). Idempotent; may take seconds."""

    @abstractmethod
    def run(
        self,
        path: str,
        timeout: float,
        cancel: Cancel | None = None,
        code: Sequence[CodeType] | None = None,
        learn_imports: bool = False,
    ) -> RunResult:
        """Run the file at `path`; return when it ends, times out, or `cancel` is set.

        `learn_imports`: later runs are variants of this program, and nothing else
        runs meanwhile; a warm backend may then preload what this run imported.

        `code`, if given, is the caller's compilation of the file: code objects
        that, run one after another in the module's namespace, do what
        `compile(text of path, path, "exec", dont_inherit=True)` would (see
        engine/candidate/compiler.py). A backend may run them instead of compiling again.
        """

    def stage(self, path: str, code: Sequence[CodeType] | None) -> None:  # noqa: B027 - an optional hook: a no-op unless a backend needs it
        """Before `run(path, ..., code=code)`: write ahead what that run will need.

        Called outside the limit of `jobs` concurrent runs, while another candidate
        runs, so that work is off the path from one run to the next.
        """

    def degraded(self) -> str:
        """Why candidates run more slowly than this backend promises ("" if they do not)."""
        return ""

    @abstractmethod
    def close(self) -> None:
        """Kill every running candidate and worker, remove temp files. Idempotent, any thread."""

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False
