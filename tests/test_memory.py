"""The fixpoint's memory of edits found needed (`engine/memory.py`): a statement-level edit
is keyed by the statements that share a name with it, so it is tried again once one of them
changes, and not after a change elsewhere. The keys on real text, then the real fixpoint
through the library API (`minimize`) against a plain predicate, with the memory and without."""

from __future__ import annotations

from autodd_lsp.engine import minimize
from autodd_lsp.engine.memory import names_key
from autodd_lsp.passes import PassContext, Remembers, registered_passes
from autodd_lsp.passes.parameters import RemoveParameters
from autodd_lsp.passes.statements import RemoveStatements
from autodd_lsp.syntax.source import Source
from tests.test_library import raises

PROGRAM = '''SEP = "/"

y = 2


def fail(x):
    raise ValueError("boom")


fail(SEP)
'''


def removal_key(text: str, statement: str) -> tuple:
    """The key of the statement pass's removal of the (first) statement whose text is `statement`."""
    source = Source(text)
    for level in range(4):
        for edit in RemoveStatements().propose_at(PassContext(source), level) or []:
            if text[edit.patches[0].start:edit.patches[0].end].strip() == statement:
                return names_key(source, edit)
    raise AssertionError(f"no removal of {statement!r}")


def test_a_removal_is_new_again_once_a_statement_sharing_its_names_changes():
    before = removal_key(PROGRAM, 'SEP = "/"')
    assert removal_key(PROGRAM.replace("fail(SEP)", "fail(SEP, SEP)"), 'SEP = "/"') != before
    assert removal_key(PROGRAM.replace("fail(SEP)", "fail(1)"), 'SEP = "/"') != before


def test_a_change_elsewhere_leaves_the_key_as_it_was():
    before = removal_key(PROGRAM, 'SEP = "/"')
    assert removal_key(PROGRAM.replace("y = 2", "y = 3"), 'SEP = "/"') == before
    assert removal_key(PROGRAM.replace('"boom"', '"bang"'), 'SEP = "/"') == before


def test_a_statement_alone_in_its_block_is_keyed_apart_from_one_with_siblings():
    """Alone, its removal leaves `pass` (refused); with a sibling it may go."""
    alone = "def f():\n    pass\n\n\nf()\n"
    beside = "def f():\n    pass\n    g = 1\n\n\nf()\n"
    assert removal_key(alone, "pass") != removal_key(beside, "pass")


def test_a_parameter_removal_is_new_again_once_the_body_reading_it_changes():
    text = "def f(a, b):\n    return a + b\n\n\nf(1, 2)\n"
    changed = text.replace("return a + b", "return a + 2 * b")

    def key(program: str) -> tuple:
        source = Source(program)
        edits = RemoveParameters().propose(PassContext(source))
        [edit] = [e for e in edits if "b" in [program[p.start:p.end].strip(" ,") for p in e.patches]]
        return names_key(source, edit)

    assert key(text) != key(changed)
    assert key(text) == key(text.replace("f(1, 2)\n", "f(1, 2)\nz = 0\n"))


STEADY = '''import math

LIMITS = {"low": 1, "high": 9}


def helper(flag, scale):
    return flag * scale


def compute(values, region):
    total = 0
    for v in values:
        total += helper(v, LIMITS[region])
    return math.sqrt(-total)


print(compute([1, 2, 3], "low"))
'''


def test_the_memory_spares_candidates_and_keeps_the_result(monkeypatch):
    """The same result with the memory and without it (every statement-level edit proposed
    in every cycle), with fewer candidates that try the needed `import math` away."""

    def reduce() -> tuple[str, int]:
        seen: list[str] = []
        check = raises("math domain error")

        def counting(text: str) -> bool:
            seen.append(text)
            return check(text)

        return minimize(STEADY, counting), sum("import math" not in text for text in seen)

    remembered, tries_with = reduce()
    for reduction_pass in registered_passes():
        if reduction_pass.remembers_needed is Remembers.BY_NAMES:
            monkeypatch.setattr(type(reduction_pass), "remembers_needed", Remembers.NOTHING)
    forgotten, tries_without = reduce()
    assert remembered == forgotten
    assert "import math" in remembered
    assert tries_with < tries_without
