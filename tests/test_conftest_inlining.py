"""A pytest test's conftest.py files written into it (autodd_lsp.inlining.conftest), judged by pytest itself."""

import subprocess
import sys

import pytest

from autodd_lsp.engine import UsageError
from autodd_lsp.engine.spec.pytest_target import conftest_files, split_source
from autodd_lsp.inlining import inline_conftests

OUTER = '''\
import pytest

LIMIT = 10


def helper():
    return "outer"


@pytest.fixture
def size():
    return LIMIT


@pytest.fixture
def label():
    return helper()
'''

INNER = '''\
import pytest


def helper():
    return "inner"


@pytest.fixture
def size():  # overrides the outer one, as in pytest
    return 20


@pytest.fixture(autouse=True)
def note(request):
    request.node.noted = helper()
'''

TEST = '''\
"""Uses both conftests' fixtures."""
from __future__ import annotations

import pytest


def helper():  # the test module's own helper
    return "test"


def test_it(size, label, request):
    assert (size, label, request.node.noted, helper()) == (20, "outer", "inner", "test")
'''


def project(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(OUTER)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "conftest.py").write_text(INNER)
    (tmp_path / "pkg" / "test_it.py").write_text(TEST)
    return tmp_path / "pkg" / "test_it.py"


def pytest_passes(path, *options):
    done = subprocess.run([sys.executable, "-m", "pytest", str(path), "-q", "-p", "no:cacheprovider", *options],
                          capture_output=True, text=True, cwd=path.parent, timeout=120, check=False)
    return done.returncode == 0, done.stdout + done.stderr


def test_conftests_are_found_up_to_the_project_root(tmp_path):
    test = project(tmp_path)
    assert conftest_files(str(test)) == [str(tmp_path / "conftest.py"), str(tmp_path / "pkg" / "conftest.py")]


@pytest.mark.slow
def test_the_inlined_test_passes_without_its_conftests_as_the_original_does_with_them(tmp_path):
    test = project(tmp_path)
    passed, output = pytest_passes(test)
    assert passed, output
    inlined = inline_conftests(TEST, str(test), conftest_files(str(test)))
    assert inlined.modules == (str(tmp_path / "conftest.py"), str(tmp_path / "pkg" / "conftest.py"))
    assert inlined.text.startswith('"""Uses both conftests\' fixtures."""\nfrom __future__ import annotations\n')
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "test_it.py").write_text(inlined.text)
    passed, output = pytest_passes(alone / "test_it.py", "--noconftest")
    assert passed, output + inlined.text
    # Fixture names are kept; the helpers that collide are renamed, each conftest keeps its own.
    assert "def size():" in inlined.text and "def conftest_helper" in inlined.text


@pytest.mark.parametrize("source, expected", [
    ("t.py", ("t.py", "")),
    ("tests/test_k.py::test_x", ("tests/test_k.py", "test_x")),
    ("test_k.py::test_x[64-float16]", ("test_k.py", "test_x[64-float16]")),
    ("test_k.py::TestK::test_x[a::b]", ("test_k.py", "TestK::test_x[a::b]")),
])
def test_node_ids_are_split_once(source, expected):
    assert split_source(source) == expected


@pytest.mark.parametrize("source", ["t.py::", "t.py::1test", "t.py::test x", "t.py::test[64", "t.py::A::"])
def test_bad_node_ids_are_usage_errors(source):
    with pytest.raises(UsageError, match="not a pytest node id"):
        split_source(source)
