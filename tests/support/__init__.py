"""Shared test helpers: real programs on disk, run standalone, and checks for leftovers.

Imported as `tests.support` (pytest puts the repository root on sys.path:
`pythonpath` in pyproject.toml); the fixtures built on them are in tests/conftest.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).parent.parent / "programs"


def program_text(name: str) -> str:
    return (PROGRAMS / name).read_text()


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
