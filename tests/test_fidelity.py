"""The same bug, not just the same words: the default rule on real programs, and its parts."""

import ast
import json
import subprocess
import sys

import pytest

from autodd_lsp.engine import Notice
from autodd_lsp.execution.record_main import __file__ as RECORDER
from autodd_lsp.oracle.degenerate import degenerate_values, more_degenerate
from autodd_lsp.oracle.normalize import normalize_line
from autodd_lsp.oracle.same import Observer, SameFailure
from autodd_lsp.oracle.tracebacks import frames_of_lines
from autodd_lsp.syntax.metrics import order_key, string_chars
from autodd_lsp.syntax.origin import (
    OriginalStatements,
    aligned,
    identity_shadow,
    line_origins,
)
from autodd_lsp.syntax.patch import delete, render, replace_with_span
from autodd_lsp.syntax.source import Source
from tests.support import reduce, run_standalone


def standalone(tmp_path, text, name="result.py"):
    out = tmp_path / "alone"
    out.mkdir(exist_ok=True)
    (out / name).write_text(text)
    return run_standalone(out / name)


# -- the rule on whole programs ------------------------------------------------------


@pytest.mark.slow
def test_a_keyerror_stays_the_users_keyerror(program, tmp_path, no_leftovers):
    path = program("regions.py")
    summary, _ = reduce(path, "KeyError")
    assert summary.verified
    assert summary.original_failure_line == "KeyError: 'west'"
    assert summary.final_failure_line == "KeyError: 'west'"
    assert "same failure line" in summary.rule and "same failure line" in summary.describe()
    assert "KeyError: 'west'" in standalone(tmp_path, summary.text)


@pytest.mark.slow
def test_the_substring_rule_lets_it_slip(program):
    """What the default rule prevents: with the loose rule any KeyError will do."""
    path = program("regions.py")
    summary, _ = reduce(path, "KeyError", match="substring")
    assert summary.verified and summary.rule == "message substring"
    assert summary.final_failure_line.startswith("KeyError")


PLACES = '''\
def check_a(x):
    if x < 0:
        raise ValueError("bad value")
    return x


def check_b(items):
    total = 0
    for item in items:
        total += item
    if total > 10:
        raise ValueError("bad value")  # from check_b
    return total


check_a(1)
check_b([5, 6, 7])
'''


@pytest.mark.slow
def test_the_failure_stays_where_it_was_raised(program, tmp_path):
    """`check_a` could raise the very same line with less code around it; the original raised in check_b."""
    path = program("places.py", PLACES)
    summary, _ = reduce(path, "bad value")
    assert summary.verified
    output = standalone(tmp_path, summary.text)
    assert "ValueError: bad value" in output
    lines = output.splitlines()
    frame = max(i for i, line in enumerate(lines) if line.strip().startswith("File "))
    assert "raise ValueError" in lines[frame + 1]
    raising = [n for n in ast.walk(ast.parse(summary.text)) if isinstance(n, ast.Raise)]
    assert len(raising) == 1
    # the raise that stays is check_b's (its comment stays with its line), not check_a's
    assert "# from check_b" in lines[frame + 1] or "# from check_b" in summary.text
    assert "check_a" not in summary.text


FROZEN_DEAD = '''\
import sys


def setup():
    print("checkpoint", file=sys.stderr)  # autodd: freeze


def main():
    setup()
    values = {"a": 1}
    return values["missing"]


main()
'''


@pytest.mark.slow
def test_frozen_code_must_still_run(program, tmp_path, no_leftovers):
    path = program("frozen.py", FROZEN_DEAD)
    summary, _ = reduce(path, "KeyError")
    assert summary.verified
    assert 'print("checkpoint", file=sys.stderr)  # autodd: freeze' in summary.text
    output = standalone(tmp_path, summary.text)
    assert "checkpoint" in output and "KeyError: 'missing'" in output


FLAKY_LINE = '''\
import os
raise RuntimeError("boom at step %d" % (os.getpid() % 1000))
'''


@pytest.mark.slow
def test_an_unstable_failure_line_falls_back_to_the_message_rule_and_says_so(program):
    path = program("flaky.py", FLAKY_LINE)
    summary, events = reduce(path, "boom at step", backend="subproc")
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("differs between two runs" in n for n in notices), notices
    assert summary.rule.startswith("message substring")
    assert summary.verified


VALUES = '''\
from dataclasses import dataclass


@dataclass
class Config:
    rows: int = 8
    cols: int = 64
    dtype: str = "float16"


def make(cfg):
    shape = (cfg.rows, cfg.cols)
    return allocate(shape, cfg.dtype)


def allocate(shape, dtype):
    sizes = {"float32": 4, "int8": 1}
    return bytearray(shape[0] * shape[1] * sizes[dtype])


make(Config())
'''


@pytest.mark.slow
def test_values_are_the_ones_the_program_had(program, tmp_path, no_leftovers):
    path = program("values.py", VALUES)
    summary, _ = reduce(path, "KeyError")
    assert summary.verified
    assert summary.final_failure_line == "KeyError: 'float16'"
    tree = ast.parse(summary.text)
    assert not more_degenerate(degenerate_values(tree), degenerate_values(ast.parse(VALUES)))
    assert "class Config" not in summary.text  # its values stand where it was read
    assert "'float16'" in summary.text or '"float16"' in summary.text
    assert "KeyError: 'float16'" in standalone(tmp_path, summary.text)


RAISED_BY_THE_PROGRAM = '''\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--dim", type=int, default=64)
args = parser.parse_args()
width = len([0.0] * args.dim)
if width != args.dim * 2:
    raise ValueError(f"width {width} does not match expected {args.dim * 2}")
'''


@pytest.mark.slow
def test_a_failure_the_program_raises_keeps_the_computation_behind_it(program, tmp_path):
    """Values stand in for what feeds an operation's failure, not for the program's own check:
    `raise ValueError('width 64 does not match expected 128')` would be the message and nothing else."""
    path = program("raised.py", RAISED_BY_THE_PROGRAM)
    summary, _ = reduce(path, "does not match expected")
    assert summary.verified
    assert "args.dim" in summary.text and "parse_args" in summary.text
    assert "width 64 does not match expected 128" in standalone(tmp_path, summary.text)


OWN_CHECK_WITH_A_LIST = '''class Formatter:
    def __init__(self, prog):
        self.prog = prog
        self.items = []

    def add_usage(self, usage, actions, prefix):
        self.items.append((usage, actions, prefix))

    def format_help(self):
        usage, actions, prefix = self.items[0]
        return prefix + self.prog


def positional_actions(parser_name):
    return [parser_name + ":build_id"]


formatter = Formatter("deploy push")
formatter.add_usage(None, positional_actions("push"), "usage: ")
choice = "qa"
if choice not in ("staging", "prod"):
    raise SystemExit(formatter.format_help() + f": error: invalid choice: {choice!r}")
'''


@pytest.mark.slow
def test_a_failure_the_program_raises_gets_no_zero_where_its_run_computed_a_value(program):
    """Where the values are withheld (the program reports the failure itself), `0` is not
    written where the run went either: argparse's reproducer had `positionals = 0` where its
    actions were. (Before: `formatter.add_usage(None, 0, "usage: ")`.)"""
    path = program("own_check.py", OWN_CHECK_WITH_A_LIST)
    summary, _ = reduce(path, "invalid choice")
    assert summary.verified
    assert "add_usage(None, 0," not in summary.text
    assert "positional_actions(" in summary.text


# -- the parts ---------------------------------------------------------------------


def test_frames_belong_to_the_exception_text_only():
    output = (
        "printed: bad value\n"
        "Traceback (most recent call last):\n"
        '  File "/p/prog.py", line 9, in <module>\n'
        "    main()\n"
        '  File "/lib/mod.py", line 3, in check\n'
        "    raise ValueError('bad value')\n"
        "ValueError: bad value\n"
        "  second line of the message\n"
        "\n"
        "after: bad value\n"
        "Traceback (most recent call last):\n"
        '  File "/p/prog.py", line 12, in <module>\n'
        "    np.testing.assert_allclose(actual, expected)\n"
        "AssertionError: \n"
        "Not equal to tolerance rtol=1e-07, atol=0\n"
        "\n"
        " [2, 2]: 0.0 (ACTUAL), 16.0 (DESIRED)\n"
    ).splitlines()
    frames = frames_of_lines(output)
    assert 0 not in frames and 9 not in frames
    assert [f.file for f in frames[6]] == ["/p/prog.py", "/lib/mod.py"]
    assert frames[7] == frames[6]
    # the last traceback's text (the uncaught exception the interpreter printed last) runs on across
    # a blank line: NumPy's mismatch report is its exception's text, with its frames
    assert [f.line for f in frames[16]] == [12] and frames[15] == frames[13] == frames[16]


def test_normalizing_masks_paths_addresses_and_line_numbers_only():
    line = 'Error at 0x7f3a2b1c9d00 in /tmp/autodd-x1/job0/prog.py:12 (line 12): K_A = 32'
    assert normalize_line(line, ("/tmp/autodd-x1/job0/prog.py",)) == "Error at 0x? in <program>:? (line ?): K_A = 32"
    assert normalize_line("K_A = 32, K_B = 64") != normalize_line("K_A = 0, K_B = 1")


def test_what_a_recursion_error_was_doing_at_the_limit_is_masked():
    """Where the limit trips (a comparison, a call) depends on how deep the stack was when the
    program began: the warm runner and a fresh interpreter differ. The rest of a line is kept."""
    tripped = [normalize_line("RecursionError: maximum recursion depth exceeded" + suffix)
               for suffix in ("", " in comparison", " while calling a Python object")]
    assert tripped == ["RecursionError: maximum recursion depth exceeded"] * 3
    assert normalize_line("ValueError: maximum recursion depth exceeded in comparison").endswith("in comparison")


def test_the_same_line_from_another_place_is_not_the_same_failure():
    def output(file, line):
        return (
            "Traceback (most recent call last):\n"
            f'  File "/run/prog.py", line {line}, in <module>\n'
            "    go()\n"
            f'  File "{file}", line 7, in go\n'
            "    raise KeyError('west')\n"
            "KeyError: 'west'\n"
        )

    observer = Observer("KeyError", lambda f: f == "/run/prog.py", lambda: ("/run/prog.py",))
    original = observer.observations(output("/lib/a.py", 5), "")[-1]
    same = SameFailure(observer, original, lambda line: frozenset({line}))
    assert same.is_same(output("/lib/a.py", 5), "", lambda line: frozenset({5}))
    assert not same.is_same(output("/lib/b.py", 5), "", lambda line: frozenset({5}))  # another library line
    assert not same.is_same(output("/lib/a.py", 5), "", lambda line: frozenset({3}))  # another statement
    assert not same.is_same(output("/lib/a.py", 5).replace("'west'", "''"), "", None)
    assert same.is_same(output("/lib/a.py", 5), "", lambda line: None)  # origins unknown: not held against it


def test_origins_follow_text_that_moves():
    text = "def f():\n    return compute(1)\n\n\nx = f()\n"
    source = Source(text)
    statements = OriginalStatements(text, source.statement_spans)
    body_start = text.index("compute")
    body_end = text.index("(1)") + 3
    call = text.index("f()\n")
    # inline f: the call becomes its body's expression, the def goes
    patches = sorted([delete(0, text.index("x =")), replace_with_span(call, call + 3, (body_start, body_end))],
                     key=lambda p: p.start)
    inlined = render(text, patches)
    assert inlined == "x = compute(1)\n"
    identity = identity_shadow(text)
    assert identity is not None
    shadow = aligned(inlined, render(identity, patches))
    origin = statements.of_offsets(line_origins(shadow, 1))
    assert origin & statements.of_line(2)  # `return compute(1)`'s statement
    assert origin & statements.of_line(5)  # and the assignment's


def test_degenerate_values_are_counted_by_kind():
    found = degenerate_values(ast.parse('T.alloc_shared((0, 64), "")\nnn.Linear(0, 3)\ntorch.randn(())\nx[0]\n'))
    assert found["zero-sized shape"] == 2 and found["empty string"] == 1 and found["empty collection"] == 1
    assert more_degenerate(found, degenerate_values(ast.parse("x = 1\n"))) == "zero-sized shape"


def test_code_length_does_not_count_string_contents():
    assert string_chars('a = "xyz"  # "not a string"\nb = \'\'\'p\nq\'\'\'\n') == 6
    assert order_key('"float16"') < order_key("cfg.dtype")
    assert order_key("x = 1") < order_key("x = 10")


@pytest.mark.slow
def test_the_recorder_sees_values_kinds_and_parameters(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(
        "import os\n"
        "def f(n, label):\n"
        '    """doc"""\n'
        "    return n * 2\n"
        "for i in range(3):\n"
        "    f(i, 'x')\n"
        "print(f.__doc__, os.path.basename(__file__), __name__)\n"
    )
    out = tmp_path / "values.json"
    done = subprocess.run([sys.executable, RECORDER, str(program), str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "doc prog.py __main__\n"  # the program ran as itself
    rows = {tuple(r[:5]): r[5:] for r in json.loads(out.read_text())}
    assert rows[("p", 2, 9, 2, 14)] == ["value", "'x'", False, "'x'"]  # label: one value
    assert rows[("p", 2, 6, 2, 7)][:1] == ["value"] and rows[("p", 2, 6, 2, 7)][2] is True  # n: three values
    assert rows[("p", 2, 6, 2, 7)][3] == "2"  # the last one
    assert rows[("e", 7, 17, 7, 19)][0] == "module"  # os in os.path.basename
    assert rows[("e", 7, 17, 7, 43)][:2] == ["value", "'prog.py'"]


@pytest.mark.slow
def test_the_recorder_keeps_the_programs_traceback(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("def g(d):\n    return d['k']\n\ng({})\n")
    done = subprocess.run([sys.executable, RECORDER, str(program), str(tmp_path / "v.json")], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines()[1] == f'  File "{program}", line 4, in <module>'
    assert done.stderr.splitlines()[-1] == "KeyError: 'k'"
    assert "record_main" not in done.stderr


@pytest.mark.slow
def test_the_same_result_for_every_number_of_jobs(program):
    """Values arrive in the background; only the passes that wait for them see them."""
    path = program("values.py", VALUES)
    one, _ = reduce(path, "KeyError", jobs=1)
    two, _ = reduce(path, "KeyError", jobs=2)
    assert one.text == two.text and one.verified and two.verified
