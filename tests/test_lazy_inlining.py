"""Lazy inlining (issue 22): reduce with the imports kept, then inline only what the result still uses.

The pure parts (what is left out of an inlined module, when an inlined failure line is the
original's) run fast; the reductions of real multi-file programs are `slow`.
"""

import shutil
from pathlib import Path

import pytest

from autodd_lsp.engine import Event, Notice, ReduceOptions, Reduction
from autodd_lsp.engine.lifecycle.inlined import same_once_inlined
from autodd_lsp.inlining import inline_local_modules, prune_unused
from autodd_lsp.oracle.same import Observation
from autodd_lsp.syntax.metrics import size_of
from autodd_lsp.syntax.parsing import parse
from tests.support import PROGRAMS, run_standalone


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


MODELS = (
    '"""Models."""\n'
    "import math\n"
    "import json\n"
    "SCALE = 2\n"
    "UNUSED_TABLE = {\n"
    "    'a': 1,\n"
    "}\n"
    "def helper(x):\n"
    "    return x * SCALE\n"
    "def only_for_unused(x):\n"
    "    return math.sqrt(x)\n"
    "# the big model nobody builds here\n"
    "class Unused:\n"
    "    def run(self, x):\n"
    "        return only_for_unused(x)\n"
    "class Used:\n"
    "    def run(self, x):\n"
    "        return helper(x)\n"
    "print('models imported')\n"
)


def test_only_what_the_program_uses_of_an_inlined_module_is_kept(tmp_path):
    folder = write(tmp_path, {"models.py": MODELS, "main.py": "import models\nprint(models.Used().run(3))\n"})
    inlined = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert inlined.modules == (str(folder / "models.py"),) and len(inlined.spans) == 1
    pruned = prune_unused(inlined.text, inlined.spans)
    assert pruned == (
        "SCALE = 2\n"
        "def helper(x):\n"
        "    return x * SCALE\n"
        "class Used:\n"
        "    def run(self, x):\n"
        "        return helper(x)\n"
        "print('models imported')\n"  # a statement that binds nothing runs as it did
        "print(Used().run(3))\n"
    )
    parse(pruned)


def test_pruning_leaves_the_program_alone_and_names_read_by_string_keep_everything(tmp_path):
    folder = write(tmp_path, {"models.py": MODELS, "main.py": "import models\nunused_here = 1\nprint(models.Used())\n"})
    inlined = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert "unused_here = 1" in prune_unused(inlined.text, inlined.spans)  # the program's own code is the reduction's
    dynamic = MODELS + "print(globals()['SCALE'])\n"
    (folder / "models.py").write_text(dynamic)
    inlined = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert prune_unused(inlined.text, inlined.spans) == inlined.text


def test_an_inlined_exception_class_may_lose_its_module_name(tmp_path):
    main = str(tmp_path / "shop.py")
    module = str(tmp_path / "mylib" / "pricing.py")
    qualified = Observation("mylib.pricing.PricingError: margin", "mylib.pricing.PricingError: margin", None)
    bare = Observation("PricingError: margin", "PricingError: margin", None)
    assert same_once_inlined(qualified, bare, (module,), main)
    assert not same_once_inlined(qualified, bare, (str(tmp_path / "other.py"),), main)  # not an inlined module
    other = Observation("PricingError: other", "PricingError: other", None)
    assert not same_once_inlined(qualified, other, (module,), main)


def reduce(folder: Path, script: str, err_msg: str, **options) -> tuple:
    events: list[Event] = []
    path = folder / script
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg=err_msg, cwd=str(folder), **options),
                        events.append).run()
    return summary, [e.message for e in events if isinstance(e, Notice)]


def alone(tmp_path: Path, text: str) -> str:
    """The result run the way a maintainer runs it: a fresh interpreter in an empty folder."""
    folder = tmp_path / "alone"
    folder.mkdir()
    (folder / "repro.py").write_text(text)
    return run_standalone(folder / "repro.py")


@pytest.mark.slow
def test_a_package_whose_own_check_raises_ends_standalone(tmp_path, no_leftovers):
    """issue 22: `mylib/pricing.py` raises `PricingError`; the result was left as `from mylib import
    Order` ("with them inlined the program fails otherwise": the class lost its module's name)."""
    folder = tmp_path / "shop"
    shutil.copytree(PROGRAMS / "shop", folder)
    summary, notices = reduce(folder, "shop.py", "PricingError")
    assert summary.verified, notices
    assert "mylib" not in summary.text.replace("mylib/pricing.py", "")  # no import left; the frozen check names its file
    assert "# autodd: freeze (the check from mylib/pricing.py:22 that raises the failure)" in summary.text
    assert "PricingError: order 103: margin -0.045 is below 0.02" in alone(tmp_path, summary.text)


@pytest.mark.slow
def test_a_training_project_is_reduced_with_its_imports_then_inlined(tmp_path):
    """A 1,001-line project (train.py + data.py, models.py, utils.py) whose attention mask is too
    short: reduced with the imports first, the result is one file, smaller than train.py alone.
    (No `no_leftovers`: torch itself leaves its `torchinductor_<user>` cache in TMPDIR.) About
    6 minutes on a loaded 2-core machine; inlining everything first was not done in 10."""
    folder = tmp_path / "charlm"
    shutil.copytree(PROGRAMS / "charlm", folder, ignore=shutil.ignore_patterns("*.md", "__pycache__"))
    script = (folder / "train.py").read_text()
    summary, notices = reduce(folder, "train.py", "must match the size of tensor b", timeout=60)
    line = "RuntimeError: The size of tensor a (32) must match the size of tensor b (64) at non-singleton dimension 3"
    assert summary.verified and summary.final_failure_line == line, notices
    assert any(n.startswith("inlined ") and "models.py" in n for n in notices), notices
    for module in ("data", "models", "utils"):
        assert f"import {module}" not in summary.text and f"from {module}" not in summary.text
    assert size_of(summary.text).nodes < size_of(script).nodes  # smaller than the main script alone
    assert line in alone(tmp_path, summary.text)


def test_the_same_import_in_the_program_and_a_module_is_no_collision(tmp_path):
    """`import torch` in train.py and in models.py bind the same module: no `import torch as models_torch`."""
    folder = write(tmp_path, {
        "models.py": "import math\nimport os.path\nfrom math import pi as PI\nimport json as js\njs = 1\ndef area(r):\n    return PI * math.sqrt(r) + js\n",
        "main.py": "import math\nimport os\nfrom math import pi as PI\nimport json as js\nimport models\nprint(models.area(math.e), os.sep, PI, js)\n",
    })
    inlined = inline_local_modules((folder / "main.py").read_text(), str(folder / "main.py"))
    assert "models_math" not in inlined.text and "models_PI" not in inlined.text
    assert "import os.path\n" in inlined.text and "models_os" not in inlined.text  # `import os.path` binds `os` too
    assert "models_js" in inlined.text  # the module rebinds its `js`: another value
    parse(inlined.text)
