"""The opt-in timing record (`AUTODD_STAGES`, execution/stages.py): a real reduction records the
stages it claims, in order, and `benchmarks/stages.py` reads them. Names only: never the times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autodd_lsp.execution import stages
from benchmarks import stages as summary
from tests.support import SLOW_SENTINEL, reduce, slow_program

ENGINE = ["proposed", "tested", "decide", "compiled", "permit", "run"]
RUNNER = ["slot", "ready", "forked", "ended"]
PHASES = {"connect to Ray", "the original's checks", "the search", "closing the backend", "the final check"}


def recorded(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def in_order(names: list[str], expected: list[str]) -> bool:
    """Whether `expected` appear in `names` in that order (other names may come between)."""
    position = 0
    for name in names:
        if position < len(expected) and name == expected[position]:
            position += 1
    return position == len(expected)


@pytest.fixture
def stages_on(tmp_path_factory, monkeypatch):
    """AUTODD_STAGES set for this process's engine (read at import, hence the module's flags);
    the file outside the program's folder, which its runs must leave as it was (clean_runs.py)."""
    path = tmp_path_factory.mktemp("records") / "stages.jsonl"
    monkeypatch.setattr(stages, "ON", True)
    monkeypatch.setattr(stages, "PATH", str(path))
    return path


@pytest.mark.slow
def test_a_reduction_records_every_candidates_stages(program, stages_on, no_leftovers):
    path = program("slow.py", slow_program(needed=2, sleep=0.05, junk=4))
    result, _ = reduce(path, SLOW_SENTINEL, jobs=2)
    assert result.verified
    records = recorded(stages_on)
    candidates = [record for record in records if "phase" not in record]
    assert {record["phase"] for record in records if "phase" in record} == PHASES
    assert len(candidates) >= result.stats.candidates_run
    ran = [record for record in candidates if any(name == "run" for name, _ in record["marks"])]
    assert ran and all(record["marks"][0][0] in ("proposed", "decide") for record in candidates)
    for record in ran:
        names = [name for name, _ in record["marks"]]
        assert in_order(names, ["decide", "compiled", "permit", "run"]), names
        assert "returned" in names and "verdict" in record
        if not record["cancelled"]:
            assert in_order(names, ["run", *RUNNER, "returned", "judged"]), names
        # the frozen sleep is probed in the candidate's own run: never a second run
        assert names.count("run") == 1, names
    searched = [record for record in ran if not record["ahead"]]
    assert searched and all(in_order([name for name, _ in record["marks"]], ENGINE) for record in searched)
    assert any(record["verdict"] is True for record in ran) and any(record["verdict"] is False for record in ran)
    assert all(times == sorted(times) for times in ([when for name, when in record["marks"] if name != "cancel_set"]
                                                    for record in ran))

    table = summary.summary(records)
    assert "runner: its warm fork server" in table["stages"] and "the candidate runs" in table["stages"]
    assert summary.SECOND_RUN not in table["stages"]
    assert set(table["phases"]) == PHASES
    assert "| the candidate runs |" in summary.markdown({"j2": table})


@pytest.mark.slow
def test_off_no_record_is_made(program, tmp_path_factory, monkeypatch):
    path_if_on = tmp_path_factory.mktemp("records") / "stages.jsonl"
    monkeypatch.setattr(stages, "ON", False)  # AUTODD_STAGES unset
    monkeypatch.setattr(stages, "PATH", str(path_if_on))
    path = program("slow.py", slow_program(needed=1, sleep=0.0, junk=2))
    result, _ = reduce(path, SLOW_SENTINEL, jobs=2)
    assert result.verified
    assert not path_if_on.exists()
