"""The benchmark's real programs (issue 22) and the size ladder's rungs (issue 24): their definitions hold.

The fast tests read the corpus (files there, headers naming where a program comes from, the ladder's
sizes in order); the slow ones run each cheap original the way the harness checks it, in its folder, and
require the case's failure (a case whose original no longer fails would be skipped by the harness, not
measured). The word-language-model case is not run here: one run trains a model (about 25 s on two
shared cores); `benchmarks/run.py` checks it before every measurement.
"""

from __future__ import annotations

import re

import pytest

from benchmarks import ladder, report
from benchmarks.corpus.cases import CASES_BY_NAME, LADDER
from benchmarks.measure import reproduces_standalone
from benchmarks.tools import subprocess_env

PUBLIC = [CASES_BY_NAME[name] for name in ("public_dijkstra", "public_avl_tree", "public_word_lm")]


@pytest.mark.parametrize("case", PUBLIC, ids=lambda case: case.name)
def test_a_public_program_names_its_repository_commit_fix_and_licence(case, tmp_path):
    entry = case.materialize(tmp_path)
    header = entry.read_text()[:1200]
    commits = re.findall(r"\b[0-9a-f]{40}\b", header)
    assert len(set(commits)) == 2, "the commit taken and the fix commit"
    assert "github.com/" in header
    assert re.search(r"Licence: (MIT|BSD 3-Clause)", header)
    assert "fix commit" in header
    assert case.err_msg and case.timeout > 0


def test_the_ladder_has_five_rungs_growing_in_size_the_top_one_of_several_files(tmp_path):
    assert len(LADDER) == 5
    sizes, file_counts = [], []
    for case in LADDER:
        folder = tmp_path / case.name
        case.materialize(folder)
        files = ladder.program_files(folder)
        sizes.append(ladder.size_of(files)["lines"])
        file_counts.append(len(files))
    assert sizes == sorted(sizes), sizes
    assert sizes[0] < 250 and sizes[-1] >= 3000, sizes  # non-blank lines: about 170 ... 3,400
    assert file_counts[-1] >= 2, "the top rung is a script with sibling modules"


def test_a_rung_row_compares_a_candidate_with_the_programs_own_run():
    rung = {"name": "r", "files": ["a.py", "b.py"], "before": {"lines": 800, "tokens": 1, "nodes": 4000},
            "own_run_s": 0.002, "original_reproduces": True,
            "ours": {"status": "ok", "wall_s": 12.0, "candidates": 600, "final": {"lines": 9, "nodes": 40},
                     "repro": {"reproduces": True, "strict": True}}}
    assert ladder.row(rung) == ["r", "2", "800 → 9", "4,000 → 40", "600", "12.0", "0.020", "0.002", "10.0x",
                                "ok", "yes"]


CHEAP = [case for case in {case.name: case for case in [*PUBLIC, *LADDER]}.values() if not case.needs]


@pytest.mark.slow
@pytest.mark.parametrize("case", CHEAP, ids=lambda case: case.name)
def test_the_original_shows_the_cases_failure(case, tmp_path):
    entry = case.materialize(tmp_path)
    found = reproduces_standalone(entry, case.err_msg, 60, subprocess_env(), case.returncode, in_place=True,
                                  args=case.program_args)
    assert found["strict"], found["why"]


def test_a_verdict_written_into_a_tool_record_shows_under_its_case():
    case_result = {"tools": {"ours": {"status": "ok", "verdict": "reject. `assert None`"},
                             "reference": {"status": "ok"}}}
    assert report.notes(case_result) == ["ours, the maintainer's verdict by eye: reject. `assert None`"]
