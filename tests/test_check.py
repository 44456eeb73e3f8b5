"""`--check CMD`: the user's own test decides, on real programs with a real driver script.

The plugin does nothing when run alone; a driver loads the file it is given and exits
with 0 while the bug shows (shrinkray's and C-Vise's convention).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import assert_one_line_error, autodd, run_pytest

pytestmark = pytest.mark.slow  # every test here starts an interpreter

PLUGIN = '''\
TABLE = {"st.": "street", "rd.": "road"}


def fold(text):
    return text.lower()


def expand(word):
    return TABLE.get(word, word)


def normalize(text):
    words = [expand(word) for word in text.split()]
    return fold(" ".join(words))


def unused_helper(x):
    return [x] * 3


class Index:
    def __init__(self):
        self.entries = {}

    def add(self, street):
        self.entries[normalize(street)] = street

    def lookup(self, street):
        return self.entries.get(normalize(street))
'''

DRIVER = '''\
import importlib.util
import os
import sys


assert os.environ["AUTODD_CANDIDATE"] == sys.argv[1]
spec = importlib.util.spec_from_file_location("plugin", sys.argv[1])
plugin = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(plugin)
    index = plugin.Index()
    index.add("12 Main Street")
    exact, short = index.lookup("12 Main Street"), index.lookup("12 main St.")
except Exception as error:
    print("plugin does not load:", error)
    sys.exit(2)
sys.exit(0 if exact and not short else 1)
'''


@pytest.fixture
def plugin(tmp_path):
    (tmp_path / "driver.py").write_text(DRIVER)
    source = tmp_path / "plugin.py"
    source.write_text(PLUGIN)
    return source


def test_a_driver_script_decides(plugin, tmp_path, no_leftovers):
    report, test = tmp_path / "bug.md", tmp_path / "test_plugin.py"
    done = autodd(plugin, "--check", "python driver.py {}", "-j", "2", "--report", report, "--emit-test", test,
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "rule: your check `python driver.py {}` exits with 0 (your check is the rule" in done.stderr
    result = tmp_path / "plugin.min.py"
    reduced = result.read_text()
    assert "unused_helper" not in reduced and len(reduced.splitlines()) < len(PLUGIN.splitlines())
    check = subprocess.run([sys.executable, "driver.py", str(result)], cwd=tmp_path, check=False,
                           env={"AUTODD_CANDIDATE": str(result), "PATH": ""})
    assert check.returncode == 0  # the result still shows the bug to the driver
    assert "python driver.py plugin.min.py" in report.read_text()
    assert run_pytest(test, tmp_path).returncode == 1  # the emitted test runs the check: the bug is there


def test_an_original_the_check_rejects_is_not_reproducible(plugin, tmp_path):
    done = autodd(plugin, "--check", "python driver.py {} && exit 1", cwd=tmp_path)
    assert done.returncode == 1
    assert "your check `python driver.py {} && exit 1` exited with status 1 on the original" in done.stderr


def test_bad_checks_are_one_line(plugin, tmp_path):
    assert_one_line_error(autodd(plugin, "--check", "python driver.py {}", "--backend", "ray", cwd=tmp_path), 2,
                          "--check runs your command on this machine")
    assert_one_line_error(autodd(plugin, "--check", " ", cwd=tmp_path), 2, "--check needs a shell command")
