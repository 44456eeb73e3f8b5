"""Shared helpers: real programs on disk, run standalone, and checks for leftovers."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"


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
        stdin=subprocess.DEVNULL,
    )
    return done.stdout + done.stderr


def _process_table() -> dict[int, tuple[int, str]]:
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
    table = _process_table()
    me = os.getpid()
    found = []
    for pid, (parent, cmdline) in table.items():
        ancestor = parent
        while ancestor not in (0, 1, me) and ancestor in table:
            ancestor = table[ancestor][0]
        if pid != me and (ancestor == me or private_tmp in cmdline):
            found.append(cmdline)
    return found


@pytest.fixture
def no_leftovers(tmp_path, monkeypatch):
    """Candidates' temp files go to a private folder; after the test it must be empty
    and no process of ours may be left."""
    private = tmp_path / "private-tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    yield
    assert leftover_processes(str(private)) == []
    assert list(private.iterdir()) == []


@pytest.fixture
def program(tmp_path):
    """Copy a program from tests/programs into a fresh folder; returns its path."""

    def make(name: str, text: str | None = None) -> Path:
        path = tmp_path / name
        path.write_text(text if text is not None else program_text(name))
        return path

    return make


def write_python_without_runner(folder: Path) -> Path:
    """A `python` whose fork server cannot start (it says why); it runs everything else."""
    path = folder / "python-without-runner"
    path.write_text(
        "#!/bin/sh\n"
        'case "$1" in *forkserver_main.py) echo "no fork server here" >&2; exit 1;; esac\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    path.chmod(0o755)
    return path


@pytest.fixture
def python_without_runner(tmp_path):
    return write_python_without_runner(tmp_path)
