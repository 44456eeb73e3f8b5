"""Position conversions and line diffs of the language server (pure functions)."""

import random

import pytest
from lsprotocol import types

from autodd_lsp.server.positions import (
    apply_edits,
    code_units,
    column_from_client,
    column_to_client,
    diff_edits,
    from_position,
    split_lines,
    split_lines_keepends,
    to_position,
)

ASTRAL = "\U0001F600"


def test_code_units_per_encoding():
    text = f"aé{ASTRAL}"
    assert code_units(text, "utf-16") == 4
    assert code_units(text, "utf-8") == 1 + 2 + 4
    assert code_units(text, "utf-32") == 3


def test_columns_round_trip_around_an_astral_character():
    line = f"x = '{ASTRAL}'  # note"
    for column in range(len(line) + 1):
        assert column_from_client(line, column_to_client(line, column)) == column
    assert column_to_client(line, line.index("#")) == line.index("#") + 1


def test_lines_end_at_lf_crlf_and_cr_only():
    assert split_lines("a\r\nb\rc\nd\x0ce") == ["a", "b", "c", "d\x0ce"]
    assert split_lines_keepends("a\r\nb\n") == ["a\r\n", "b\n"]
    assert split_lines_keepends("") == []


def test_freeze_positions_to_lsp_and_back():
    lines = split_lines(f"{ASTRAL}x = 1\ny\n")
    position = to_position(lines, 1, 2)
    assert position == types.Position(line=0, character=3)
    assert from_position(lines, position) == (1, 2)


@pytest.mark.parametrize(
    "old, new",
    [
        ("a\nb\nc\n", "a\nc\n"),
        ("a\nb\nc", "a\nb"),
        ("a\nb\nc", "a\nB\nc"),
        ("", "x\n"),
        ("x\n", ""),
        ("a\r\nb\r\n", "b\r\n"),
        ("one\n", "one\ntwo"),
        (f"{ASTRAL}\nb\n", f"{ASTRAL}\n"),
    ],
)
def test_diff_edits_rebuild_the_new_text(old, new):
    edits = diff_edits(old, new)
    assert apply_edits(old, edits) == new


def test_diff_edits_are_small_and_never_past_the_end():
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 50\n", "").replace("line 7\n", "seven\n")
    edits = diff_edits(old, new)
    assert len(edits) == 2
    assert all(e.range.end.line <= 100 for e in edits)
    assert diff_edits(old, old) == []


def test_diff_edits_random_texts():
    rng = random.Random(7)
    pool = ["a\n", "b\n", "c\r\n", "x = 1\n", f"{ASTRAL}\n", "end"]
    for _ in range(300):
        old = "".join(rng.choice(pool) for _ in range(rng.randrange(8)))
        new = "".join(rng.choice(pool) for _ in range(rng.randrange(8)))
        edits = diff_edits(old, new)
        assert apply_edits(old, edits) == new
        last_line = len(split_lines(old)) - 1
        for edit in edits:
            assert edit.range.end.line <= last_line
