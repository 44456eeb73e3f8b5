"""Jupyter notebooks as SOURCE: code cells as one program, IPython syntax, cells in messages, `-o x.ipynb`.

A real nbformat-4 notebook (markdown cells, display magics, `%env`, `%%time`, `%time`) reduced
by the real engine; the result runs standalone and still fails the same way.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import assert_one_line_error, autodd, run_standalone

pytestmark = pytest.mark.slow  # every test here starts an interpreter


nbformat = pytest.importorskip("nbformat")  # a dependency (pyproject.toml); the import is the notebook's reader
v4 = nbformat.v4

from autodd_lsp.notebook import NotebookError, notebook_program, notebook_text  # noqa: E402


def write_notebook(path, cells):
    notebook = v4.new_notebook()
    notebook.cells = [v4.new_markdown_cell(text[3:]) if text.startswith("md:") else v4.new_code_cell(text)
                      for text in cells]
    nbformat.write(notebook, str(path))
    return path


ANALYSIS = [
    "md:# Analysis\nPrices by tier.",
    "%matplotlib inline\n%load_ext autoreload\n%autoreload 2\nimport json\nimport os",
    "%env MODE=strict\nRATES = {'a': 1.0, 'b': 2.0}\nunused = [1, 2, 3]\nprint(len(unused))",
    "md:## Compute",
    "%%time\ndef rate(tier):\n    if os.environ['MODE'] == 'strict':\n        return RATES[tier]\n    return 0.0\n"
    "total = sum(unused)",
    "%time x = rate('a')\nprint(json.dumps({'x': x}))\nrate('gold')",
]


def test_a_notebook_reduces_to_a_standalone_script(tmp_path, no_leftovers):
    source = write_notebook(tmp_path / "analysis.ipynb", ANALYSIS)
    done = autodd(source, "--err-msg", "KeyError: 'gold'")
    assert done.returncode == 0, done.stderr
    result = tmp_path / "analysis.min.py"
    assert "KeyError: 'gold'" in run_standalone(result)
    assert len(result.read_text().splitlines()) < 8


def test_a_notebook_result_as_a_notebook(tmp_path):
    source = write_notebook(tmp_path / "analysis.ipynb", ANALYSIS)
    output = tmp_path / "small.ipynb"
    done = autodd(source, "--err-msg", "KeyError: 'gold'", "-o", output, "-q", "--backend", "subproc")
    assert done.returncode == 0, done.stderr
    cells = nbformat.read(str(output), as_version=4).cells
    assert cells and all(cell.cell_type == "code" for cell in cells)
    script = tmp_path / "cells.py"
    script.write_text("\n".join(cell.source for cell in cells))
    assert "KeyError: 'gold'" in run_standalone(script)


def test_messages_name_cells_and_lines(tmp_path):
    source = write_notebook(tmp_path / "analysis.ipynb", ANALYSIS)
    done = autodd(source, "--err-msg", "no such text")
    assert done.returncode == 1
    assert 'analysis.ipynb", cell 6, line 3, in <module>' in done.stderr
    assert 'analysis.ipynb", cell 5, line 4, in rate' in done.stderr
    suggested = autodd(source)  # no failure given: the suggestion run runs the cells, not the JSON
    assert suggested.returncode == 2 and "--err-msg \"KeyError: 'gold'\"" in suggested.stderr, suggested.stderr


@pytest.mark.parametrize("line, words", [
    ("!pip install numpy", "cell 2, line 2: '!pip install numpy' is IPython syntax"),
    ("files = !ls", "cell 2, line 2: 'files = !ls' is IPython syntax"),
    ("%cd /tmp", "cell 2, line 2: the magic %cd changes what the program does"),
    ("%run other.py", "cell 2, line 2: the magic %run"),
])
def test_a_magic_that_matters_stops_the_run(tmp_path, line, words):
    source = write_notebook(tmp_path / "nb.ipynb", ["md:title", f"x = 1\n{line}\nprint(x)"])
    assert_one_line_error(autodd(source, "--err-msg", "boom"), 2, words)


def test_conversion_of_magics(tmp_path):
    source = write_notebook(tmp_path / "nb.ipynb", [
        "%%html\n<b>shown only</b>",
        "%config InlineBackend.figure_format = 'svg'\nfor i in range(2):\n    %matplotlib inline\n",
        "%env DATA_DIR /tmp/data\n%timeit -n 3 -r 1 sum([1])",
    ])
    program = notebook_program(str(source))
    assert program.text == (
        "# %% [cell 2]\n# %config InlineBackend.figure_format = 'svg'\nfor i in range(2):\n    pass  # %matplotlib inline\n"
        "# %% [cell 3]\n__import__('os').environ['DATA_DIR'] = '/tmp/data'\nsum([1])\n"
    )
    assert program.where(3) == "cell 2, line 2" and program.where(7) == "cell 3, line 2"
    done = subprocess.run([sys.executable, "-c", program.text], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert [cell.source for cell in nbformat.reads(notebook_text(program.text), as_version=4).cells] == [
        "# %config InlineBackend.figure_format = 'svg'\nfor i in range(2):\n    pass  # %matplotlib inline",
        "__import__('os').environ['DATA_DIR'] = '/tmp/data'\nsum([1])",
    ]


def test_not_a_notebook_is_one_line(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    assert_one_line_error(autodd(bad, "--err-msg", "x"), 2, "bad.ipynb: not a notebook")
    with pytest.raises(NotebookError):
        notebook_program(str(bad))
