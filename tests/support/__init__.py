"""Shared test helpers: real programs on disk, a reduction of one, run standalone, and checks for leftovers.

Imported as `tests.support` (pytest puts the repository root on sys.path:
`pythonpath` in pyproject.toml); the fixtures built on them are in tests/conftest.py.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from autodd_lsp.engine import Event, FailureSpec, ReduceOptions, Reduction, Summary

PROGRAMS = Path(__file__).parent.parent / "programs"


def program_text(name: str) -> str:
    return (PROGRAMS / name).read_text()


SLOW_SENTINEL = "slow-sentinel"  # the message of every slow program (the editor drivers use it too)


def slow_program(needed: int = 20, sleep: float = 0.3, junk: int = 0) -> str:
    """The one slow test program: every run sleeps `sleep` s (a frozen statement, so every
    candidate does), `junk` statements (`junk0 = 0`...) that can go, then `needed` statements
    (`x0 = 0`...) the failure needs every one of, and `RuntimeError(SLOW_SENTINEL)`.

    Junk gives early acceptances (a result to stream, stop or interrupt); needed statements
    keep the run going afterwards (each rejected removal costs a run).
    """
    junk_lines = "".join(f"junk{i} = {i}\n" for i in range(junk))
    if needed == 0:
        return f"import time\ntime.sleep({sleep})  # autodd: freeze\n{junk_lines}raise RuntimeError(\"{SLOW_SENTINEL}\")\n"
    body = "".join(f"x{i} = {i}\n" for i in range(needed))
    total = " + ".join(f"x{i}" for i in range(needed))
    return (
        f"import time\ntime.sleep({sleep})  # autodd: freeze\n{junk_lines}{body}"
        f"if {total} == {sum(range(needed))}:\n    raise RuntimeError(\"{SLOW_SENTINEL}\")\n"
    )


def start_reduction(
    path: Path, failure: str | FailureSpec, listener: Callable[[Event], None] | None = None, **options: object
) -> Reduction:
    """A reduction of the program at `path` (its own text, its folder as cwd unless `cwd` is
    given) that keeps `failure`: a message (`err_msg`) or a FailureSpec."""
    options.setdefault("cwd", str(path.parent))
    if isinstance(failure, FailureSpec):
        options["failure"] = failure
    else:
        options["err_msg"] = failure
    return Reduction(path.read_text(), str(path), ReduceOptions(**options), listener)  # type: ignore[arg-type]


def reduce(path: Path, failure: str | FailureSpec, **options: object) -> tuple[Summary, list[Event]]:
    """Reduce the program at `path` to the end (see start_reduction): its summary and every event it sent."""
    events: list[Event] = []
    return start_reduction(path, failure, events.append, **options).run(), events


class Beacon:
    """A named pipe a program writes to when it reaches a point (a candidate running, a module
    being imported); `wait` blocks until then: a test synchronizes on the event itself, with a
    deadline only for when it never comes. The program opens it for writing, which a reader
    open since the Beacon was made lets it do at once.
    """

    def __init__(self, folder: Path, name: str = "beacon") -> None:
        self.path = folder / name
        os.mkfifo(self.path)
        self._fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # no writer yet: poll(2) waits for one

    def wait(self, timeout: float = 30.0) -> bytes:
        """What the first writer wrote (b"" if it wrote nothing); TimeoutError if none came in `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"nothing reached {self.path.name} in {timeout} s")
            try:
                return os.read(self._fd, 4096)
            except BlockingIOError:  # woken without data (a writer came and went): wait on
                continue

    def close(self) -> None:
        os.close(self._fd)


def read_until(stream, needle: str, timeout: float = 60.0) -> str:
    """Read a child's text pipe (`Popen(..., stderr=PIPE)`) until `needle` has been written: all
    read so far. Blocks on the pipe itself; AssertionError if `needle` does not come in `timeout`."""
    fd = stream.fileno()
    deadline = time.monotonic() + timeout
    read = b""
    while needle.encode() not in read:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 65536) if ready else b""
        assert chunk, f"{needle!r} not written in {timeout} s (the pipe {'closed' if ready else 'stayed silent'}): {read!r}"
        read += chunk
    return read.decode()


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """Wait until the process `pid` (not necessarily our child) has ended: its pidfd becomes
    readable at its exit. True if it is gone."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([pidfd], [], [], timeout)[0])
    finally:
        os.close(pidfd)


def run_standalone(path: Path, cwd: Path | None = None, timeout: float = 60) -> str:
    """Run a file the way a user would: a fresh interpreter, `python file.py`."""
    done = subprocess.run(
        [sys.executable, str(path)],
        cwd=cwd or path.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL, check=False,
    )
    return done.stdout + done.stderr


def autodd(*args: object, cwd: Path | str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The `autodd` command as a user runs it (this interpreter's `python -m autodd_lsp`)."""
    return subprocess.run(
        [sys.executable, "-m", "autodd_lsp", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL, check=False,
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], code: int, fragment: str) -> None:
    """Bad input: exit `code`, no traceback, exactly one `autodd: error:` line, which says `fragment`."""
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("autodd: error:")]
    assert len(errors) == 1 and fragment in errors[0], done.stderr


def run_pytest(test_file: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """An emitted test, run the way a maintainer would: `python -m pytest FILE` in a folder of its own
    (its tmp_path goes beside that folder)."""
    basetemp = cwd.parent / f"pytest-{test_file.stem}"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={basetemp}", str(test_file)],
        cwd=cwd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live (non-zombie) process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if stat[0] != "Z":
            table[int(entry)] = (int(stat[1]), cmdline)
    return table


def leftover_processes(private_tmp: str) -> list[str]:
    """Our descendants, and any process still running a file from our private temp folder."""
    table = process_table()
    me = os.getpid()
    found = []
    for pid, (parent, cmdline) in table.items():
        ancestor = parent
        while ancestor not in (0, 1, me) and ancestor in table:
            ancestor = table[ancestor][0]
        if pid != me and (ancestor == me or private_tmp in cmdline):
            found.append(cmdline)
    return found


def write_python_without_runner(folder: Path) -> Path:
    """A `python` whose fork server cannot start (it says why); it runs everything else."""
    path = folder / "python-without-runner"
    path.write_text(
        "#!/bin/sh\n"
        'case "$1" in *server_main.py) echo "no fork server here" >&2; exit 1;; esac\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    path.chmod(0o755)
    return path
