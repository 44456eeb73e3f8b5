"""The original's run as a map: code that never ran is proposed for removal first (engine/searching/run_map.py)."""

import ast

import pytest

from autodd_lsp.engine.lifecycle.events import Accepted, PassStarted
from autodd_lsp.engine.searching.run_map import SWITCH, FailingPath, read_by_the_run
from autodd_lsp.passes.base import PassContext, walk_statements
from autodd_lsp.passes.parameters import call_sites, parameter_edit
from autodd_lsp.passes.statements import remove_statement
from autodd_lsp.search import Halves
from autodd_lsp.syntax.origin import OriginalStatements, identity_shadow
from autodd_lsp.syntax.patch import Edit, replace
from autodd_lsp.syntax.source import Source
from autodd_lsp.values import RecordedValues, ValueLookup
from tests.support import reduce, run_standalone


def _drive(strategy, needed: set[int]) -> list[list[int]]:
    """Run `strategy` sequentially against "fails unless every needed edit stays"; the subsets tried."""
    tried = []
    while (subset := strategy.propose()) is not None:
        tried.append(subset)
        strategy.feedback(subset, not needed & set(strategy.applied + subset))
    return tried


def test_halves_tries_the_whole_group_first_then_halves():
    nothing_needed = Halves(6)
    assert _drive(nothing_needed, set()) == [[0, 1, 2, 3, 4, 5]]
    assert nothing_needed.applied == [0, 1, 2, 3, 4, 5] and nothing_needed.open_or_needed() == []
    one_needed = Halves(8)
    tried = _drive(one_needed, {5})
    assert tried[0] == list(range(8)) and tried[1] == [0, 1, 2, 3] and len(tried) <= 1 + 2 * 3
    assert sorted(one_needed.applied) == [0, 1, 2, 3, 4, 6, 7] and one_needed.open_or_needed() == [5]


def _dead_and_live(count: int, dead: int) -> str:
    """`count` functions that run, each needed, each followed by `dead` that never do."""
    parts = ["import os\n\n"]
    for i in range(count):
        parts.append(f"def live_{i}(x):\n    return x + {i + 1}\n\n\n")
        for j in range(dead):
            parts.append(f"def dead_{i}_{j}(x):\n    if x > {j}:\n        return x * {i}\n    return os.sep\n\n\n")
    chain = "0"
    for i in range(count):
        chain = f"live_{i}({chain})"
    total = sum(range(1, count + 1))
    parts.append(f"value = {chain}\nraise RuntimeError(f'total {{value}} of {total}')\n")
    return "".join(parts)


@pytest.mark.slow
def test_the_map_saves_candidates_on_dead_code(program, monkeypatch, no_leftovers):
    text = _dead_and_live(6, 6)
    failure = f"total {sum(range(1, 7))} of {sum(range(1, 7))}"
    path = program("dead_code.py", text)
    with_map, _ = reduce(path, failure)
    monkeypatch.setenv(SWITCH, "off")
    without, _ = reduce(path, failure)
    assert with_map.verified and without.verified
    for summary in (with_map, without):
        assert "dead_" not in summary.text
        assert all(f"live_{i}" in summary.text or f"{i + 1}" in summary.text for i in range(6))
    assert with_map.final.nodes <= without.final.nodes
    assert with_map.stats.candidates_run < without.stats.candidates_run
    out = path.parent / "out.py"
    out.write_text(with_map.text)
    assert failure in run_standalone(out)


@pytest.mark.slow
def test_a_map_proposal_that_does_not_reproduce_is_refused(program, no_leftovers):
    """Code that never ran but matters by being there: a decorator registers a function nobody
    calls, `__init_subclass__` registers a class nobody makes. The map proposes removing them
    (their bodies never ran); the candidates that do no longer fail the same way and are refused."""
    text = (
        "HANDLERS = {}\n\n\n"
        "def register(fn):\n    HANDLERS[fn.__name__] = fn\n    return fn\n\n\n"
        "@register\ndef on_refund(order):\n    return order * 2\n\n\n"
        "def unused(order):\n    return order - 1\n\n\n"
        "class Plugin:\n    kinds = []\n\n    def __init_subclass__(cls):\n        Plugin.kinds.append(cls.__name__)\n\n\n"
        "class Csv(Plugin):\n    def load(self):\n        return 'csv'\n\n\n"
        "class Never:\n    def method(self):\n        return 1\n\n\n"
        "raise LookupError(f'handlers {sorted(HANDLERS)} plugins {Plugin.kinds}')\n"
    )
    failure = "handlers ['on_refund'] plugins ['Csv']"
    path = program("registry.py", text)
    summary, _ = reduce(path, failure)
    assert summary.verified
    assert reduce(path, failure, jobs=3)[0].text == summary.text  # the map's steps decide the same at any -j
    assert "def on_refund" in summary.text and "class Csv" in summary.text  # the map's removal was refused
    assert "unused" not in summary.text and "Never" not in summary.text  # what truly never mattered went
    out = path.parent / "out.py"
    out.write_text(summary.text)
    assert failure in run_standalone(out)


FAILING = '''\
import json


def lookup(table, key):
    note = "looking"
    if key:
        for _ in range(1):
            return table[key]
    return None


def main():
    table = json.loads('{"a": 1}')
    print(lookup(table, "b"))


main()
'''


def crossed_removals(text: str, failing: str) -> tuple[list[int], list[str], set[int]]:
    """For the statement pass's removals of `text` whose failing line reads `failing`: the lines of
    that line's statements, the first lines of the removals `FailingPath` names, and what it
    names where the text's origins are unknown."""
    source = Source(text)
    statements = OriginalStatements(text, source.statement_spans)
    line = text.splitlines().index(failing) + 1
    path = FailingPath(statements.of_line(line), statements)
    ctx = PassContext(source, [], original=text)
    edits = [remove_statement(ctx, node, "remove statements") for node, _ in walk_statements(source.tree)]
    crossed = path.crossed_by(text, identity_shadow(text), edits)
    first_lines = sorted(text[edits[i].patches[0].start:edits[i].patches[0].end].strip().splitlines()[0] for i in crossed)
    return [source.statements[i].lineno for i in statements.of_line(line)], first_lines, path.crossed_by(text, None, edits)


def test_the_failing_path_is_the_failing_statement_and_what_holds_it():
    """Removals that take away the failing statement (`return table[key]`) with what holds it (its
    loop, its `if`, its `def`) are the ones `FailingPath` names: not the statement alone (a person
    asks what its removal does), none of their siblings, not the outer frames' calls."""
    _, crossed, unknown = crossed_removals(FAILING, "            return table[key]")
    assert crossed == sorted(["def lookup(table, key):", "if key:", "for _ in range(1):"])
    assert unknown == set()  # where the text's origins are unknown, nothing is left out


def test_a_comment_after_the_failing_statement_does_not_put_the_function_on_the_path():
    """`return table[key]  # the lookup`: the comment's characters lie in the span of `def lookup`
    (and its `if`, its loop), not in the statement's; counted as the line's, they made the
    function a statement of the failing line, and then its comments part of the path: the
    removal of `# say what it does` with `note = ...` was left out (nanoGPT's
    `assert ...  # autodd: freeze` kept every statement after it in its `__init__`), and the
    failure's place was anywhere in the function."""
    text = FAILING.replace('    note = "looking"\n', '    # say what it does\n    note = "looking"\n').replace(
        "return table[key]\n", "return table[key]  # the lookup\n")
    failing = "            return table[key]  # the lookup"
    of_line, crossed, _ = crossed_removals(text, failing)
    assert of_line == [text.splitlines().index(failing) + 1]
    assert crossed == sorted(["def lookup(table, key):", "if key:", "for _ in range(1):"])


def _with_and_without_the_map(path, failure, monkeypatch):
    """The reduction guided by the map, then unguided (AUTODD_RUN_MAP=off): both verified, the same text."""
    guided, _ = reduce(path, failure)
    monkeypatch.setenv(SWITCH, "off")
    unguided, _ = reduce(path, failure)
    assert guided.verified and unguided.verified
    assert guided.text == unguided.text
    return guided, unguided


@pytest.mark.slow
def test_leaving_out_the_failing_path_saves_candidates_with_the_same_result(program, monkeypatch, no_leftovers):
    guided, unguided = _with_and_without_the_map(program("failing_path.py", FAILING), "KeyError: 'b'", monkeypatch)
    # the failing statement reads `key`: it stays a parameter (PassContext.failing_parameters), its value
    # written at the call, not in the line the user saw
    assert "return table[key]" in guided.text and 'lookup(table, "b")' in guided.text and "{\"a\": 1}" in guided.text
    assert guided.stats.candidates_run < unguided.stats.candidates_run


READ = '''\
import json
import os

LIMIT = 3
UNUSED = 4
TIMEOUT = 1
TIMEOUT = 2


class Settings:
    retries = 2


def fetch(settings):
    data = json.loads("[1, 2]")
    if os.environ.get("NEVER_SET"):
        print(UNUSED)
    return data[settings.retries + LIMIT + TIMEOUT]


fetch(Settings())
'''


def test_the_bindings_the_run_read_from_code_that_stays_are_named():
    """`read_by_the_run` names the removals of a binding (import, assignment, class, class
    attribute, def) that a statement left in place read in the original's run; not a binding
    read only by code that never ran (`UNUSED`), not one of two (`TIMEOUT`), nor statements
    that bind nothing."""
    source = Source(READ)
    never = READ.index("print(UNUSED)")
    ran = {source.span(node)[0]: source.span(node)[0] != never
           for node in ast.walk(source.tree) if isinstance(node, ast.stmt)}
    lookup = ValueLookup(RecordedValues({}, {}, ran), identity_shadow(READ))
    ctx = PassContext(source, [], original=READ)
    edits = [remove_statement(ctx, node, "remove statements") for node, _ in walk_statements(source.tree)]
    first_lines = [READ[edit.patches[0].start:edit.patches[0].end].strip().splitlines()[0] for edit in edits]
    named = sorted(first_lines[i] for i in read_by_the_run(source, edits, lookup))
    assert named == sorted(["import json", "import os", "LIMIT = 3", "class Settings:", "retries = 2",
                            "def fetch(settings):", 'data = json.loads("[1, 2]")'])


def test_a_parameter_the_run_read_is_named_unless_its_uses_are_replaced_too():
    """Removing `scale` (read by the body's return) is named; removing `unused` is not; nor is
    removing `scale` together with writing its value at its use (the pass's specialized edit)."""
    text = "def area(width, scale, unused):\n    return width * scale\n\n\nprint(area(3, 2, 0))\n"
    source = Source(text)
    func = source.tree.body[0]
    calls = call_sites(source.tree)["area"]
    ran = {source.span(node)[0]: True for node in ast.walk(source.tree) if isinstance(node, ast.stmt)}
    lookup = ValueLookup(RecordedValues({}, {}, ran), identity_shadow(text))
    scale, unused = (parameter_edit(source, func, index, calls, "p") for index in (1, 2))
    assert scale is not None and unused is not None
    start = text.index("* scale") + 2
    by_value = Edit((*scale.patches, replace(start, start + len("scale"), "2")), "p")
    assert read_by_the_run(source, [scale, unused, by_value], lookup) == [0]


SHADOWED = '''\
def max(values):  # the program's own, shadowing the builtin: the same answer here
    best = values[0]
    for value in values[1:]:
        if value > best:
            best = value
    return best


limit = max([1, 2, 3]) - max([0, 1])  # autodd: freeze
print([10, 20][limit + 1])
'''


@pytest.mark.slow
def test_a_binding_the_run_read_is_still_removed_when_it_can_go(program, no_leftovers):
    """The frozen line reads `max`, so removing `def max` waits for a cycle that confirms (it
    looks like a NameError to come): there it is tried, and it goes (the builtin answers)."""
    path = program("shadowed.py", SHADOWED)
    summary, _ = reduce(path, "IndexError: list index out of range")
    assert summary.verified
    assert "def max" not in summary.text and "limit = max([1, 2, 3]) - max([0, 1])" in summary.text


CONSTANTS = '''\
import json
import os

LIMIT = 3
RETRY_DEFAULT = 2


class Settings:
    retries = RETRY_DEFAULT

    def __init__(self, retries):
        self.retries = retries


def fetch(settings, limit):
    data = json.loads(os.environ.get("FETCH_DATA", "[1, 2, 3]"))
    for attempt in range(settings.retries):
        if attempt >= limit:
            break
    return data[settings.retries + limit]


def main():
    settings = Settings(1)
    print(fetch(settings, LIMIT))


main()
'''


@pytest.mark.slow
def test_waiting_with_what_the_run_read_saves_candidates_with_the_same_result(program, monkeypatch, no_leftovers):
    path = program("constants.py", CONSTANTS)
    guided, unguided = _with_and_without_the_map(path, "IndexError: list index out of range", monkeypatch)
    assert guided.stats.candidates_run < unguided.stats.candidates_run


FREED = '''\
import os


def helper():
    return os.getcwd()


def main():
    here = helper()
    table = {"a": 1}
    return table["b"]


main()
'''


@pytest.mark.slow
def test_a_removal_freed_by_a_change_is_tried_before_the_finer_passes(program, no_leftovers):
    """`def helper` and `import os` wait while `here = helper()` stays; once the deeper level
    takes it away, they go in the same cycle, before the expression passes see them."""
    summary, events = reduce(program("freed.py", FREED), "KeyError: 'b'")
    assert summary.verified and "helper" not in summary.text and "import os" not in summary.text
    best = FREED
    for event in events:
        if isinstance(event, PassStarted) and event.name == "replace expressions by a part":
            break
        if isinstance(event, Accepted):
            best = event.text
    assert "here = helper()" not in best
    assert "def helper" not in best and "import os" not in best
