"""A project's own test in its usual layout (issue 41): the package beside `tests/`, in `src/`, a
conftest.py at the root. The package is the program's own code (`inlining/project.py`): what the
result uses of it is written in, or, where it cannot be, the result is checked with the project's
folder on sys.path and the run names the package. And a text the warm runner accepted but a fresh
interpreter does not fail on: the run says so and goes on from the newest text that fails fresh
(`engine/lifecycle/verify.py`, `reduction.py`)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autodd_lsp.inlining import inline_local_modules
from autodd_lsp.inlining.project import import_roots, package_version, project_imports
from tests.support import autodd, reduce

OPS = '''"""Operations."""
import math


def add(a, b):
    return a + b


def rsub(a, b):
    # the bug: the operands are swapped
    return a - b


def norm(xs):
    return math.sqrt(sum(x * x for x in xs))
'''

TEST = """import pytest
from pkg.ops import add, norm, rsub


def values(x):
    return [x, x + 1, x + 2]


class TestOps:
    def test_add(self, scale):
        assert add(1, 2) * scale == 3

    def test_norm(self):
        assert norm([3, 4]) == 5

    def test_scalar_rsub(self, scale):
        for v in values(1):
            got = rsub(v, 10 * scale)
            assert got == 10 * scale - v, f"rsub({v}, 10) = {got}"
"""

CONFTEST = """import pytest


@pytest.fixture
def scale():
    return 1
"""

NODE = "TestOps::test_scalar_rsub"
FAILURE = "AssertionError: rsub(1, 10) = -9"


def make_project(root: Path, test: str = TEST) -> Path:
    """pkg/ beside tests/, a conftest.py and a pyproject.toml at the root; the test file's path."""
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text(
        '"""A package."""\nfrom pkg.ops import add\n\n__version__ = "0.3"\n'
    )
    (root / "pkg" / "ops.py").write_text(OPS)
    (root / "tests" / "test_ops.py").write_text(test)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.3"\n')
    return root / "tests" / "test_ops.py"


def files_of(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def pytest_alone(
    result: Path, folder: Path, pythonpath: str | None = None
) -> subprocess.CompletedProcess:
    """The result copied alone into the empty `folder`, run by plain `python -m pytest FILE::NODE` there."""
    folder.mkdir()
    (folder / result.name).write_text(result.read_text())
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            f"{result.name}::{NODE}",
            "--tb=native",
            "-p",
            "no:cacheprovider",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=env,
        check=False,
    )


# -- where a test's imports resolve (pure) ------------------------------------------------


def test_the_roots_of_the_usual_layouts(tmp_path):
    test = make_project(tmp_path / "flat")
    assert import_roots(str(test)) == (str(tmp_path / "flat"),)
    # a package of tests: its basedir is the root, as pytest's prepend mode has it
    (tmp_path / "flat" / "tests" / "__init__.py").write_text("")
    assert import_roots(str(test)) == (str(tmp_path / "flat"),)
    # src layout, with the pythonpath ini option of pytest.ini
    src = tmp_path / "srcl"
    (src / "src" / "lib").mkdir(parents=True)
    (src / "src" / "lib" / "__init__.py").write_text("")
    (src / "test").mkdir()
    (src / "test" / "test_x.py").write_text("")
    (src / "vendor").mkdir()
    (src / "pytest.ini").write_text("[pytest]\npythonpath = vendor\n")
    assert import_roots(str(src / "test" / "test_x.py")) == (
        str(src),
        str(src / "vendor"),
        str(src / "src"),
    )
    # the pythonpath of pyproject.toml's [tool.pytest.ini_options]
    (src / "pytest.ini").unlink()
    (src / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["vendor"]\n'
    )
    assert str(src / "vendor") in import_roots(str(src / "test" / "test_x.py"))
    # a test file with no project around it: its folder alone
    lone = tmp_path / "lone"
    lone.mkdir()
    assert import_roots(str(lone / "test_y.py")) == ()


def test_the_project_package_is_inlined_and_named(tmp_path):
    test = make_project(tmp_path / "p")
    inlined = inline_local_modules(test.read_text(), str(test), import_roots(str(test)))
    assert [os.path.relpath(m, tmp_path / "p") for m in inlined.modules] == [
        "pkg/ops.py",
        "pkg/__init__.py",
    ]
    assert "from pkg" not in inlined.text and "def rsub(a, b):" in inlined.text
    # without the project's folders, as before: the package is not the program's
    assert inline_local_modules(test.read_text(), str(test)).modules == ()
    assert project_imports(test.read_text(), str(test)) == [
        ("pkg", str(tmp_path / "p"))
    ]
    assert project_imports(inlined.text, str(test)) == []
    assert package_version(str(tmp_path / "p" / "pkg"), str(tmp_path / "p")) == "0.3"


# -- the real CLI on a project's test -------------------------------------------------------


@pytest.mark.slow
def test_a_test_beside_its_package_reduces_to_one_file_that_fails_alone(
    tmp_path, no_leftovers
):
    root = tmp_path / "project"
    test = make_project(root)
    before = files_of(root)
    output = tmp_path / "out" / "test_min.py"
    output.parent.mkdir()
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = autodd(
        f"tests/test_ops.py::{NODE}",
        "--err-msg",
        FAILURE,
        "-o",
        output,
        cwd=root,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "re-run: still fails the same way" in done.stderr
    assert (
        "pkg/ops.py" in done.stderr and "the reproducer will be one file" in done.stderr
    )
    result = output.read_text()
    assert "pkg" not in result  # the package's code is written in
    assert "def rsub(a, b):" in result and "return a - b" in result
    assert len(result) < len(test.read_text())
    alone = pytest_alone(output, tmp_path / "empty")
    assert alone.returncode == 1, alone.stdout + alone.stderr
    assert FAILURE in alone.stdout
    assert files_of(root) == before  # the user's files as they were, nothing added


@pytest.mark.slow
def test_a_package_that_cannot_be_inlined_is_named_and_checked_on_sys_path(
    tmp_path, no_leftovers
):
    # `ops` passed as a value: its import stays (notes/inlining.md), so the result needs the package
    root = tmp_path / "project"
    make_project(
        root,
        test="""import pkg.ops as ops


def values(x):
    return [x, x + 1]


class TestOps:
    def test_scalar_rsub(self):
        fn = getattr(ops, "rsub")
        for v in values(1):
            got = fn(v, 10)
            assert got == 10 - v, f"rsub({v}, 10) = {got}"
""",
    )
    before = files_of(root)
    output = tmp_path / "out" / "test_min.py"
    output.parent.mkdir()
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    # started from the test's own folder: the project's root is on sys.path all the same, in the
    # trial run that offers the failures too
    asked = autodd(f"test_ops.py::{NODE}", cwd=root / "tests", env=env)
    assert f'--err-msg "{FAILURE}"' in asked.stderr, asked.stderr
    done = autodd(
        f"test_ops.py::{NODE}",
        "--err-msg",
        FAILURE,
        "-o",
        output,
        cwd=root / "tests",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert f"the result needs pkg 0.3 from {root} (not inlined)" in done.stderr
    assert "re-run: still fails the same way" in done.stderr
    assert "import pkg.ops as ops" in output.read_text()
    without = pytest_alone(
        output, tmp_path / "without"
    )  # the package is needed: the run named it above
    assert (
        without.returncode != 1
        and "No module named 'pkg'" in without.stdout + without.stderr
    )
    alone = pytest_alone(output, tmp_path / "with", pythonpath=str(root))
    assert alone.returncode == 1 and FAILURE in alone.stdout, (
        alone.stdout + alone.stderr
    )
    assert files_of(root) == before


# -- the warm runner and a fresh interpreter disagree -----------------------------------------

DISAGREES = """import sys
import colorsys


def noise(n):
    total = 0
    for i in range(n):
        total += i * 2
    return total


def check(x):
    module = sys.modules["colorsys"]  # there only once imported: in the warm runner, always
    if x > 3:
        raise ValueError(f"bad value {x}: {module.rgb_to_hsv(x, 0, 0)[2]}")


a = noise(10)
b = noise(20)
print(a, b)
check(5)
"""


@pytest.mark.slow
def test_a_text_only_the_warm_runner_fails_on_is_left_and_the_reduction_goes_on(
    tmp_path, no_leftovers
):
    path = tmp_path / "prog.py"
    path.write_text(DISAGREES)
    summary, events = reduce(path, "ValueError: bad value 5", backend="runner")
    notices = [getattr(e, "message", "") for e in events]
    said = [n for n in notices if "disagree on the text accepted by" in n]
    assert said and "KeyError: 'colorsys'" in said[0], notices
    assert any(
        "goes on from it, every candidate run in a fresh interpreter" in n
        for n in notices
    ), notices
    assert summary.verified
    result = summary.text
    assert (
        "import colorsys" in result and "noise" not in result
    )  # smaller than the original, and fails fresh
    assert summary.final.nodes < summary.original.nodes
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "prog.py").write_text(result)
    ran = subprocess.run(
        [sys.executable, "prog.py"],
        cwd=tmp_path / "alone",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "ValueError: bad value 5" in ran.stderr
    assert path.read_text() == DISAGREES
