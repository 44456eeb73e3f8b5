"""Span-splicing patches, block guards and re-indentation."""

import ast

from autodd_lsp.passes.base import block_guards
from autodd_lsp.syntax.indent import reindent
from autodd_lsp.syntax.metrics import count_lines, order_key, size_of
from autodd_lsp.syntax.patch import (
    Edit,
    Patch,
    delete,
    render,
    replace,
    replace_with_span,
    select_patches,
)
from autodd_lsp.syntax.source import Source


def test_nested_patches_compose():
    text = "abcdefghij"
    inner = Edit((delete(2, 4),), "t")
    outer = Edit((replace_with_span(1, 6, (2, 5), "[{}]"),), "t")
    assert render(text, select_patches([inner], [])) == "abefghij"
    assert render(text, select_patches([outer, inner], [])) == "a[e]ghij"


def test_crossing_patches_first_wins():
    text = "abcdefghij"
    first = Edit((delete(1, 5),), "t")
    crossing = Edit((delete(3, 8),), "t")
    assert render(text, select_patches([first, crossing], [])) == "afghij"


def test_same_span_edits_only_first_applies():
    text = "x = 12345\n"
    a = Edit((replace(4, 9, "0"),), "t")
    b = Edit((replace(4, 9, "1"),), "t")
    assert render(text, select_patches([a, b], [])) == "x = 0\n"


def test_block_guard_puts_pass_back_when_block_empties():
    text = "def f():\n    # note\n    x = 1\nf()\n"
    source = Source(text)
    function = source.tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    start, end = source.stmt_lines_span(function.body[0])
    patches = select_patches([Edit((delete(start, end),), "t")], block_guards(source))
    assert render(text, patches) == "def f():\n    pass\nf()\n"


def test_comments_glued_to_a_statement_go_with_it_but_annotations_stay():
    text = "x = 1\n# about y\ny = 2\n# autodd: freeze-start\nz = 3\n"
    source = Source(text)
    assert text[slice(*source.stmt_lines_span(source.tree.body[1]))] == "# about y\ny = 2\n"
    assert text[slice(*source.stmt_lines_span(source.tree.body[2]))] == "z = 3\n"
    cells = Source("# %% [cell 1]\nx = 1\n# %% [cell 2]\n# about y\ny = 2\n")  # a cell marker heads its cell
    assert cells.text[slice(*cells.stmt_lines_span(cells.tree.body[1]))] == "# about y\ny = 2\n"


def test_reindent_leaves_multiline_strings_alone():
    block = '    x = """\n    keep\n        me"""\n    y = 1\n'
    assert reindent(block, "    ", "") == 'x = """\n    keep\n        me"""\ny = 1\n'


def test_non_ascii_columns_are_character_offsets():
    text = "s = 'héllo'; t = 1\n"
    source = Source(text)
    assert source.segment(source.tree.body[1]) == "t = 1"


def test_sizes_and_order():
    text = "x = 1\n\n\ny = 2  # c\n"
    size = size_of(text)
    assert (size.lines, size.chars) == (2, len(text))
    assert count_lines("\n\n") == 0
    assert order_key("x = 64") < order_key("x = 99")
    assert order_key("x = 1") < order_key("x = 10")


def _pairwise_choice(edits, guards):
    """The selection rule, spelled out: an edit is taken if no patch of it crosses a guard or one
    taken; with it come the guards around its patches (all guards if some guards cross)."""
    from autodd_lsp.syntax.patch import _crosses

    chosen: list[Patch] = []
    for edit in edits:
        if not any(_crosses(p, q) for p in edit.patches for q in chosen + list(guards)):
            chosen.extend(edit.patches)

    def nest(a, b):
        return a.end <= b.start or b.end <= a.start or (a.start <= b.start and b.end <= a.end) or (b.start <= a.start and a.end <= b.end)

    nested = all(nest(a, b) for a in guards for b in guards)
    around = [g for g in guards if any(not nested or (g.start <= p.start and p.end <= g.end) for p in chosen)]
    return {id(p) for p in chosen + around}


def _random_edits(rng, max_edits):
    """Guards and edits over 60 characters: nested, crossing, empty and same-span patches."""
    from autodd_lsp.syntax.patch import Patch

    def patch(guard=False):
        start = rng.randrange(60)
        return Patch(start, start + rng.choice([0, 0, 1, 2, 5, 10, 30]), lambda render: "", guard=guard)

    guards = [patch(guard=True) for _ in range(rng.randrange(4))]
    edits = [Edit(tuple(patch() for _ in range(rng.randrange(1, 3))), "t") for _ in range(rng.randrange(1, max_edits))]
    return guards, edits


def test_select_patches_keeps_exactly_the_edits_that_cross_nothing_chosen_before():
    """The indexed selection agrees with the pairwise rule on random nested, crossing and empty patches."""
    import random

    rng = random.Random(7)
    for _ in range(2000):
        guards, edits = _random_edits(rng, 12)
        assert {id(p) for p in select_patches(edits, guards)} == _pairwise_choice(edits, guards)


def test_edit_selector_agrees_with_the_pairwise_rule_on_any_subset():
    """A search's selector, built once, picks for each subset what the pairwise rule picks."""
    import random

    from autodd_lsp.syntax.patch import EditSelector

    rng = random.Random(11)
    for _ in range(300):
        guards, edits = _random_edits(rng, 15)
        selector = EditSelector(edits, guards)
        for _ in range(10):
            subset = rng.sample(range(len(edits)), rng.randrange(len(edits) + 1))
            picked = selector.patches(subset)
            assert {id(p) for p in picked} == _pairwise_choice([edits[i] for i in sorted(subset)], guards)
            assert [p.start for p in picked] == sorted(p.start for p in picked)


def test_render_of_nested_blocks_matches_a_plain_recursive_renderer():
    """Rendering by windows over sorted starts gives what scanning every patch gives."""
    import random

    from autodd_lsp.syntax.patch import EditSelector, delete

    text = (
        "def f(a):\n"
        "    if a:\n"
        "        x = 1\n"
        "        for i in range(3):\n"
        "            y = i\n"
        "            z = y\n"
        "    else:\n"
        "        w = 2\n"
        "    return a\n"
        "class C:\n"
        "    def m(self):\n"
        "        return 1\n"
        "    k = 2\n"
        "print(f(1))\n"
    )
    source = Source(text)
    statements = [n for n in ast.walk(source.tree) if isinstance(n, ast.stmt)]
    edits = [Edit((delete(*source.stmt_lines_span(n)),), "t") for n in statements]
    selector = EditSelector(edits, block_guards(source))
    rng = random.Random(3)
    for _ in range(200):
        subset = rng.sample(range(len(edits)), rng.randrange(len(edits) + 1))
        patches = selector.patches(subset)
        rendered = render(text, patches)
        assert rendered == _plain_render(text, patches)
        ast.parse(rendered)  # guards keep every emptied block valid


def test_guards_around_the_chosen_edits_render_what_every_guard_renders():
    """Only the guards enclosing a chosen patch are applied: the others would copy their span."""
    import random
    from pathlib import Path

    from autodd_lsp.passes import registered_passes
    from autodd_lsp.passes.base import PassContext
    from autodd_lsp.syntax.patch import EditSelector, _sort_key

    text = (Path(__file__).parent.parent / "benchmarks" / "corpus" / "plain_python.py").read_text()
    source = Source(text)
    ctx = PassContext(source, [])
    guards = ctx.guards
    rng = random.Random(5)
    checked = fewer = 0
    levels = [(p, level) for p in registered_passes() for level in (range(4) if p.has_levels else [0])]
    for reduction_pass, level in levels:
        edits = reduction_pass.edits(ctx, level) or []
        if not edits:
            continue
        selector = EditSelector(edits, guards)
        for _ in range(40):
            subset = rng.sample(range(len(edits)), rng.randrange(1, len(edits) + 1))
            picked = selector.patches(subset)
            chosen = [p for p in picked if not p.guard]
            fewer += len(picked) - len(chosen) < len(guards)
            everything = sorted(list(guards) + chosen, key=_sort_key)
            assert render(text, picked) == render(text, everything)
            checked += 1
    assert checked > 200 and fewer > checked // 2


def _plain_render(text, patches):
    """The obvious quadratic renderer: every span looks at every patch."""

    def span(start, end, caller=None):
        inside = [p for p in patches if start <= p.start and p.end <= end and p is not caller]
        if caller is not None:
            rank = patches.index(caller)
            inside = [p for p in inside if not (p.start == caller.start and p.end == caller.end and patches.index(p) < rank)]
        out, pos, i = [], start, 0
        while i < len(inside):
            patch, j = inside[i], i + 1
            while j < len(inside) and inside[j].end <= patch.end and inside[j].start < patch.end:
                j += 1
            out.append(text[pos : patch.start])
            out.append(patch.build(lambda a, b, _p=patch: span(a, b, _p)))
            pos, i = patch.end, j
        out.append(text[pos:end])
        return "".join(out)

    return span(0, len(text))
