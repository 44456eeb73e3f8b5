"""Fixtures shared by every test module (the helpers they use live in tests/support/)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.support import leftover_processes, program_text, write_python_without_runner


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
