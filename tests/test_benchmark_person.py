"""A person's reproducer beside every benchmark case (issue 40, `benchmarks/person.py`).

The fast tests read the files: every case of the corpus has its person's reproducer, and the README's
table gives each one's size as `benchmarks/measure.py` counts it. The slow ones run each reproducer the
way the harness runs a tool's output (alone, beside what the case keeps, as pytest, with the program's
arguments or the user's check) and require that it fail the same way as the original: the same failure
line, the same place, no more degenerate values, the original's failing statement. A case whose
modules are missing (tilelang, torch) is skipped, as the harness skips it.
"""

from __future__ import annotations

import re

import pytest

from benchmarks import person
from benchmarks.corpus.cases import CASES
from benchmarks.measure import count_ast_nodes

README = person.PERSON_DIR / "README.md"


def readme_nodes() -> dict[str, int]:
    """Case name -> the nodes column of the README's table."""
    rows = re.findall(r"^\| `?(\w+)`? \|.*\| ([\d,]+) \|$", README.read_text(), re.M)
    return {name: int(count.replace(",", "")) for name, count in rows}


def test_every_case_has_a_person_reproducer_that_parses():
    for case in CASES:
        path = person.person_file(case)
        assert path.is_file(), f"{case.name}: no {path.name}"
        assert count_ast_nodes(path.read_text()) is not None, f"{path.name} does not parse"
    names = {f"{case.name}.py" for case in CASES}
    assert {path.name for path in person.PERSON_DIR.glob("*.py")} == names, "a reproducer of no case"


def test_the_readme_gives_each_reproducers_size():
    table = readme_nodes()
    for case in CASES:
        assert case.name in table, f"{case.name} has no row in {README.name}"
        assert table[case.name] == count_ast_nodes(person.person_file(case).read_text()), case.name


def test_the_table_has_the_geometric_mean_and_the_cases_over_2x():
    rows: list[dict] = [{"case": "a", "result": 40, "person": 10, "ratio": 4.0},
                        {"case": "b", "result": 10, "person": 40, "ratio": 0.25},
                        {"case": "c", "result": None, "person": 7, "ratio": None}]
    text = "\n".join(person.table(rows))
    assert "| a | 40 | 10 | 4.00x |" in text
    assert "| c | - | 7 | - |" in text
    assert "over the 2 cases with a result: **1.00x**; over 2x: 1 (a 4.00x)" in text
    assert "No result in the outputs folders: c." in text


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_person_reproducer_fails_the_way_the_original_does(case):
    [(qualifies, why)] = person.check(case, person.person_file(case))
    if qualifies is None:
        pytest.skip(why)  # needs tilelang or torch (benchmarks/run.py's missing_modules)
    assert qualifies, why
