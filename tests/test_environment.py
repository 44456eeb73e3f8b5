"""An interpreter without a module the program imports at its top level: the environment, not a bug.

A real bare virtual environment (`python -m venv --without-pip`), a program importing a
module it lacks: with no failure given, AutoDD names the interpreter and its version, the
module and how to choose another, exits 1 and offers nothing; named by the user, it is reduced.
"""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from autodd_lsp.engine.asking.environment import missing_import
from tests.support import autodd

pytestmark = pytest.mark.slow  # every test here starts an interpreter

PROGRAM = '''\
import json
import numpy_is_not_here_at_all as np



def main():
    return np.zeros(3)


print(json.dumps(main().tolist()))
'''

LAZY = '''\
def main():
    import numpy_is_not_here_at_all
    return numpy_is_not_here_at_all


main()
'''


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    folder = tmp_path_factory.mktemp("venv") / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    return folder / "bin" / "python"


def test_a_missing_top_level_import_is_the_environment(tmp_path, bare_python):
    source = tmp_path / "model.py"
    source.write_text(PROGRAM)
    done = autodd(source, "--python", bare_python)
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("autodd: error:")]
    assert len(errors) == 1, done.stderr
    assert f"{bare_python} (Python {platform.python_version()}) cannot import 'numpy_is_not_here_at_all'" in errors[0]
    assert "--python" in errors[0] and "autodd.interpreter" in errors[0]
    assert "--err-msg" not in done.stderr  # nothing offered


def test_named_by_the_user_it_is_reduced(tmp_path, bare_python):
    source = tmp_path / "model.py"
    source.write_text(PROGRAM)
    done = autodd(source, "--python", bare_python, "--err-msg", "No module named 'numpy_is_not_here_at_all'", "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "model.min.py").read_text().strip().startswith("import numpy_is_not_here_at_all")
    assert "def main" not in (tmp_path / "model.min.py").read_text()


def test_a_lazy_import_is_not_the_environment():
    output = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numpy_is_not_here_at_all'\n"
    assert missing_import(output, LAZY, sys.executable) is None
    found = missing_import(output, PROGRAM, sys.executable)
    assert found is not None and found.module == "numpy_is_not_here_at_all"
    assert missing_import(output + "but then it printed more\n", PROGRAM, sys.executable) is None
