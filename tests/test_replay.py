"""The dispatcher goes, the calls it made stay (passes/replay.py, execution/record_stories.py):
the instance the program failed in gets the calls it was given, written out, by the real engine."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.execution.record_stories import TOTAL_CALLS
from autodd_lsp.execution.recording import RECORDER
from autodd_lsp.passes.replay import written
from autodd_lsp.syntax.source import Source
from autodd_lsp.values.recorded import RecordedValues, Story

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"


def stories(tmp_path: Path, text: str) -> tuple[Story, ...]:
    """Record `text`'s run; the stories of the instances it ended in, innermost first."""
    path = tmp_path / "told.py"
    path.write_text(text)
    out = tmp_path / "told.json"
    subprocess.run([sys.executable, RECORDER, str(path), str(out)], cwd=tmp_path, capture_output=True, check=False)
    return RecordedValues.load(str(out), Source(text)).ending


def calls_as_written(text: str, story: Story) -> list[str | None]:
    """Each call of `story` written for the methods of `text`'s class (`replay.written`)."""
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == story.class_name)
    defs = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    return [f"{call.method}({written(call, defs.get(call.method))})" for call in story.calls]


BANK = '''\
class Cents:
    def __init__(self, n):
        self.n = n


class Account:
    def __init__(self, owner, currency="EUR", limit=100):
        self.owner, self.limit, self.moves = owner, limit, []

    def deposit(self, amount, note="cash"):
        self.moves.append(amount.n)
        self._check()

    def withdraw(self, *amounts, **tags):
        for amount in amounts:
            self.moves.append(-amount)
        helper = lambda: self._check()
        helper()

    def _check(self):
        if sum(self.moves) < -self.limit:
            raise ValueError("overdrawn")


def run(account, plan):
    for kind, value in plan:
        if kind == "in":
            account.deposit(Cents(value))
        else:
            account.withdraw(value, 30, memo="rent day")


run(Account("ada", limit=30), [("in", 20), ("out", 25)])
'''


def test_a_story_is_the_calls_from_outside_the_instance_written_as_the_program_would(tmp_path):
    """Calls an instance makes on itself (directly or through a function defined in its method)
    are not in its story; a parameter given its default is left out and those after it go by
    keyword; `*args` and `**kwargs` are written out; an instance of the program's built by one
    call is that call (`Cents(20)`); the instance the program ended in comes first."""
    told = stories(tmp_path, BANK)
    assert (told[0].class_name, told[0].begun, told[0].complete, told[0].holder) == ("Account", True, True, None)
    assert calls_as_written(BANK, told[0]) == [
        "__init__('ada', limit=30)", "deposit(Cents(20))", "withdraw(25, 30, memo='rent day')"]
    # the methods as the reduction left them: a parameter it removed is left out of the call
    fewer = BANK.replace("def deposit(self, amount, note=\"cash\"):", "def deposit(self):")
    assert calls_as_written(fewer, told[0])[1] == "deposit()"
    # a default the method no longer has: the value the call had is written
    needs = BANK.replace("def deposit(self, amount, note=\"cash\"):", "def deposit(self, amount, note):")
    assert calls_as_written(needs, told[0])[1] == "deposit(Cents(20), 'cash')"
    # a parameter the story has no value for: no call can be written
    other = BANK.replace("def deposit(self, amount, note=\"cash\"):", "def deposit(self, amount, when):")
    assert calls_as_written(other, told[0])[1] == "deposit(None)"


def test_a_story_with_a_value_it_cannot_write_is_marked(tmp_path):
    text = BANK.replace('run(Account("ada", limit=30)', 'import threading\nrun(Account(threading.Lock(), limit=30)')
    told = stories(tmp_path, text)
    assert told[0].calls[0].named[0] == ("owner", None, False), told
    assert calls_as_written(text, told[0])[0] == "__init__(None)"


def test_a_program_past_the_bound_keeps_no_whole_story(tmp_path):
    """Past TOTAL_CALLS method calls (from outside or not) nothing more is looked at, and no story
    is whole: one that goes on unseen could not be replayed as the program ran it."""
    text = BANK.replace("run(Account(", "for _ in range(TOTAL_CALLS):\n    Cents(1)\nrun(Account(")
    text = text.replace("class Cents:", f"TOTAL_CALLS = {TOTAL_CALLS}\n\n\nclass Cents:")
    assert [story.complete for story in stories(tmp_path, text)] == []  # its stories begin past the bound
    short = BANK.replace("run(Account(", "for _ in range(100):\n    Cents(1)\nrun(Account(")
    assert [story.complete for story in stories(tmp_path, short)] == [True]


def test_an_interpreters_dispatch_becomes_the_calls_it_made(no_leftovers, tmp_path):
    """plain_python (the corpus case): a script's commands parsed into objects and dispatched by an
    interpreter to an inventory, which fails its invariant check after a stock adjustment. The
    result calls the inventory as a person would (the calls the failure needs, with the user's
    values); the parser, the commands and the interpreter go; the adjustment that does not
    reconcile reservations (the user's mistake) and the failing check stay as written."""
    path = tmp_path / "plain_python.py"
    original = (CORPUS / "plain_python.py").read_text()
    path.write_text(original)
    message = "inventory invariant violated: B-200 has 3 reserved but only 2 on hand"
    summary = Reduction(original, str(path), ReduceOptions(err_msg=message)).run()
    assert summary.verified, summary.describe()
    text = summary.text
    assert "Interpreter" not in text and "parse_script" not in text and "Command" not in text, text
    assert 'inventory.adjust("B-200", -6' in text and text.rstrip().endswith("inventory.check_invariants()"), text
    assert "item.on_hand += delta" in text and "if item.reserved > item.on_hand:" in text, text
    assert path.read_text() == original
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "inventory.py").write_text(text)
    run = subprocess.run([sys.executable, "inventory.py"], cwd=alone, capture_output=True, text=True, check=False)
    assert run.stderr.rstrip().endswith(f"ValueError: {message}"), run.stderr


POKED = '''\
class Stock:
    def __init__(self):
        self.counts = {}

    def add(self, sku, n):
        self.counts[sku] = self.counts.get(sku, 0) + n

    def check(self):
        for sku, n in self.counts.items():
            if n > 2:
                raise ValueError("too many of one sku")


def load(stock, rows):
    for sku, n in rows:
        stock.add(sku, n)
    stock.counts["b"] *= 4


def main():
    stock = Stock()
    load(stock, [("a", 2), ("b", 3)])
    stock.check()


main()
'''


def test_a_replay_that_changes_the_failures_operands_is_refused(program, no_leftovers):
    """The route also changed the instance's state from outside its methods (`counts["b"] *= 4`),
    which no story holds. The replay (`add("a", 2)`, `add("b", 3)`, `check()`) fails with the
    same message, but its check reads 3 where the user's read 12: the judge refuses it like any
    other candidate, and the change stays."""
    path = program("stock.py", POKED)
    summary = Reduction(POKED, str(path), ReduceOptions(err_msg="too many")).run()
    assert summary.verified, summary.describe()
    assert "*= 4" in summary.text, summary.text
    alone = path.parent / "alone"
    alone.mkdir()
    (alone / "stock.py").write_text(summary.text.replace('raise ValueError("too many of one sku")',
                                                         'raise ValueError(f"too many: {n}")'))
    run = subprocess.run([sys.executable, "stock.py"], cwd=alone, capture_output=True, text=True, check=False)
    assert run.stderr.rstrip().endswith("ValueError: too many: 12"), run.stderr
