"""The freeze-annotation grammar: regions, problems and the Freeze/Unfreeze edits."""

import textwrap
import time

import pytest

from autodd_lsp.freeze import (
    TextRange,
    apply_edits,
    freeze_edits,
    parse_freeze,
    unfreeze_edits,
)
from autodd_lsp.freeze import parse as parse_module


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def regions(text: str) -> list[tuple[str, TextRange]]:
    info = parse_freeze(text)
    assert info.syntax_error is None
    return [(r.form, r.span) for r in info.regions]


def problems(text: str) -> list[tuple[str, int, str]]:
    return [(p.severity, p.line, p.message) for p in parse_freeze(text).problems]


def only_problem(text: str):
    found = parse_freeze(text).problems
    assert len(found) == 1, found
    return found[0]


# --- single-line form -------------------------------------------------------


def test_text_without_annotations_costs_nothing_and_finds_nothing():
    info = parse_freeze("x = 1\ndef f(:\n")  # not even parsed: nothing to look for
    assert info.regions == [] and info.problems == [] and info.syntax_error is None


def test_line_comment_freezes_its_statement():
    text = "a = 1\nb = f(a)  # autodd: freeze\nc = 2\n"
    assert regions(text) == [("line", TextRange(2, 0, 2, 8))]
    assert parse_freeze(text).problems == []


@pytest.mark.parametrize(
    "comment",
    ["# autodd: freeze", "#autodd:freeze", "#  autodd :  freeze", "#\tautodd:\tfreeze", "# autodd: freeze  because"],
)
def test_whitespace_variations(comment):
    assert regions(f"x = 1  {comment}\n") == [("line", TextRange(1, 0, 1, 5))]


def test_annotation_after_another_comment():
    assert regions("x = 1  # note  # autodd: freeze\n") == [("line", TextRange(1, 0, 1, 5))]


def test_multi_line_statement_is_frozen_whole_from_any_of_its_lines():
    text = src(
        """
        y = compute(
            1,  # autodd: freeze
            2,
        )
        z = 3
        """
    )
    assert regions(text) == [("line", TextRange(1, 0, 4, 1))]


def test_backslash_continuation_line():
    assert regions("x = 1 + \\\n    2  # autodd: freeze\n") == [("line", TextRange(1, 0, 2, 5))]


def test_all_statements_on_the_line_are_frozen():
    assert regions("a = 1; b = 2  # autodd: freeze\n") == [("line", TextRange(1, 0, 1, 5)), ("line", TextRange(1, 7, 1, 12))]


def test_statement_in_a_function_body():
    text = src(
        """
        def f():
            x = 1
            return x  # autodd: freeze
        """
    )
    assert regions(text) == [("line", TextRange(3, 4, 3, 12))]


def test_compound_header_freezes_the_whole_statement_and_says_so():
    text = src(
        """
        for i in range(3):  # autodd: freeze
            print(i)
        done = True
        """
    )
    assert regions(text) == [("line", TextRange(1, 0, 2, 12))]
    problem = only_problem(text)
    assert problem.severity == "information" and problem.line == 1
    assert "freezes the whole `for` statement, including its body" in problem.message


@pytest.mark.parametrize(
    "text, span, keyword",
    [
        ("if x: y = 1  # autodd: freeze\n", TextRange(1, 0, 1, 11), "`if`"),
        ("@dec  # autodd: freeze\ndef f():\n    pass\n", TextRange(2, 0, 3, 8), "`def`"),
        ("async def f():  # autodd: freeze\n    pass\n", TextRange(1, 0, 2, 8), "`async def`"),
        ("if a:\n    pass\nelse:  # autodd: freeze\n    b = 1\n", TextRange(1, 0, 4, 9), "`if`"),
        ("try:\n    pass\nexcept E:  # autodd: freeze\n    pass\n", TextRange(1, 0, 4, 8), "on this `except` line"),
        ("if a:\n    pass\nelif b:  # autodd: freeze\n    pass\n", TextRange(3, 0, 4, 8), "`elif`"),
    ],
)
def test_other_compound_headers(text, span, keyword):
    assert regions(text) == [("line", span)]
    assert keyword in only_problem(text).message


@pytest.mark.parametrize("line", ["# autodd: freeze", "", "    # autodd: freeze"])
def test_freeze_comment_without_a_statement_is_a_warning(line):
    text = f"def f():\n    x = 1\n{line or '    # autodd: freeze'}\n    y = 2\n"
    problem = only_problem(text)
    assert problem.severity == "warning" and problem.line == 3
    assert "no statement on this line to freeze" in problem.message
    assert "freeze-start" in problem.message
    assert regions(text) == []


def test_unknown_directive_is_a_warning():
    problem = only_problem("x = 1  # autodd: frezee\n")
    assert problem.severity == "warning"
    assert problem.message == "unknown AutoDD annotation 'frezee' (expected freeze, freeze-start or end-freeze)"
    assert (problem.line, problem.start_col, problem.end_col) == (1, 7, 23)


# --- comments, not strings ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        's = "# autodd: freeze"\n',
        "s = '# autodd: freeze-start'\n",
        'b = b"# autodd: end-freeze"\n',
        'v = 1\nf = f"{v} # autodd: freeze"\n',
        'def f():\n    """Use it like this:\n\n    # autodd: freeze-start\n    # autodd: bogus\n    """\n',
        "s = '''\n# autodd: freeze\n'''\n",
        "s = f'''\n{1} # autodd: freeze\n'''\n",
        "x = '#'  # just a comment about autodd: freeze\n",
    ],
)
def test_annotations_inside_strings_are_not_annotations(text):
    info = parse_freeze(text)
    assert info.regions == [] and info.problems == []
    assert unfreeze_edits(text, 1, text.count("\n") + 1) == []


def test_real_comment_after_a_string_with_a_hash():
    assert regions('s = "#"  # autodd: freeze\n') == [("line", TextRange(1, 0, 1, 7))]


def test_real_comment_between_concatenated_string_parts():
    text = 'x = (\n    "a"  # autodd: freeze\n    "b"\n)\n'
    assert regions(text) == [("line", TextRange(1, 0, 4, 1))]


def test_real_comment_after_a_multi_line_string_ends():
    text = 's = """\n# autodd: bogus\n"""  # autodd: freeze\n'
    assert regions(text) == [("line", TextRange(1, 0, 3, 3))]
    assert parse_freeze(text).problems == []


# --- blocks -----------------------------------------------------------------


BLOCK = src(
    """
    import os
    # autodd: freeze-start
    x = load()
    @cache
    def f(
        a,
    ):
        return a
    # autodd: end-freeze
    print(f(x))
    """
)


def test_block_freezes_each_statement_between_the_markers():
    # One region per statement, each exactly that statement's AST span.
    assert regions(BLOCK) == [("block", TextRange(3, 0, 3, 10)), ("block", TextRange(5, 0, 8, 12))]
    assert parse_freeze(BLOCK).problems == []


def test_block_inside_a_function_with_trailing_end_marker():
    text = src(
        """
        def f():
            # autodd: freeze-start
            a = 1
            if a:
                b = 2
            # autodd: end-freeze
        x = 1
        """
    )
    assert regions(text) == [("block", TextRange(3, 4, 3, 9)), ("block", TextRange(4, 4, 5, 13))]
    assert parse_freeze(text).problems == []


def test_block_in_an_else_clause():
    text = src(
        """
        if c:
            a = 1
        else:
            # autodd: freeze-start
            b = 2
            # autodd: end-freeze
        """
    )
    assert regions(text) == [("block", TextRange(5, 4, 5, 9))]


def test_empty_block_is_a_warning():
    problem = only_problem("x = 1\n# autodd: freeze-start\n# autodd: end-freeze\n")
    assert problem.severity == "warning" and problem.line == 2


def assert_block_error(text: str, line: int, words: str):
    errors = parse_freeze(text).errors
    assert any(e.line == line and words in e.message for e in errors), errors
    comment = text.splitlines()[line - 1]
    error = next(e for e in errors if e.line == line)
    assert (error.start_col, error.end_col) == (comment.index("#"), len(comment.rstrip()))


def test_unmatched_freeze_start():
    text = "x = 1\n# autodd: freeze-start\ny = 2\n"
    assert_block_error(text, 2, "has no matching `# autodd: end-freeze`")
    assert regions(text) == []


def test_unmatched_end_freeze():
    assert_block_error("x = 1\n  # autodd: end-freeze\n", 2, "has no matching `# autodd: freeze-start`")


def test_nested_blocks():
    text = src(
        """
        # autodd: freeze-start
        a = 1
        # autodd: freeze-start
        b = 2
        # autodd: end-freeze
        # autodd: end-freeze
        """
    )
    assert_block_error(text, 3, "cannot be nested")
    assert len(parse_freeze(text).errors) == 1
    assert regions(text) == [("block", TextRange(2, 0, 2, 5)), ("block", TextRange(4, 0, 4, 5))]  # the outer pair


def test_markers_at_different_indentation():
    text = "# autodd: freeze-start\nx = 1\n  # autodd: end-freeze\n"
    assert_block_error(text, 3, "indented differently")


def test_block_from_module_level_into_a_function_body():
    text = src(
        """
        # autodd: freeze-start
        x = 1
        def f():
            y = 2
            # autodd: end-freeze
            z = 3
        """
    )
    assert_block_error(text, 5, "not in the same statement body")
    assert regions(text) == []


def test_block_from_one_function_into_the_next():
    text = src(
        """
        def f():
            # autodd: freeze-start
            a = 1
        def g():
            # autodd: end-freeze
            b = 2
        """
    )
    assert_block_error(text, 5, "not in the same statement body")
    assert_block_error(text, 2, "not in the same statement body")


def test_block_across_if_and_else():
    text = "if c:\n    # autodd: freeze-start\n    a = 1\nelse:\n    # autodd: end-freeze\n    b = 2\n"
    assert_block_error(text, 5, "not in the same statement body")


def test_marker_must_be_on_its_own_line():
    text = "# autodd: freeze-start\nx = 1\ny = 2  # autodd: end-freeze\n"
    found = parse_freeze(text).errors
    assert [(e.line, e.message) for e in found if e.line == 3] == [
        (3, "`# autodd: end-freeze` must be a comment on a line of its own")
    ]


def test_marker_inside_a_statement():
    text = "x = f(\n    # autodd: freeze-start\n    1)\n# autodd: end-freeze\n"
    assert_block_error(text, 2, "inside a statement")


# --- explicit forms ---------------------------------------------------------


def test_with_freeze():
    text = "from autodd_lsp import __freeze__\nwith __freeze__:\n    setup()\nrest()\n"
    assert regions(text) == [("import", TextRange(1, 0, 1, 33)), ("with", TextRange(2, 0, 3, 11))]


def test_with_freeze_as():
    text = "from autodd_lsp import __freeze__\nasync def f():\n    async with __freeze__ as x:\n        pass\n"
    assert ("with", TextRange(3, 4, 4, 12)) in regions(text)


def test_call_inside_an_expression_is_its_own_region():
    text = "from autodd_lsp import __freeze__\ny = 3 + __freeze__(x)\n"
    assert regions(text) == [("import", TextRange(1, 0, 1, 33)), ("call", TextRange(2, 8, 2, 21))]


def test_aliased_import():
    text = src(
        """
        from autodd_lsp import __freeze__ as fz
        with fz:
            a = fz(1)
        """
    )
    assert regions(text) == [
        ("import", TextRange(1, 0, 1, 39)),
        ("with", TextRange(2, 0, 3, 13)),
        ("call", TextRange(3, 8, 3, 13)),
    ]


def test_reference_tool_import_works_unchanged():
    text = "from tilelang.autodd import __freeze__\nx = __freeze__(f())\n"
    assert regions(text) == [("import", TextRange(1, 0, 1, 38)), ("call", TextRange(2, 4, 2, 19))]
    assert parse_freeze(text).problems == []


def test_unused_import_is_not_a_region():
    assert regions("from autodd_lsp import __freeze__\n# autodd: end-freeze\n") == []


def test_used_but_not_imported():
    text = "import os\ny = __freeze__(1)\n"
    problem = only_problem(text)
    assert problem.severity == "error"
    assert problem.message == "`__freeze__` is used but not imported (add `from autodd_lsp import __freeze__`)"
    assert (problem.line, problem.start_col, problem.end_col) == (2, 4, 14)
    assert regions(text) == []


def test_with_freeze_not_imported():
    problem = only_problem("with __freeze__:\n    pass\n")
    assert (problem.severity, problem.line, problem.start_col, problem.end_col) == ("error", 1, 5, 15)


def test_star_import_and_fallback_imports_bind_the_name():
    text = src(
        """
        try:
            from autodd_lsp import *
        except ImportError:
            from tilelang.autodd import __freeze__
        x = {**__freeze__(d)}
        """
    )
    assert regions(text) == [
        ("import", TextRange(2, 4, 2, 28)),
        ("import", TextRange(4, 4, 4, 42)),
        ("call", TextRange(5, 7, 5, 20)),
    ]


def test_explicit_and_comment_forms_mix():
    text = "from autodd_lsp import __freeze__\nx = 1  # autodd: freeze\nwith __freeze__:\n    pass\n"
    assert [form for form, _ in regions(text)] == ["import", "line", "with"]


# --- positions, syntax errors, speed ---------------------------------------


def test_columns_are_characters_not_utf8_bytes():
    text = "from autodd_lsp import __freeze__\ns = 'ééé'; y = __freeze__(1)  # autodd: freez\n"
    assert ("call", TextRange(2, 15, 2, 28)) in regions(text)  # bytes would say 18..31
    problem = only_problem(text)
    assert (problem.start_col, problem.end_col) == (30, 45)
    line = text.splitlines()[1]
    assert line[problem.start_col : problem.end_col] == "# autodd: freez"


def test_non_ascii_line_freeze_span():
    assert regions("s = '😀ü'  # autodd: freeze\n") == [("line", TextRange(1, 0, 1, 8))]


def test_byte_order_mark_is_not_a_column_shift_for_the_ast():
    assert regions("\ufeffx = 'é'  # autodd: freeze\n") == [("line", TextRange(1, 1, 1, 8))]
    text = "\ufeffx = 'é'\ny = 2\n"
    frozen = freeze(text, 1, 2)
    assert frozen.startswith("\ufeff# autodd: freeze-start\n")
    assert unfreeze(frozen, 1, 4) == text


@pytest.mark.parametrize(
    "text, line",
    [
        ("x = 1  # autodd: freeze\ndef f(:\n    pass\n", 2),
        ("# autodd: freeze-start\nif x:\npass\n", 3),  # IndentationError
        ("x = 1  # autodd: freeze\n\tif x:\n", 2),
        ("x = 1  # autodd: freeze\x00\n", 1),
    ],
)
def test_syntax_error_is_reported_not_raised(text, line):
    info = parse_freeze(text)
    assert info.syntax_error is not None and info.syntax_error.line == line
    assert info.regions == [] and info.problems == []
    assert freeze_edits(text, 1, 1) == [] and unfreeze_edits(text, 1, 3) == []


def _big_program(functions: int = 135) -> str:
    parts = ["import os\nfrom autodd_lsp import __freeze__\n"]
    for i in range(functions):
        annotated = i % 50 == 7
        parts.append(
            f'''
class C{i}:
    """Docs for C{i} mention # autodd: freeze only in a string."""

    def method(self, x):
        total = 0
        for k in range(x):
            total += k * {i}
        return total{"  # autodd: freeze" if annotated else ""}

def f{i}(a):
    {"# autodd: freeze-start" if annotated else "# setup"}
    b = a + 1
    {"# autodd: end-freeze" if annotated else "# done"}
    return {"__freeze__(b)" if annotated else "b"}
'''
        )
    return "".join(parts)


def test_speed_guard_for_two_thousand_lines():
    text = _big_program()
    assert 1900 < text.count("\n") < 2600
    info = parse_freeze(text)
    assert info.problems == [] and len(info.regions) == 10
    best = float("inf")
    for _ in range(5):
        parse_module._last = None  # no cache: each run parses afresh
        # CPU time of this process: other jobs on a busy machine do not count.
        began = time.process_time()
        parse_freeze(text)
        best = min(best, time.process_time() - began)
    assert best < 0.050, f"parse_freeze took {best * 1000:.1f} ms"


def test_fast_path_for_text_without_annotations():
    text = _big_program().replace("autodd", "x").replace("__freeze__", "y")
    began = time.process_time()
    for _ in range(100):
        parse_module._last = None
        parse_freeze(text)
    assert (time.process_time() - began) / 100 < 0.002


def test_results_are_independent_copies():
    text = "x = 1  # autodd: freeze\n"
    parse_freeze(text).regions.clear()
    assert len(parse_freeze(text).regions) == 1


# --- Freeze / Unfreeze edits ----------------------------------------------

PROGRAM = src(
    """
    import os

    @decorate
    def f(a):
        x = 1  # note
        y = 2
        if a:
            z = 3
        return x

    print(f(1))
    """
)


def freeze(text: str, first: int, last: int) -> str:
    edits = freeze_edits(text, first, last)
    assert edits, "expected edits"
    result = apply_edits(text, edits)
    info = parse_freeze(result)
    assert info.syntax_error is None and info.errors == [], info.errors
    return result


def unfreeze(text: str, first: int, last: int) -> str:
    result = apply_edits(text, unfreeze_edits(text, first, last))
    assert parse_freeze(result).errors == []
    return result


def test_freeze_one_simple_statement_appends_a_comment_after_existing_comment():
    assert freeze(PROGRAM, 5, 5).splitlines()[4] == "    x = 1  # note  # autodd: freeze"
    assert freeze(PROGRAM, 6, 6).splitlines()[5] == "    y = 2  # autodd: freeze"


def test_freeze_several_statements_inserts_a_block_at_their_indentation():
    frozen = freeze(PROGRAM, 5, 6)
    assert frozen.splitlines()[4:8] == [
        "    # autodd: freeze-start",
        "    x = 1  # note",
        "    y = 2",
        "    # autodd: end-freeze",
    ]
    assert [form for form, _ in regions(frozen)] == ["block", "block"]


def test_freeze_expands_to_whole_statements_and_goes_above_decorators():
    frozen = freeze(PROGRAM, 4, 4)  # the `def` line: the whole decorated function
    lines = frozen.splitlines()
    assert lines[2] == "# autodd: freeze-start" and lines[3] == "@decorate"
    assert lines[10] == "# autodd: end-freeze"


def test_freeze_a_compound_statement_inside_a_function():
    frozen = freeze(PROGRAM, 7, 7)  # `if a:` header
    assert frozen.splitlines()[6:10] == [
        "    # autodd: freeze-start",
        "    if a:",
        "        z = 3",
        "    # autodd: end-freeze",
    ]


def test_freeze_an_elif_branch_freezes_its_whole_if():
    text = "if a:\n    x = 1\nelif b:\n    y = 2\nelse:\n    z = 3\nw = 4\n"
    assert freeze(text, 3, 4) == "# autodd: freeze-start\n" + text.replace("w = 4", "# autodd: end-freeze\nw = 4")
    assert freeze(text, 4, 4).splitlines()[3] == "    y = 2  # autodd: freeze"


def test_freeze_already_frozen_gives_no_edits():
    assert freeze_edits(freeze(PROGRAM, 6, 6), 6, 6) == []
    blocked = freeze(PROGRAM, 5, 6)
    assert freeze_edits(blocked, 6, 7) == []
    assert freeze_edits(PROGRAM, 2, 2) == []  # only a blank line


def test_freeze_overlapping_an_existing_block_merges_them():
    text = "a = 1\n# autodd: freeze-start\nb = 2\n# autodd: end-freeze\nc = 3\n"
    assert freeze(text, 3, 5) == "a = 1\n# autodd: freeze-start\nb = 2\nc = 3\n# autodd: end-freeze\n"


def test_freeze_merging_a_block_that_ends_the_text_without_final_newline():
    text = "a = 1\n# autodd: freeze-start\nb = 2\n# autodd: end-freeze"
    assert freeze(text, 1, 3) == "# autodd: freeze-start\na = 1\nb = 2\n# autodd: end-freeze"
    text = "def f():\n    a = 1\n    # autodd: freeze-start\n    b = 2\n    # autodd: end-freeze"
    assert freeze(text, 1, 1) == "# autodd: freeze-start\ndef f():\n    a = 1\n    b = 2\n# autodd: end-freeze"


def test_freeze_around_a_block_removes_the_inner_markers():
    text = "def f():\n    # autodd: freeze-start\n    a = 1\n    # autodd: end-freeze\nx = 1"
    assert freeze(text, 1, 1) == "# autodd: freeze-start\ndef f():\n    a = 1\n# autodd: end-freeze\nx = 1"


def test_freeze_at_the_end_of_a_text_without_final_newline():
    assert freeze("a = 1\nb = 2", 1, 2) == "# autodd: freeze-start\na = 1\nb = 2\n# autodd: end-freeze"


def test_freeze_keeps_crlf_line_breaks():
    frozen = freeze("a = 1\r\nb = 2\r\n", 1, 2)
    assert frozen == "# autodd: freeze-start\r\na = 1\r\nb = 2\r\n# autodd: end-freeze\r\n"


def test_lone_carriage_returns_are_line_breaks_too():
    text = "x = 1\r# autodd: freeze-start\ry = 2\r# autodd: end-freeze\rz = 3  # autodd: freeze\r"
    assert regions(text) == [("block", TextRange(3, 0, 3, 5)), ("line", TextRange(5, 0, 5, 5))]
    assert unfreeze(text, 1, 5) == "x = 1\ry = 2\rz = 3\r"


def test_unfreeze_line_annotation_keeps_other_comment_text():
    text = "x = 1  # note  # autodd: freeze\ny = 2  # autodd: freeze  # more\n"
    assert unfreeze(text, 1, 2) == "x = 1  # note\ny = 2  # more\n"


def test_unfreeze_only_touches_selected_lines():
    text = "x = 1  # autodd: freeze\ny = 2  # autodd: freeze\n"
    assert unfreeze(text, 2, 2) == "x = 1  # autodd: freeze\ny = 2\n"


def test_unfreeze_a_block_from_any_line_inside_it():
    text = "a = 1\n# autodd: freeze-start\nb = 2\nc = 3\n# autodd: end-freeze\nd = 4\n"
    assert unfreeze(text, 4, 4) == "a = 1\nb = 2\nc = 3\nd = 4\n"
    assert unfreeze(text, 6, 6) == text


def test_unfreeze_leaves_explicit_forms_and_strings_alone():
    text = 'from autodd_lsp import __freeze__\n"""# autodd: freeze"""\nx = __freeze__(1)  # autodd: freeze\n'
    assert unfreeze(text, 1, 3) == 'from autodd_lsp import __freeze__\n"""# autodd: freeze"""\nx = __freeze__(1)\n'


def test_unfreeze_removes_a_broken_marker_on_the_selection():
    text = "x = 1  # autodd: end-freeze\n"
    assert apply_edits(text, unfreeze_edits(text, 1, 1)) == "x = 1\n"


@pytest.mark.parametrize("first, last", [(5, 5), (6, 6), (5, 6), (4, 4), (7, 8), (8, 8), (1, 12), (3, 9)])
def test_freeze_then_unfreeze_gives_the_original_text_back(first, last):
    frozen = freeze(PROGRAM, first, last)
    added = frozen.count("\n") - PROGRAM.count("\n")
    assert unfreeze(frozen, first, last + added) == PROGRAM
