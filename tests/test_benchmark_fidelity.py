"""The benchmark's fidelity table: is a result the same bug as the original?

Small plain-Python programs written to tmp_path, each run alone the way the
benchmark runs them (no tilelang, no tool run).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks import fidelity, report

REGION_LOOKUP = """\
REGION_MANAGERS = {"north": "A. Okafor"}
ROWS = [{"region": "north", "units": 3}, {"region": "west", "units": 4}]


def totals(rows, key):
    out = {}
    for row in rows:
        out[row[key]] = out.get(row[key], 0) + row["units"]
    return out


def report(rows):
    for region, units in totals(rows, "region").items():
        print(region, REGION_MANAGERS[region], units)


report(ROWS)
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def run(path: Path, message: str) -> dict:
    return fidelity.run_alone(path, message, timeout=30, env=dict(os.environ))


@pytest.fixture
def original(tmp_path):
    return run(write(tmp_path, "orig.py", REGION_LOOKUP), "KeyError")


@pytest.mark.slow
def test_the_original_failure_line_and_its_place(original):
    assert original["line"] == "KeyError: 'west'"
    assert original["normalized"] == "KeyError: 'west'"
    assert original["traceback"] is True
    assert original["innermost_in_program"] is True
    assert original["library_frame"] is None
    assert original["program_source"] == 'print(region, REGION_MANAGERS[region], units)'
    assert original["program_frame"] == 14
    assert original["exit"] == "1"


@pytest.mark.slow
def test_a_different_key_error_is_a_different_line(tmp_path, original):
    result = run(write(tmp_path, "result.py", "{}['']\n"), "KeyError")
    assert result["line"] == "KeyError: ''"
    row = fidelity.compare(original, result)
    assert row["line"] == "differs"
    assert row["more_degenerate"] == {"literal stand-in": 1, "empty string": 1}  # `{}[...]`: a literal subscripted
    assert row["nodes_after"] < row["nodes_before"]


@pytest.mark.slow
def test_the_same_key_error_from_the_same_line_is_the_same(tmp_path, original):
    text = """\
    REGION_MANAGERS = {"north": "A. Okafor"}
    for region in ["north", "west"]:
        print(region, REGION_MANAGERS[region])
    """
    result = run(write(tmp_path, "result.py", text), "KeyError")
    row = fidelity.compare(original, result)
    assert (row["line"], row["same_place"], row["more_degenerate"]) == ("same", "yes", {})
    assert result["program_source"] == "print(region, REGION_MANAGERS[region])"


@pytest.mark.slow
def test_the_same_line_raised_by_the_program_instead_of_the_library_is_another_place(tmp_path):
    message = "Expecting property name enclosed in double quotes"
    original = run(write(tmp_path, "orig.py", "import json\njson.loads('{')\n"), message)
    assert original["library_frame"].startswith(os.path.join(os.path.dirname(json.__file__), "decoder.py:"))
    assert original["innermost_in_program"] is False
    assert original["program_source"] == "json.loads('{')"
    forged = f"import json\nraise json.JSONDecodeError({message!r}, '{{', 1)\n"
    result = run(write(tmp_path, "result.py", forged), message)
    row = fidelity.compare(original, result)
    assert row["line"] == "same"
    assert row["same_place"] == "no"


@pytest.mark.slow
def test_the_same_library_frame_is_the_same_place(tmp_path):
    message = "Expecting property name enclosed in double quotes"
    original = run(write(tmp_path, "orig.py", "import json\ntext = '{'\nconfig = json.loads(text)\n"), message)
    result = run(write(tmp_path, "result.py", "import json\njson.loads('{')\n"), message)
    assert fidelity.compare(original, result)["same_place"] == "yes"


@pytest.mark.slow
def test_a_check_moved_into_the_program_by_inlining_is_the_same_place(tmp_path):
    """The original fails in its own module beside it; the inlined result raises the same statement itself."""
    message = "too big"
    module = "def check(n):\n    if n > 3:\n        raise ValueError(f'too big: {n}')\n"
    write(tmp_path, "checks.py", module)
    source = write(tmp_path, "orig.py", "import checks\nfor n in range(6):\n    checks.check(n)\n")
    original = fidelity.run_alone(source, message, timeout=30, env=dict(os.environ), in_place=True)  # beside its module
    assert original["library_source"] == "raise ValueError(f'too big: {n}')"
    alone = tmp_path / "alone"
    alone.mkdir()
    inlined = "for n in range(6):\n    if n > 3:  # autodd: freeze\n        raise ValueError(f'too big: {n}')\n"
    assert fidelity.compare(original, run(write(alone, "result.py", inlined), message))["same_place"] == "yes (inlined)"
    other = "raise ValueError('too big: 4')\n"  # the same line, raised by another statement
    assert fidelity.compare(original, run(write(alone, "other.py", other), message))["same_place"] == "no"


@pytest.mark.slow
def test_a_result_that_only_warns_has_lost_the_error(tmp_path):
    message = "deprecated config key 'lr'"
    original = run(write(tmp_path, "orig.py", f"""\
    import warnings
    warnings.warn("{message}; use 'learning_rate'", UserWarning)
    raise ValueError("{message} in [schedule]")
    """), message)
    assert original["line"] == f"ValueError: {message} in [schedule]"
    result = run(write(tmp_path, "result.py", f"""\
    import warnings
    warnings.warn("{message}; use 'learning_rate'", UserWarning)
    """), message)
    assert "UserWarning" in result["line"]
    assert result["shown"].startswith("result.py:")  # not the run's temporary folder
    assert result["traceback"] is False
    row = fidelity.compare(original, result)
    assert (row["line"], row["same_place"]) == ("differs", "no")


@pytest.mark.slow
def test_a_result_without_the_message(tmp_path, original):
    result = run(write(tmp_path, "result.py", "print('fine')\n"), "KeyError")
    assert result["line"] is None
    row = fidelity.compare(original, result)
    assert (row["line"], row["same_place"]) == ("absent", "no")


@pytest.mark.slow
def test_printed_messages_have_no_place_to_compare(tmp_path):
    message = "checksum mismatch"
    original = run(write(tmp_path, "orig.py", f"x = 2\nprint('{message}: ' + str(x))\n"), message)
    result = run(write(tmp_path, "result.py", f"print('{message}: 2')\n"), message)
    row = fidelity.compare(original, result)
    assert (row["line"], row["same_place"]) == ("same", "n/a")


@pytest.mark.slow
def test_the_program_path_is_masked(tmp_path):
    text = "raise FileNotFoundError(__file__ + ' has no sibling data.csv')\n"
    original = run(write(tmp_path, "orig.py", text), "has no sibling")
    result = run(write(tmp_path, "orig.reference.min.py", text), "has no sibling")
    assert original["line"] != result["line"]
    assert fidelity.compare(original, result)["line"] == "same"


def test_zero_sized_shapes_the_original_lacks_are_listed():
    original = {"zero-sized shape": 1, "empty string": 0, "empty collection": 0}
    result = {"zero-sized shape": 3, "empty string": 0, "empty collection": 1}
    assert fidelity.more_degenerate(original, result) == {"zero-sized shape": 2, "empty collection": 1}
    assert fidelity.degenerate_label({"zero-sized shape": 2, "empty collection": 1}) == (
        "empty collection +1, zero-sized shape +2"
    )
    assert fidelity.more_degenerate(result, original) == {}


def test_the_last_match_skips_echoed_source():
    lines = [
        "boom warned",
        "Traceback (most recent call last):",
        '  File "/x/prog.py", line 3, in <module>',
        "    raise ValueError('boom')",
        "ValueError: boom",
        "  File \"/x/prog.py\", line 9",
        "    boom = 1",
    ]
    assert fidelity.last_match_index(lines, "boom", "raise ValueError('boom')\nboom = 1\n") == 4
    assert fidelity.last_match_index(lines[:1], "boom", "") == 0
    assert fidelity.last_match_index(lines, "absent", "") is None


def results_with(tmp_path: Path, original: dict | None, tools: dict) -> dict:
    record = {"status": "ok", "wall_s": 1.0, "candidates": 10, "final": {"lines": 1, "tokens": 3, "nodes": 5},
              "repro": {"reproduces": True, "strict": True, "why": ""}}
    return {
        "machine": {"python": sys.version.split()[0]},
        "cases": {"keyerror_lookup": {
            "description": "d", "err_msg": "KeyError", "timeout": 10, "jobs": 1,
            "original": {"lines": 10, "tokens": 40, "nodes": 60, "failure": original},
            "tools": {name: {**record, "fidelity": fid} for name, fid in tools.items()},
        }},
    }


@pytest.mark.slow
def test_the_markdown_report_shows_the_fidelity_tables(tmp_path, original):
    result = run(write(tmp_path, "result.py", "{}['a|b']\n"), "KeyError")
    results = results_with(tmp_path, original, {"reference": fidelity.tool_fidelity(
        original, tmp_path / "result.py", "KeyError", 30, dict(os.environ))})
    text = report.render_markdown(results)
    assert "## Fidelity" in text
    assert "| keyerror_lookup | reference | differs | yes | literal stand-in +1 | 107 → 6 |" in text
    assert "`KeyError: 'west'`" in text
    assert "`KeyError: 'a\\|b'`" in text  # a pipe inside a cell is escaped
    assert "line 14: `print(region, REGION_MANAGERS[region], units)`" in text
    assert result["line"] == "KeyError: 'a|b'"


@pytest.mark.slow
def test_report_only_recomputes_the_fidelity_of_kept_outputs(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from benchmarks import run as bench

    folder = tmp_path / "results"
    (folder / "outputs").mkdir(parents=True)
    (folder / "outputs" / "keyerror_lookup.reference.min.py").write_text(
        "MANAGERS = {}\nMANAGERS['west']\n")
    results = results_with(tmp_path, None, {"reference": None})
    del results["cases"]["keyerror_lookup"]["original"]["failure"]
    (folder / "results.json").write_text(json.dumps(results))
    assert bench.main(["--report-only", "--out", str(folder)]) == 0
    saved = json.loads((folder / "results.json").read_text())["cases"]["keyerror_lookup"]
    assert saved["original"]["failure"]["line"] == "KeyError: 'west'"
    row = saved["tools"]["reference"]["fidelity"]
    # Both raise it in the program: the same place by the rule; the quoted
    # source lines are there for a reader to see that they are not one line.
    assert (row["line"], row["same_place"]) == ("same", "yes")
    assert row["failure"]["program_source"] == "MANAGERS['west']"
    assert saved["original"]["failure"]["program_source"] == "manager = REGION_MANAGERS[region]"
    assert "## Fidelity" in (folder / "results.md").read_text()


@pytest.mark.slow
def test_a_statement_over_several_lines_is_shown_whole(tmp_path):
    result = run(write(tmp_path, "result.py", "region = 'west'\nmanager = {\n}[region]\n"), "KeyError")
    assert result["program_frame"] == 2
    assert result["program_source"] == "manager = {}[region]"
