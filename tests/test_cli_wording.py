"""The CLI's words for numbers: singular for one ("1 candidate", "1 non-blank line"), and an
accepted step called "smaller" only when it made the program smaller."""

import io

from autodd_lsp.cli.terminal import TerminalReporter, status_text, step_label
from autodd_lsp.engine import Accepted, Started, Stats, Summary
from autodd_lsp.syntax.metrics import Size
from autodd_lsp.wording import counted


def size(lines: int, nodes: int) -> Size:
    return Size(lines=lines, nodes=nodes, tokens=None, chars=10 * lines)


def test_counted_is_singular_for_one_only():
    assert counted(1, "candidate") == "1 candidate"
    assert counted(0, "candidate") == "0 candidates"
    assert counted(2, "cache hit") == "2 cache hits"
    assert counted(1, "child", "children") == "1 child" and counted(3, "child", "children") == "3 children"


def test_sizes_status_line_and_summary_say_one_in_the_singular():
    assert str(size(1, 1)) == "1 non-blank line, 1 AST node"
    assert str(size(2, 5)) == "2 non-blank lines, 5 AST nodes"
    line = status_text(size(1, 3), size(9, 40), Stats(candidates_run=1, elapsed=1.0, current_pass="statements"))
    assert "9 → 1 non-blank line ·" in line and "40 → 3 nodes" in line and "· 1 candidate (" in line
    text = Summary(size(9, 40), size(1, 3), "x = 1\n", Stats(candidates_run=1, runs=1, cache_hits=1),
                   verified=True).describe()
    assert "9 -> 1 non-blank line, 40 -> 3 AST nodes (92% smaller)" in text
    assert "1 candidate run, 1 cache hit," in text and "candidates" not in text and "lines" not in text


def test_the_summary_says_smaller_only_when_smaller():
    same = Summary(size(3, 10), size(3, 10), "x\n", Stats(), verified=True).describe()
    assert "(the same size)" in same and "smaller" not in same
    larger = Summary(size(3, 10), size(5, 12), "x\n", Stats(), verified=True).describe()
    assert "(20% larger)" in larger and "smaller" not in larger


def test_a_step_is_smaller_only_when_it_shrank():
    assert step_label(size(10, 50), size(8, 40)) == "smaller"
    assert step_label(size(10, 50), size(12, 45)) == "accepted"  # fewer nodes, more lines
    assert step_label(size(10, 50), size(10, 50)) == "accepted"
    stream = io.StringIO()
    reporter = TerminalReporter(stream=stream)
    reporter(Started(original=size(10, 50), text=""))
    reporter(Accepted(size=size(12, 60), text="", stats=Stats()))  # an inlined module: bigger
    reporter(Accepted(size=size(4, 20), text="", stats=Stats()))
    lines = stream.getvalue().splitlines()
    assert lines[1].startswith("autodd: accepted: ") and lines[2].startswith("autodd: smaller: ")
