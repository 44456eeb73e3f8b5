"""The best text's own run at the cycle that confirms (`engine/searching/best_run.py`): a removal that
leaves a read its run evaluated without any binding is refused without a candidate. The
rule on real text with a run map, then the real engine on a program, with it and without:
the same result, and the line kept says why without a run."""

from __future__ import annotations

import pytest

import autodd_lsp.engine.searching.fixpoint as fixpoint
from autodd_lsp.engine.searching.best_run import refused_by_the_best_run
from autodd_lsp.passes import PassContext
from autodd_lsp.passes.statements import RemoveStatements
from autodd_lsp.syntax.origin import identity_shadow
from autodd_lsp.syntax.source import Source
from autodd_lsp.values import RecordedValues, ValueLookup
from tests.support import start_reduction
from tests.test_run_map import CONSTANTS

PROGRAM = '''import os
LIMIT = 3
SPARE = 4
SCALE = 2
helper = len


def check(x):
    if x > LIMIT:
        raise ValueError("boom")


def main():
    try:
        y = helper([1])
    except NameError:
        y = 0
    z = y or SPARE
    check(os.getpid() and 5 * SCALE)


main()
'''


def refused(text: str, ran: set[str], held: tuple[int, ...] | list[int] = ()) -> set[str]:
    """The statements whose removal the rule refuses (by their first lines), given which
    statements ran (by their first characters) in the run of `text`."""
    source = Source(text)
    statements = {start: any(text[start:end].startswith(prefix) for prefix in ran)
                  for start, end in source.statement_spans}
    lookup = ValueLookup(RecordedValues({}, {}, statements), identity_shadow(text))
    edits = [edit for level in range(4) for edit in RemoveStatements().propose_at(PassContext(source), level) or []]
    return {text[e.patches[0].start:e.patches[0].end].strip().split("\n")[0]
            for e in (edits[i] for i in refused_by_the_best_run(source, edits, lookup, list(held)))}


RAN = {"import os", "LIMIT", "SPARE", "SCALE", "helper", "def ", "if x", "raise", "try", "y = ", "z = ", "check(", "main()"}


def test_a_removal_that_leaves_an_evaluated_read_unbound_is_refused():
    found = refused(PROGRAM, RAN)
    assert {"import os", "LIMIT = 3", "def check(x):", "def main():"} <= found  # read where surely evaluated
    assert "SPARE = 4" not in found  # read only when `y` is falsy
    assert "SCALE = 2" not in found  # read only when `os.getpid()` is truthy
    assert "helper = len" not in found  # read inside a `try` that catches it


def test_a_read_whose_statement_did_not_run_refuses_nothing():
    found = refused(PROGRAM, RAN - {"if x", "main()"})
    assert "LIMIT = 3" not in found and "def main():" not in found and "import os" in found


def test_a_read_where_the_run_stopped_refuses_nothing():
    """The failure's own statement (here, `check(...)`, whose call raised) stops midway."""
    held = list(range(PROGRAM.index("check(os"), PROGRAM.index("check(os") + 5))
    assert "import os" not in refused(PROGRAM, RAN, held)


def test_a_name_the_program_also_binds_another_way_or_reaches_by_string_is_left_alone():
    walrus = PROGRAM.replace("z = y or SPARE", "z = (LIMIT := 3)")
    assert "LIMIT = 3" not in refused(walrus, RAN)
    assert refused(PROGRAM + "globals()\n", RAN | {"globals"}) == set()


CLASSES = '''class Store:
    def __init__(self):
        self.items = {}
        self.limit = 3

    def add(self, key):
        self.items[key] = 1

    def check(self, n):
        if n > self.limit:
            raise ValueError("boom")


class Table(dict):
    def __init__(self):
        self.width = 2

    def size(self):
        return self.width


store = Store()
store.add("a")
Table().size()
store.check(5)
'''


def test_an_attribute_of_the_programs_own_class_read_through_self_is_a_read_too():
    ran = {"class", "def ", "self.", "if n", "raise", "return", "store", "Table"}
    found = refused(CLASSES, ran)
    assert {"self.items = {}", "self.limit = 3"} <= found
    assert "self.width = 2" not in found  # a dict's subclass: the library's class may serve it
    assert "self.limit = 3" not in refused(CLASSES + "setattr(store, 'limit', 4)\n", ran | {"setattr"})


def _reduce_and_ask(path) -> tuple[str, dict[str, str]]:
    """The result, and what a person asking why each line is kept is told (`person.Learned`)."""
    reduction = start_reduction(path, "IndexError: list index out of range")
    summary = reduction.run()
    assert summary.verified, summary.describe()
    told = {}
    for number, line in enumerate(summary.text.splitlines(), start=1):
        kept = reduction.why_kept(number)
        if kept is not None:
            told[line.strip()] = kept.outcome
    return summary.text, told


@pytest.mark.slow
def test_a_removal_the_best_run_refuses_is_not_run_and_its_line_still_says_why(program, monkeypatch, no_leftovers):
    """`CONSTANTS` (`Settings`, `settings` read by code that stays): the same result with the
    rule and without it; with it, the removal of `settings = Settings()` is refused without a
    run, and the line says so, with the NameError its reader would raise; without it, the
    line tells what the run showed."""
    path = program("constants.py", CONSTANTS)
    with_rule, told = _reduce_and_ask(path)
    assert "NameError: name 'settings' is not defined" in told["settings = Settings()"]
    assert "refused without running it again" in told["settings = Settings()"]
    monkeypatch.setattr(fixpoint, "refused_by_the_best_run", lambda *args: {})
    without, told_after_runs = _reduce_and_ask(path)
    assert with_rule == without
    assert "NameError: name 'settings' is not defined" in told_after_runs["settings = Settings()"]
    assert "refused without" not in told_after_runs["settings = Settings()"]
