"""Fixtures shared by every test module (the helpers they use live in tests/support/)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support import leftover_processes, program_text, write_python_without_runner


def starts_an_interpreter(args) -> bool:
    """Whether a command line runs Python: this interpreter, any `python*`, or a wrapper named so."""
    if isinstance(args, (str, bytes)):
        program = (os.fsdecode(args).split() or [""])[0]
    else:
        program = os.fsdecode(args if isinstance(args, os.PathLike) else (args[0] if args else ""))
    return os.path.basename(program).startswith("python") or os.path.realpath(program) == os.path.realpath(sys.executable)


@pytest.fixture(autouse=True)
def slow_tests_say_so(request, monkeypatch):
    """A test that starts an interpreter (and so a server, an editor session, a reduction)
    carries the `slow` marker, so that `pytest -m "not slow"` is the fast, pure subset: an
    unmarked one fails here. (Processes started by module-scoped fixtures are not seen: their
    modules are marked as a whole.)"""
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    started: list[str] = []
    original_init = subprocess.Popen.__init__

    def refuse_interpreters(self, args, *rest, **options):
        if starts_an_interpreter(args):
            started.append(str(args))
            raise RuntimeError(f"a test without the `slow` marker starts an interpreter: {args}")
        original_init(self, args, *rest, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse_interpreters)
    yield
    assert started == [], "mark this test `slow`: it starts an interpreter"


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


@pytest.fixture
def python_without_runner(tmp_path):
    return write_python_without_runner(tmp_path)
