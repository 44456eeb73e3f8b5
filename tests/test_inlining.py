"""The program's own modules inlined: one standalone reproducer (autodd_lsp.inlining, and the engine)."""

import os
import subprocess
import sys

import pytest

from autodd_lsp.engine import Event, Notice, ReduceOptions, Reduction
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


@pytest.mark.slow
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


REBOUND = {
    "model.py": "class RNNModel:\n    def __init__(self, n):\n        self.n = n\n\n\nclass TransformerModel(RNNModel):\n    pass\n",
    "main.py": (
        "import sys\n"
        "import model\n"
        "\n"
        "kind = model.RNNModel\n"
        "if len(sys.argv) > 5:\n"
        "    model = model.TransformerModel(4)\n"
        "else:\n"
        "    model = model.RNNModel(4)\n"
        "print(kind.__name__, model.n)\n"
    ),
}


def test_a_module_whose_name_the_script_rebinds_is_inlined_under_a_name_of_its_own(tmp_path):
    """pytorch/examples' word language model: `import model` ... `model = model.RNNModel(...)`.
    Where `model` is the module (before the rebinding, and in the values that rebind it) it is
    inlined; after, it is the script's object, left as it is."""
    folder = write(tmp_path, REBOUND)
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == (str(folder / "model.py"),) and result.kept == ()
    assert "import model" not in result.text and "model_module" not in result.text
    assert "kind = RNNModel\n" in result.text and "    model = TransformerModel(4)\n" in result.text
    assert "    model = RNNModel(4)\nprint(kind.__name__, model.n)\n" in result.text
    (folder / "model.py").unlink()  # one file: it runs without the module beside it
    alone = folder / "alone.py"
    alone.write_text(result.text)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(result.text, str(alone), "exec"), namespace)
    assert namespace["model"].n == 4 and namespace["kind"].__name__ == "RNNModel"


def test_a_rebound_module_name_read_as_a_value_before_keeps_its_import(tmp_path):
    main = "import model\nprint(model)\nmodel = model.RNNModel(4)\n"
    folder = write(tmp_path, {**REBOUND, "main.py": main})
    result = inline_local_modules(main, str(folder / "main.py"))
    assert result.modules == () and result.text == main
    assert result.kept and "used as a value" in result.kept[0][1]


def test_installed_packages_are_not_inlined(tmp_path):
    folder = write(tmp_path, {"main.py": "import json\nimport os.path\nprint(json.dumps(1))\n"})
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == () and result.kept == ()


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_reproducer_is_one_file_that_runs_anywhere(tmp_path, no_leftovers):
    folder = write(tmp_path / "project", PACKAGE)
    source = folder / "main.py"
    events: list[Event] = []
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


@pytest.mark.slow
def test_keep_imports_confines_the_reduction_to_the_file(tmp_path):
    folder = write(tmp_path / "project", PACKAGE)
    source = folder / "main.py"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", "KeyError", "-o", str(tmp_path / "out.py"),
         "--keep-imports", "-q"],
        capture_output=True, text=True, timeout=120, cwd=folder, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "kernels" in (tmp_path / "out.py").read_text()


@pytest.mark.slow
def test_a_failure_raised_by_the_modules_own_check_is_inlined_with_the_check_frozen(tmp_path, no_leftovers):
    """Inlined, `raise` in the module becomes the program's: its guard is frozen, so the reproducer
    cannot shrink to the bare raise; it must still make the module's check fire."""
    folder = write(tmp_path, {
        "checks.py": "def check(n):\n    if n > 3:\n        raise ValueError(f'too big: {n}')\n    return n\n",
        "main.py": "import checks\nimport os\nprint(os.getcwd())\nfor n in range(6):\n    checks.check(n)\n",
    })
    events: list[Event] = []
    source = folder / "main.py"
    summary = Reduction(source.read_text(), str(source), ReduceOptions(err_msg="too big", cwd=str(folder)), events.append).run()
    assert summary.verified and "import checks" not in summary.text
    assert "if n > 3:  # autodd: freeze (the check from checks.py:3 that raises the failure)" in summary.text
    # the check sees the value it failed on: the loop, or (reduced with the import first, then
    # inlined) the call with the failing iteration's value, `n = 4`
    assert ("for n in range(6)" in summary.text or "n = 4\n" in summary.text) and "getcwd" not in summary.text
    assert any("its check at checks.py:3 is frozen" in e.message for e in events if isinstance(e, Notice))
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "repro.py").write_text(summary.text)
    assert "ValueError: too big: 4" in run_standalone(alone / "repro.py")


def test_freeze_check_picks_the_guard():
    from autodd_lsp.inlining import freeze_check

    text = "def f(x):\n    y = x\n    if y:\n        if x > 1:\n            raise ValueError(x)\n    assert x, 'no'\n"
    frozen = freeze_check(text, 5, "m.py:5")
    assert frozen is not None
    assert frozen.splitlines()[3] == "        if x > 1:  # autodd: freeze (the check from m.py:5 that raises the failure)"
    assert (freeze_check(text, 6, "m.py:6") or "").splitlines()[5].startswith("    assert x, 'no'  # autodd: freeze")
    assert (freeze_check("def f():\n    raise KeyError(1)\n", 2, "m.py:2") or "").splitlines()[1].endswith("raises the failure)")
    assert freeze_check(text, 2, "m.py:2") is None  # not a raise


STAR_AND_PACKAGES = {
    "pkg/__init__.py": "REGISTRY = {}\ndef register(name):\n    REGISTRY[name] = len(REGISTRY)\n    return REGISTRY[name]\n",
    "pkg/sub/__init__.py": '"""Only a docstring: nothing to run."""\n',
    "pkg/sub/ops.py": "from .. import register\nSLOT = register('ops')\ndef scale(x):\n    return x * 2\n",
    "helpers.py": "__all__ = ['tile', 'BLOCK']\nBLOCK = 16\ndef tile(n):\n    return n // BLOCK\ndef _private():\n    pass\n",
    "main.py": (
        "import pkg.sub.ops\n"
        "from helpers import *\n"
        "import pkg\n"
        "print(pkg.sub.ops.scale(3), pkg.sub.ops.SLOT, pkg.REGISTRY, tile(64), BLOCK)\n"
        "raise KeyError(pkg.REGISTRY['missing'])\n"
    ),
}


@pytest.mark.slow
def test_star_imports_dotted_imports_and_package_init_code_are_inlined(tmp_path):
    folder = write(tmp_path, STAR_AND_PACKAGES)
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.kept == ()
    assert [os.path.relpath(m, folder) for m in result.modules] == ["pkg/__init__.py", "pkg/sub/ops.py", "helpers.py"]
    assert "import" not in result.text
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "main.py").write_text(result.text)
    output = run_standalone(alone / "main.py")
    assert output.splitlines()[0] == "6 0 {'ops': 0} 4 16"  # the package's __init__ ran first, once
    assert "KeyError: 'missing'" in output


def test_a_star_import_that_would_mix_names_keeps_its_import(tmp_path):
    folder = write(tmp_path, {"helpers.py": "def tile(n):\n    return n\n", "main.py": "from helpers import *\ndef tile(n):\n    return 0\nprint(tile(3))\n"})
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == () and "both define tile" in result.kept[0][1]


def test_a_dotted_module_used_as_a_value_keeps_its_import(tmp_path):
    folder = write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": "X = 1\n", "main.py": "import pkg.ops\nprint(vars(pkg.ops))\n"})
    result = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert result.modules == () and "pkg.ops is used as a value" in result.kept[0][1]
