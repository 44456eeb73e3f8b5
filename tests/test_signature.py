"""Failure signatures: what `suggest_err_msgs` proposes from a program's output, and `trial_run`."""

import sys
import textwrap

import pytest

from autodd_lsp.engine import ReduceOptions, UsageError
from autodd_lsp.engine.asking.trial import trial_run
from autodd_lsp.kinds.signature import output_tail, suggest_err_msgs

TRACEBACK = textwrap.dedent('''\
    step 1
    step 2
    Traceback (most recent call last):
      File "/work/prog.py", line 9, in <module>
        raise ValueError(f"shapes {a} and {b} not aligned")
    ValueError: shapes (3, 4) and (5,) not aligned
''')


def test_last_exception_line_first_then_stable_prefix_then_message():
    assert suggest_err_msgs(TRACEBACK, 1) == [
        "ValueError: shapes (3, 4) and (5,) not aligned",
        "ValueError: shapes",
        "shapes (3, 4) and (5,) not aligned",
    ]


def test_every_suggestion_is_found_in_the_output():
    for suggestion in suggest_err_msgs(TRACEBACK, 1):
        assert suggestion in TRACEBACK


def test_source_lines_echoed_by_the_traceback_are_not_taken():
    output = textwrap.dedent('''\
        Traceback (most recent call last):
          File "p.py", line 1, in <module>
            raise RuntimeError("boom: 12")
        TypeError: exceptions must derive from BaseException
    ''')
    assert suggest_err_msgs(output, 1)[0] == "TypeError: exceptions must derive from BaseException"


def test_chained_exceptions_give_the_one_that_ended_the_program():
    output = textwrap.dedent('''\
        Traceback (most recent call last):
          File "p.py", line 2, in <module>
        KeyError: 'k'

        During handling of the above exception, another exception occurred:

        Traceback (most recent call last):
          File "p.py", line 4, in <module>
        RuntimeError: lookup failed for k
    ''')
    assert suggest_err_msgs(output, 1)[0] == "RuntimeError: lookup failed for k"


def test_a_bare_exception_name():
    output = 'Traceback (most recent call last):\n  File "p.py", line 1, in <module>\n    assert x\nAssertionError\n'
    assert suggest_err_msgs(output, 1) == ["AssertionError"]


def test_qualified_names_and_an_error_inside_a_library_message():
    output = textwrap.dedent('''\
        Traceback (most recent call last):
          File "k.py", line 3, in <module>
        tvm.error.InternalError: Traceback (most recent call last):
          0: tvm::tir::Lower
          File "lower.cc", line 88
        InternalError: Check failed: (extent == 128) is false: buffer at 0x7f3a2c00 too small
    ''')
    suggestions = suggest_err_msgs(output, 1)
    assert suggestions[0] == "InternalError: Check failed: (extent == 128) is false: buffer at 0x7f3a2c00 too small"
    assert "InternalError: Check failed: (extent" in suggestions


def test_variable_parts_cut_the_prefix():
    numbers = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB"
    assert suggest_err_msgs(numbers, 1)[:2] == [numbers, "RuntimeError: CUDA out of memory. Tried to allocate"]
    address = "ValueError: cannot use <Thing object at 0x7f00> here"
    assert "ValueError: cannot use" in suggest_err_msgs(address, 1)
    path = "FileNotFoundError: missing config file /home/me/proj/conf.yaml"
    assert "FileNotFoundError: missing config file" in suggest_err_msgs(path, 1)
    # digits inside names are not variable parts
    assert suggest_err_msgs("TypeError: float16 is not supported", 1) == [
        "TypeError: float16 is not supported", "float16 is not supported"
    ]


def test_no_exception():
    assert suggest_err_msgs("all good\n", 0) == []
    assert suggest_err_msgs("", None) == []
    assert suggest_err_msgs("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n", -11)[0] == (
        "Fatal Python error: Segmentation fault"
    )
    assert suggest_err_msgs("usage: tool [-h]\ntool: error: missing value\n", 2)[0] == "tool: error: missing value"


def test_colour_codes_are_ignored():
    assert suggest_err_msgs("\x1b[31mKeyError\x1b[0m: 'x'\n", 1)[0] == "KeyError: 'x'"


def test_output_tail_keeps_the_end():
    text = "".join(f"line {i}\n" for i in range(100))
    assert output_tail(text, max_lines=2) == "line 98\nline 99"


@pytest.mark.slow
def test_trial_run_runs_the_file_once(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("import sys\nprint('hello from', __name__)\nraise SystemExit(3)\n")
    result = trial_run(str(path), ReduceOptions(err_msg="", timeout=30, python=sys.executable, cwd=str(tmp_path)))
    assert "hello from __main__" in result.output and result.returncode == 3


@pytest.mark.slow
def test_trial_run_runs_unsaved_text_beside_the_files_folder(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    path = tmp_path / "p.py"
    path.write_text("print('saved')\n")
    text = "import helper\nraise ValueError(f'value {helper.VALUE}')\n"
    result = trial_run(str(path), ReduceOptions(err_msg="", timeout=30, cwd=str(tmp_path)), text=text)
    assert suggest_err_msgs(result.output, result.returncode)[0] == "ValueError: value 42"
    assert path.read_text() == "print('saved')\n"


def test_trial_run_refuses_bad_input(tmp_path):
    with pytest.raises(UsageError):
        trial_run(str(tmp_path / "missing.py"), ReduceOptions(err_msg=""))
    path = tmp_path / "p.py"
    path.write_text("pass\n")
    with pytest.raises(UsageError):
        trial_run(str(path), ReduceOptions(err_msg="", timeout=0))
