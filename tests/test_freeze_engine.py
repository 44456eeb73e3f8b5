"""The reducer keeps frozen code in every form while still reducing the rest."""

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction, UsageError
from tests.support import reduce, run_standalone

NOISE = "".join(f"noise_{i} = [{i}] * 3\n" for i in range(6))
FAIL = "raise RuntimeError('frozen test failure')\n"


def reduce_frozen(program, name, text):
    """The result of reducing `text`; the rest of it was still reduced and the result fails alone."""
    path = program(name, text)
    summary, _ = reduce(path, "frozen test failure")
    assert summary.verified
    assert "noise_3" not in summary.text  # the rest was still reduced
    out = path.parent / "out.py"
    out.write_text(summary.text)
    assert "frozen test failure" in run_standalone(out)
    return summary.text


@pytest.mark.slow
def test_line_annotation(program):
    text = "import os\nsetting = os.sep * 2  # autodd: freeze\n" + NOISE + FAIL
    assert "setting = os.sep * 2  # autodd: freeze\n" in reduce_frozen(program, "line.py", text)


@pytest.mark.slow
def test_line_annotation_on_multiline_statement_and_compound_header(program):
    text = (
        "config = dict(\n    a=1,\n    b=2,\n)  # autodd: freeze\n"
        "for i in range(2):  # autodd: freeze\n    print(i * 10)\n" + NOISE + FAIL
    )
    result = reduce_frozen(program, "multi.py", text)
    assert "config = dict(\n    a=1,\n    b=2,\n)  # autodd: freeze\n" in result
    assert "for i in range(2):  # autodd: freeze\n    print(i * 10)\n" in result


@pytest.mark.slow
def test_block_annotation(program):
    block = "# autodd: freeze-start\nfirst = 1\n\nsecond = first + 1  # kept comment\n# autodd: end-freeze\n"
    result = reduce_frozen(program, "block.py", NOISE + block + NOISE.replace("noise", "more") + FAIL)
    assert "# autodd: freeze-start\nfirst = 1\n" in result
    assert "second = first + 1  # kept comment\n# autodd: end-freeze\n" in result


@pytest.mark.slow
def test_block_inside_a_function_survives_flattening(program):
    text = (
        "def work():\n"
        "    # autodd: freeze-start\n"
        "    kept = 'inside'\n"
        "    # autodd: end-freeze\n"
        "    other = 1\n"
        "    raise RuntimeError('frozen test failure ' + kept)\n" + NOISE + "work()\n"
    )
    result = reduce_frozen(program, "fn.py", text)
    assert "kept = 'inside'" in result and "# autodd: freeze-start" in result


@pytest.mark.slow
def test_explicit_with_and_call_forms(program):
    text = (
        "from autodd_lsp import __freeze__\n"
        "with __freeze__:\n    warm = sum(range(4))\n"
        "total = 3 + __freeze__(len('abc'))\n" + NOISE + FAIL
    )
    result = reduce_frozen(program, "explicit.py", text)
    assert "from autodd_lsp import __freeze__\n" in result
    assert "with __freeze__:\n    warm = sum(range(4))\n" in result
    assert "__freeze__(len('abc'))" in result  # the enclosing `3 + ...` cannot drop it


@pytest.mark.slow
def test_aliased_explicit_import(program):
    text = "from autodd_lsp import __freeze__ as keep\nvalue = keep(7 * 6)\n" + NOISE + FAIL
    result = reduce_frozen(program, "alias.py", text)
    assert "from autodd_lsp import __freeze__ as keep\n" in result
    assert "keep(7 * 6)" in result


@pytest.mark.slow
def test_docstring_mentioning_an_annotation_is_not_one(program):
    text = '"""Write `# autodd: freeze` after a statement to keep it."""\n' + NOISE + FAIL
    result = reduce_frozen(program, "doc.py", text)
    assert "autodd" not in result  # the docstring was an ordinary statement, and went


@pytest.mark.slow
def test_future_import_and_docstring_need_no_injected_import(program):
    text = '"""Module doc."""\nfrom __future__ import annotations\nx: int = 1  # autodd: freeze\n' + NOISE + FAIL
    result = reduce_frozen(program, "future.py", text)
    assert result.startswith("x: int = 1  # autodd: freeze\n") or "x: int = 1  # autodd: freeze\n" in result
    assert "import autodd" not in result and "__freeze__" not in result


def test_annotation_errors_stop_before_running(program):
    text = "def f():\n    # autodd: freeze-start\n    x = 1\n# autodd: end-freeze\n" + FAIL
    path = program("bad.py", text)
    with pytest.raises(UsageError, match=r"bad.py: line \d+, column \d+: .*"):
        Reduction(text, str(path), ReduceOptions(err_msg="frozen test failure"))
