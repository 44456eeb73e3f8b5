"""Jupyter notebooks as SOURCE: code cells as one program, IPython syntax, cells in messages, `-o x.ipynb`.

A real nbformat-4 notebook (markdown cells, display magics, `%env`, `%%time`, `%time`) reduced
by the real engine; the result runs standalone and still fails the same way. Shell lines (`!pip`,
`%pip`, `x = !ls`) and shell cells run as IPython runs them, go when the failure does not need
them, and come back in `-o x.ipynb` as the person wrote them.
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
    assert any(cell.source.startswith("%%time\ndef rate") for cell in cells)  # its magic as written
    script = tmp_path / "cells.py"
    script.write_text(notebook_program(str(output)).text)  # its cells run as Jupyter runs them
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
    ("%run other.py", "cell 2, line 2: the magic %run"),
    ("y = %time f()", "cell 2, line 2: 'y = %time f()' assigns what a magic returns"),
    ("%%perl\nprint 1", "cell 2, line 1: the cell magic %%perl cannot run as Python"),
    ("%%bash --bg\necho hi", "cell 2, line 1: the cell magic %%bash --bg cannot run"),
    ("%%bash\necho \"'''\"", "cell 2, line 2: this %%bash cell's text holds '''"),
])
def test_a_magic_that_matters_stops_the_run(tmp_path, line, words):
    cell = line if line.startswith("%%") else f"x = 1\n{line}\nprint(x)"
    source = write_notebook(tmp_path / "nb.ipynb", ["md:title", cell])
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
    assert [cell.source for cell in nbformat.reads(notebook_text(program.text, program), as_version=4).cells] == [
        "%config InlineBackend.figure_format = 'svg'\nfor i in range(2):\n    %matplotlib inline",
        "%env DATA_DIR /tmp/data\n%timeit -n 3 -r 1 sum([1])",
    ]


SHELL_CELLS = [
    "!echo 'from the shell' > said.txt\nname = 'said'\nfiles = !ls\n!!echo two",
    "%%writefile notes.txt\nfirst {not expanded}\nsecond\\",
    "for i in range(2):\n    !echo {i + 1}{name} >> counted.txt\n%cd .\n%pip --version",
    "%%capture\nprint(sorted(files), open('said.txt').read().strip())\nprint(open('notes.txt').read(), end='')\n"
    "print(open('counted.txt').read(), end='')",
    "%%bash\necho bash-ran\nexit 0",
]


def test_shell_lines_and_cell_magics_run_as_ipython_runs_them(tmp_path):
    source = write_notebook(tmp_path / "shell.ipynb", SHELL_CELLS)
    program = notebook_program(str(source))
    assert "__import__('os').system(f'echo {i + 1}{name} >> counted.txt')" in program.text
    assert program.where(program.text.splitlines().index("second\\") + 1) == "cell 2, line 3"
    done = subprocess.run([sys.executable, "-c", program.text], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "['said.txt', 'shell.ipynb'] from the shell" in done.stdout
    assert "first {not expanded}\nsecond\\\n1said\n2said\n" in done.stdout
    assert "two" not in done.stdout  # `!!cmd` returns its lines: shown by a kernel only as a cell's last value
    assert "bash-ran" in done.stdout and "pip " in done.stdout
    back = nbformat.reads(notebook_text(program.text, program), as_version=4).cells
    assert [cell.source for cell in back] == SHELL_CELLS  # every line as the person wrote it
    text = notebook_program(str(write_notebook(tmp_path / "doc.ipynb", ['doc = """\n!important\n%50\n"""']))).text
    assert text == '# %% [cell 1]\ndoc = """\n!important\n%50\n"""\n'  # inside a string: text, not a shell line
    failing = notebook_program(str(write_notebook(tmp_path / "fails.ipynb", ["%%bash\necho start\nexit 3"])))
    ran = subprocess.run([sys.executable, "-c", failing.text], capture_output=True, text=True, check=False)
    assert "start" in ran.stdout and "returned non-zero exit status 3" in ran.stderr


NEEDS_NOTHING_OF_THE_SHELL = [
    "md:# Setup",
    "!pip list 2>/dev/null | grep -i numpy\n%pip --version\n%matplotlib inline\nimport json",
    "RATES = {'a': 1.0}\nunused = [1, 2]\nprint(sum(unused))",
    "%%time\nprint(json.dumps(RATES))\nRATES['gold']",
]


def test_shell_lines_the_failure_does_not_need_go(tmp_path, no_leftovers):
    source = write_notebook(tmp_path / "setup.ipynb", NEEDS_NOTHING_OF_THE_SHELL)
    done = autodd(source, "--err-msg", "KeyError: 'gold'", "-o", tmp_path / "small.ipynb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cells = [cell.source for cell in nbformat.read(str(tmp_path / "small.ipynb"), as_version=4).cells]
    assert cells == ["RATES = {'a': 1.0}", "%%time\nRATES['gold']"]  # cells stay cells, their magic back


NEEDS_A_FILE_OF_THE_SHELL = [
    "!pip list 2>/dev/null | grep -i numpy\n%matplotlib inline\nimport json",
    "RATES = {'a': 1.0}\nunused = [1, 2]\n!echo gold > tier.txt\nprint(sum(unused))",
    "%%time\nprint(json.dumps(RATES))\nRATES[open('tier.txt').read().strip()]",
]


def test_a_shell_line_the_failure_needs_is_written_back_as_written(tmp_path, no_leftovers):
    source = write_notebook(tmp_path / "tiers.ipynb", NEEDS_A_FILE_OF_THE_SHELL)
    done = autodd(source, "--err-msg", "KeyError: 'gold'", "-o", tmp_path / "small.ipynb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "tier.txt").exists()  # every run's file was cleaned away
    result = tmp_path / "small.ipynb"
    cells = [cell.source for cell in nbformat.read(str(result), as_version=4).cells]
    assert cells == ["RATES = {'a': 1.0}\n!echo gold > tier.txt", "%%time\nRATES[open('tier.txt').read().strip()]"]
    alone = tmp_path / "alone"
    alone.mkdir()
    script = alone / "cells.py"
    script.write_text(notebook_program(str(result)).text)  # the notebook as Jupyter runs it, once more
    assert "KeyError: 'gold'" in run_standalone(script)


def test_a_failing_bash_cell_is_named_by_its_cell_and_line(tmp_path, no_leftovers):
    source = write_notebook(tmp_path / "nb.ipynb", ["x = 1", "print(x)", "%%bash\necho start\nexit 3"])
    missing = autodd(source, "--err-msg", "no such text", cwd=tmp_path)
    assert missing.returncode == 1
    assert 'nb.ipynb", cell 3, line 1, in <module>' in missing.stderr
    assert "returned non-zero exit status 3" in missing.stderr
    done = autodd(source, "--err-msg", "returned non-zero exit status 3", "-o", tmp_path / "small.ipynb",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cells = [cell.source for cell in nbformat.read(str(tmp_path / "small.ipynb"), as_version=4).cells]
    assert cells == ["%%bash\necho start\nexit 3"]  # the failing statement's operand, its script, stays whole


def test_not_a_notebook_is_one_line(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    assert_one_line_error(autodd(bad, "--err-msg", "x"), 2, "bad.ipynb: not a notebook")
    with pytest.raises(NotebookError):
        notebook_program(str(bad))
