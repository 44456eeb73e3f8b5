"""The library API (`autodd_lsp.engine.minimize`): the engine's passes, search and fixpoint against a
plain Python predicate. These tests start no interpreter: the predicate runs the text in-process."""

from __future__ import annotations

import contextlib
import io
import threading
import warnings

import pytest

from autodd_lsp.engine import UsageError, minimize
from autodd_lsp.passes import Group, registered_passes
from autodd_lsp.passes.base import ReductionPass, register


def raises(message: str):
    """A predicate: running the text raises an exception whose message holds `message`."""

    def check(text: str) -> bool:
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)  # `0[1]` compiles, with a warning
                exec(compile(text, "<candidate>", "exec"), {"__name__": "__main__"})
        except Exception as error:  # noqa: BLE001 - any exception of the candidate is its outcome
            return message in str(error)
        return False

    return check


PROGRAM = '''import math

RATES = {"north": 0.1, "south": 0.2}


def rate_of(region):
    return RATES[region]


def total(orders):
    result = 0
    for region, amount in orders:
        result += amount * (1 + rate_of(region))
    return result


def report(orders):
    value = total(orders)
    print("total", math.floor(value))
    if value > 100:
        raise ValueError(f"total too large: {value:.0f}")
    return value


report([("north", 50), ("south", 70)])
'''


def test_a_program_shrinks_to_what_the_predicate_needs():
    check = raises("total too large")
    result = minimize(PROGRAM, check)
    assert check(result)
    assert len(result) < len(PROGRAM) / 3
    assert "math" not in result and "rate_of" not in result  # not needed for the failure
    assert minimize(PROGRAM, check) == result  # deterministic


def test_frozen_code_is_never_edited():
    program = PROGRAM.replace('    print("total", math.floor(value))\n',
                              '    print("total", math.floor(value))  # autodd: freeze\n')
    result = minimize(program, raises("total too large"))
    assert 'print("total", math.floor(value))  # autodd: freeze' in result
    assert "import math" in result  # what the frozen line needs to run
    assert len(result) < len(program) / 2


def test_statements_of_independent_regions_are_searched_apart():
    """Many top-level statements: one ProbDD per region, then a merge (search/regions.py)."""
    lines = [f"v{i} = {i}" for i in range(30)]
    lines[7] = "a = 7"
    lines[23] = "b = 23"
    program = "\n".join(lines) + "\nif a + b == 30:\n    raise RuntimeError('boom')\n"
    result = minimize(program, raises("boom"))
    assert result.count("\n") <= 4
    assert raises("boom")(result)
    assert not any(f"v{i} =" in result for i in range(30))


def test_the_predicate_sees_only_compiling_smaller_texts_one_at_a_time():
    seen: list[str] = []
    running = threading.Lock()
    overlap = []

    def check(text: str) -> bool:
        if not running.acquire(blocking=False):
            overlap.append(text)
            return False
        try:
            compile(text, "<candidate>", "exec")  # raises if a text that does not compile came
            seen.append(text)
            return "boom" in text
        finally:
            running.release()

    result = minimize("x = 1\ny = 2\nif x:\n    print('boom')\nz = [1, 2, 3]\n", check)
    assert "boom" in result and "z" not in result and "y" not in result
    assert not overlap
    assert len(seen) == len(set(seen))  # each text asked once (the verdicts are cached)


def test_passes_that_simplify_expressions_run_on_a_plain_predicate():
    program = "def f(a, b):\n    return a[b]\n\n\nitems = {'west': 1}\nkey = 'east'\nf(items, key)\n"
    result = minimize(program, raises("east"))
    assert raises("east")(result)
    assert "def f" not in result  # the function inlined or removed with its parameters
    assert len(result) < len(program) / 2


def test_a_returned_tuple_shrinks_with_the_calls_that_keep_it_whole():
    """The tuple's own rule keeps `return Fraction(...), words[2], len(words)` whole; the paired
    pass drops what nothing takes apart (without it the result kept `, words, words`)."""
    program = ("from fractions import Fraction\n\n\ndef parse(line):\n    words = line.split()\n"
               "    return Fraction(' '.join(words[:2])), words[2], len(words)\n\n\n"
               "amounts = [parse(line) for line in ['2 cup flour', '1 1/2 tsp salt']]\n"
               "word, size = 'cup', 4\nprint(amounts, word)\n")
    result = minimize(program, raises("Invalid literal"))
    assert raises("Invalid literal")(result)
    assert "return Fraction(" in result and "words" not in result and "size" not in result


def test_bad_input_is_refused_with_one_line():
    with pytest.raises(UsageError, match="syntax error"):
        minimize("def (:\n", lambda text: True)
    with pytest.raises(UsageError, match="freeze"):
        minimize("x = 1  # autodd: freeze-start\n", lambda text: True)
    with pytest.raises(ValueError, match="false"):
        minimize("x = 1\n", lambda text: False)


def test_every_pass_has_its_own_order_and_they_run_as_they_always_did():
    passes = registered_passes()
    keys = [(p.group, p.order) for p in passes]
    assert len(set(keys)) == len(keys)
    assert [p.name for p in passes] == [
        "call the failing function directly", "replay the calls the failing instance was given", "remove statements", "flatten compound statements",
        "remove parameters with their arguments",
        "call the failing function directly, its parameters removed", "inline functions called once", "replace expressions by a part", "inline variables",
        "replace expressions by a constant",
        "shrink literals", "remove list elements", "remove paired tuple elements",
        "drop dead elif clauses", "remove annotations naming what is gone", "remove unused imports", "remove stale comments", "tidy blank lines",
        "drop redundant parentheses",
        "format touched statements",
    ]


def test_a_pass_with_a_taken_order_is_refused():
    class Twin(ReductionPass):
        name = "twin"
        group = Group.SIMPLIFY
        order = 0  # replace expressions by a part's

    with pytest.raises(ValueError, match="order"):
        register(Twin)
    assert "twin" not in [p.name for p in registered_passes()]
