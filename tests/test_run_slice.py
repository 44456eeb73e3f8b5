"""The slice of the failing statement: removals of code the failure cannot have read, proposed early
(engine/searching/run_slice.py), and refused like any other candidate when the names misled."""

import ast

import pytest

from autodd_lsp.engine.searching.run_slice import outside_the_slice
from autodd_lsp.passes.base import PassContext, walk_statements
from autodd_lsp.passes.statements import remove_statement
from autodd_lsp.syntax.origin import identity_shadow
from autodd_lsp.syntax.source import Source
from autodd_lsp.values import RecordedValues, ValueLookup
from tests.support import reduce, run_standalone

HARNESS = '''\
import json
import logging
import time

log = logging.getLogger("report")
SCALE = 3


class Settings:
    def __init__(self, limit):
        self.limit = limit
        self.verbose = False


def configure(settings):
    settings.limit = settings.limit - 1


def readings(count):
    values = []
    for i in range(count):
        values.append(i * SCALE)
    log.info("read %d values", count)
    return values


def summary(values):
    return json.dumps({"n": len(values)})


def main():
    started = time.time()
    settings = Settings(4)
    configure(settings)
    values = readings(3)
    print(summary(values))
    log.info("took %.1f s", time.time() - started)
    print(values[settings.limit])


main()
'''


def _named(text: str, failing: str, never: tuple[str, ...] = ()) -> list[str]:
    """The first lines of the statement removals `outside_the_slice` names, the statement
    beginning with `failing` being the failing one (and the call chain to it)."""
    source = Source(text)
    never_at = {text.index(line) for line in never}
    ran = {source.span(node)[0]: source.span(node)[0] not in never_at
           for node in ast.walk(source.tree) if isinstance(node, ast.stmt)}
    lookup = ValueLookup(RecordedValues({}, {}, ran), identity_shadow(text))
    held = sorted(offset for line in (failing, "main()\n", "\nmain()") for offset in range(text.index(line) + 1, text.index(line) + 4))
    ctx = PassContext(source, [], original=text)
    edits = [remove_statement(ctx, node, "remove statements") for node, _ in walk_statements(source.tree)]
    first_lines = [text[edit.patches[0].start:edit.patches[0].end].strip().splitlines()[0] for edit in edits]
    return sorted(first_lines[i] for i in outside_the_slice(source, edits, lookup, held))


def test_the_slice_keeps_what_the_failing_statement_reads_and_what_changes_it():
    named = _named(HARNESS, "print(values[settings.limit])")
    # what the failure cannot have read: the timing, the logging, the summary printed before it
    assert named == sorted([
        "import json", "import logging", "import time", 'log = logging.getLogger("report")',
        'log.info("read %d values", count)', "def summary(values):", 'return json.dumps({"n": len(values)})',
        "started = time.time()", "print(summary(values))", 'log.info("took %.1f s", time.time() - started)',
    ])  # not `self.verbose = False`: it changes `self`, which the constructor's kept lines read
    # kept: the list built in place, the attribute a called function changes, the call that changes it,
    # what the constructor sets and is read, and the module-level names they read
    for kept in ("values.append(i * SCALE)", "configure(settings)", "settings.limit = settings.limit - 1",
                 "self.limit = limit", "SCALE = 3", "def readings(count):", "main()"):
        assert kept not in named


def test_reads_of_code_that_never_ran_do_not_pull_it_in():
    text = HARNESS.replace("    print(summary(values))\n", "    if not values:\n        print(summary(values))\n")
    named = _named(text, "print(values[settings.limit])", never=("print(summary(values))",))
    assert "if not values:" in named  # its body never ran: nothing it reads is the failure's
    assert "def summary(values):" in named


DECIMAL = '''\
import decimal
from decimal import Decimal

decimal.getcontext().prec = 3
print("computing")
ratio = Decimal(1) / Decimal(3)
if len(str(ratio)) == 5:
    raise ValueError(f"ratio {ratio} rounded")
'''


def test_a_side_effect_outside_the_slice_is_named_by_the_names():
    named = _named(DECIMAL.replace("ratio = Decimal", "main()\nratio = Decimal"), 'raise ValueError(f"ratio')
    assert "decimal.getcontext().prec = 3" in named and 'print("computing")' in named


@pytest.mark.slow
def test_a_slice_proposal_that_does_not_reproduce_is_refused(program, no_leftovers):
    """The precision set through `decimal` is outside the slice of the `raise` (it reads `Decimal`,
    not `decimal`): the proposal removes it with the print, the rounding goes, the failure with
    it, and the candidate is refused; the search keeps the precision and drops the print."""
    path = program("rounding.py", DECIMAL)
    summary, _ = reduce(path, "ValueError: ratio 0.333 rounded")
    assert summary.verified
    assert "prec = 3" in summary.text and "computing" not in summary.text
    out = path.parent / "out.py"
    out.write_text(summary.text)
    assert "ratio 0.333 rounded" in run_standalone(out)
