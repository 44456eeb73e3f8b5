"""A candidate's module name reads as the original's; a run no candidate can match says so early."""

import shutil
from pathlib import Path

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.engine.lifecycle.events import Event, Notice
from autodd_lsp.engine.rules.no_match import EARLY
from tests.test_pytest_mode import pytest_alone, quick_pytest  # noqa: F401 - a fixture

PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.mark.slow
def test_a_test_module_with_its_own_exception_class_reduces(tmp_path, no_leftovers, quick_pytest):  # noqa: F811
    """pytest's importlib mode names the hidden candidate `src._autodd-<pid>-job1-test_pack`: its
    exception printed as `src._autodd-...-test_pack.PackError: ...` must read `test_pack.PackError`."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n")
    source = project / "src" / "test_pack.py"
    shutil.copy(PROGRAMS / "pack_tests.py", source)  # as test_pack.py
    events: list[Event] = []
    options = ReduceOptions(err_msg="do not fit", test="test_pack[small]", cwd=str(project))
    summary = Reduction(source.read_text(), str(source), options, events.append).run()
    assert summary.original_failure_line == "test_pack.PackError: 4 items do not fit in a small box (2)"
    assert summary.verified and summary.final_failure_line == summary.original_failure_line
    # 132 -> 87 nodes (0% smaller before the module's name was unmasked; 72 while the guard could go)
    assert summary.final.nodes < summary.original.nodes * 0.7
    assert "if len(items) > size:" in summary.text  # the check that raises keeps its test
    assert "class PackError" in summary.text
    assert not [e for e in events if isinstance(e, Notice) and "none of the first" in e.message]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "test_pack.py").write_text(summary.text)
    alone = pytest_alone(tmp_path / "out" / "test_pack.py", "test_pack[small]", tmp_path / "alone")
    assert "test_pack.PackError: 4 items do not fit in a small box (2)" in alone.stdout.splitlines()


SELF_SIZED = '''\
import os

SETTINGS = {"retries": 3, "timeout": 30, "backoff": 1.5, "workers": 4, "region": "eu-west", "verbose": False}
LIMITS = {"retries": 10, "timeout": 600, "workers": 64}


def clamp(settings):
    for key, limit in LIMITS.items():
        settings[key] = min(settings[key], limit)
    return settings


def validate(settings):
    for key, value in settings.items():
        if value is False:
            size = os.path.getsize(__file__)
            raise ValueError(f"setting {key} is off in a config of {size} bytes")


validate(clamp(SETTINGS))
'''


@pytest.mark.slow
def test_a_run_where_no_candidate_can_match_says_why_early(program, no_leftovers):
    """The message holds the file's own size: every smaller candidate prints another number."""
    path = program("config.py", SELF_SIZED)
    events: list[Event] = []
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg="is off"), events.append).run()
    said = [e.message for e in events if isinstance(e, Notice) and "none of the first" in e.message]
    assert len(said) == 1, said
    assert said[0].startswith(f"none of the first {EARLY} candidates fails the same way: ")
    assert "show " in said[0] and " is off in a config of " in said[0]
    # The size the original's run printed: its file holds the probe (notes/oracle.md, rule 5's limits),
    # so it is more than the user's len(SELF_SIZED.encode()).
    assert summary.original_failure_line.startswith("ValueError: setting verbose is off in a config of ")
    assert said[0].endswith(f"where the original shows '{summary.original_failure_line}'")
    assert summary.final.nodes == summary.original.nodes
