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


SERVICE = '''\
"""Prices, with a bug: a discount larger than the total gives a negative price."""
import math

TAX = {"fr": 0.2, "de": 0.19}


def parse(line):
    name, qty, price = line.split(",")
    return {"name": name.strip(), "qty": int(qty), "price": float(price)}


def subtotal(items):
    return sum(item["qty"] * item["price"] for item in items)


def discount(total, code):
    if code == "HALF":
        return total / 2
    if code == "TEN":
        return total - 10
    return total


def report(items):
    return "\\n".join(f"{item['name']}: {item['qty']}" for item in items)


def price(lines, code, country):
    items = [parse(line) for line in lines]
    total = discount(subtotal(items), code)
    return math.floor(total * (1 + TAX.get(country, 0.0)) * 100) / 100
'''

# The user's interestingness test, as written for the original by name: it knows no `{}`.
BY_NAME_DRIVER = '''\
import service

got = service.price(["a, 3, 2.5"], "TEN", "fr")
print("price", got)
raise SystemExit(0 if got < 0 else 1)
'''


@pytest.fixture
def project(tmp_path):
    """project/src/service.py, its driver beside it, and project/check.sh that runs the driver."""
    src = tmp_path / "project" / "src"
    src.mkdir(parents=True)
    (src / "service.py").write_text(SERVICE)
    (src / "driver.py").write_text(BY_NAME_DRIVER)
    (src.parent / "check.sh").write_text("cd src && python driver.py\n")
    return src.parent


def test_a_check_that_imports_the_module_by_name_sees_the_candidate(project, tmp_path, no_leftovers):
    source, before = project / "src" / "service.py", sorted((project / "src").iterdir())
    result, report = tmp_path / "service.min.py", tmp_path / "bug.md"
    done = autodd("src/service.py", "--check", "bash check.sh", "-j", "2", "-o", result, "--report", report,
                  cwd=project)
    assert done.returncode == 0, done.stderr
    assert "re-run: still fails the same way" in done.stderr
    reduced = result.read_text()
    assert "def price" in reduced and "report" not in reduced  # not empty, and smaller (before: 1 AST node)
    assert source.read_text() == SERVICE and sorted((project / "src").iterdir()) == before
    # The result satisfies the user's script, run as the user runs it: in the place of service.py.
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(project), str(copy)], check=True)
    (copy / "src" / "service.py").write_text(reduced)
    rerun = subprocess.run(["bash", "check.sh"], cwd=copy, capture_output=True, text=True, check=False)
    assert rerun.returncode == 0 and "price -" in rerun.stdout, rerun.stdout + rerun.stderr
    assert "bash check.sh    # your check, with the reproducer in your file's place" in report.read_text()


def test_a_check_that_passes_on_an_empty_file_is_refused(project, no_leftovers):
    # It runs a program that is not the candidate: every candidate, even an empty file, "passes".
    done = autodd("src/service.py", "--check", "python -c 'import sys; sys.exit(0)'", cwd=project)
    assert_one_line_error(done, 2, "exits with 0 on an empty service.py too: it does not read the candidate")
    assert (project / "src" / "service.py").read_text() == SERVICE and not (project / "src" / "service.min.py").exists()
