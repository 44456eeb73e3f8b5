"""The program's own modules inlined: one standalone reproducer (autodd_lsp.inlining, and the engine)."""

import os
import subprocess
import sys

from autodd_lsp.engine import Notice, ReduceOptions, Reduction
from autodd_lsp.inlining import inline_local_modules
from tests.support import run_standalone


def write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


PACKAGE = {
    "kernels/__init__.py": "",
    "kernels/config.py": "BLOCK = 32\nSCALE = {'fp16': 2, 'fp32': 4}\n",
    "kernels/shapes.py": (
        "from .config import BLOCK, SCALE as sizes\n"
        "\n"
        "def tile(n):\n"
        "    return n // BLOCK\n"
        "\n"
        "def nbytes(n, dtype):\n"
        "    return tile(n) * BLOCK * sizes[dtype]\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    print('module run as a script')\n"
    ),
    "main.py": (
        "import os\n"
        "from kernels.shapes import nbytes as size_of\n"
        "from kernels import shapes\n"
        "\n"
        "def tile(rows):  # a name the module also has\n"
        "    return [r for r in rows]\n"
        "\n"
        "print(tile([1, 2]), shapes.tile(64))\n"
        "print(size_of(64, 'fp16'))\n"
        "print(size_of(64, 'bf16'))\n"
    ),
}


def test_a_package_is_written_into_the_program(tmp_path):
    folder = write(tmp_path, PACKAGE)
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert [os.path.relpath(m, folder) for m in result.modules] == ["kernels/config.py", "kernels/shapes.py"]
    assert "import kernels" not in result.text and "from kernels" not in result.text and "from .config" not in result.text
    assert "def shapes_tile(n):" in result.text  # renamed: the program has its own `tile`
    assert "def tile(rows):" in result.text
    assert "'kernels.shapes' == '__main__'" in result.text  # the module's own __name__ guard stays dead
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "main.py").write_text(result.text)
    output = run_standalone(alone / "main.py")
    assert output.splitlines()[:2] == ["[1, 2] 2", "128"]
    assert "KeyError: 'bf16'" in output
    assert (folder / "kernels" / "shapes.py").read_text() == PACKAGE["kernels/shapes.py"]  # only read


def test_a_module_used_as_a_value_keeps_its_import(tmp_path):
    folder = write(tmp_path, {"helpers.py": "X = 1\n", "main.py": "import helpers\nprint(vars(helpers)['X'])\n"})
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == ()
    assert result.text == (folder / "main.py").read_text()
    assert result.kept and "used as a value" in result.kept[0][1]


def test_installed_packages_are_not_inlined(tmp_path):
    folder = write(tmp_path, {"main.py": "import json\nimport os.path\nprint(json.dumps(1))\n"})
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == () and result.kept == ()


def test_global_state_and_shadowed_names_are_renamed_exactly(tmp_path):
    folder = write(tmp_path, {
        "counter.py": (
            "count = 0\n"
            "def bump(count_by=1):\n"
            "    global count\n"
            "    count += count_by\n"
            "    return count\n"
            "def local_only(count):\n"
            "    return [count for count in range(count)]\n"
        ),
        "main.py": "import counter as c\ncount = 'mine'\nc.bump()\nprint(c.bump(), count, c.local_only(2))\n",
    })
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert "global counter_count" in result.text
    assert "def local_only(count):\n    return [count for count in range(count)]" in result.text
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "main.py").write_text(result.text)
    assert run_standalone(alone / "main.py").strip() == "2 mine [0, 1]"


def test_the_reproducer_is_one_file_that_runs_anywhere(tmp_path, no_leftovers):
    folder = write(tmp_path / "project", PACKAGE)
    source = folder / "main.py"
    events = []
    summary = Reduction(source.read_text(), str(source), ReduceOptions(err_msg="KeyError", cwd=str(folder)), events.append).run()
    assert summary.verified and summary.final_failure_line == "KeyError: 'bf16'"
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("inlined kernels/config.py, kernels/shapes.py" in n for n in notices), notices
    assert "import kernels" not in summary.text and "from kernels" not in summary.text
    alone = tmp_path / "anywhere"
    alone.mkdir()
    (alone / "repro.py").write_text(summary.text)
    assert "KeyError: 'bf16'" in run_standalone(alone / "repro.py")
    assert (folder / "kernels" / "shapes.py").read_text() == PACKAGE["kernels/shapes.py"]


def test_keep_imports_confines_the_reduction_to_the_file(tmp_path):
    folder = write(tmp_path / "project", PACKAGE)
    source = folder / "main.py"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", "KeyError", "-o", str(tmp_path / "out.py"),
         "--keep-imports", "-q"],
        capture_output=True, text=True, timeout=120, cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    assert "kernels" in (tmp_path / "out.py").read_text()


def test_a_failure_raised_by_the_modules_own_check_keeps_its_import(tmp_path):
    """Inlined, `raise` in the module would be the program's, and the reproducer could be the bare raise."""
    folder = write(tmp_path, {
        "checks.py": "def check(n):\n    if n > 3:\n        raise ValueError(f'too big: {n}')\n    return n\n",
        "main.py": "import checks\nfor n in range(6):\n    checks.check(n)\n",
    })
    events = []
    source = folder / "main.py"
    summary = Reduction(source.read_text(), str(source), ReduceOptions(err_msg="too big", cwd=str(folder)), events.append).run()
    assert summary.verified and "checks.check(" in summary.text
    assert any("own raise or assert" in e.message for e in events if isinstance(e, Notice))
