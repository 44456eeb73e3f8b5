"""The tidy passes that make the output readable: stale comments go, touched statements are formatted.

Real texts in (the original and what a reduction left of it), rendered edits out.
"""

import ast
import os
import sys
import time

import pytest

from autodd_lsp.engine import Accepted, Event, PassStarted, ReduceOptions, Reduction
from autodd_lsp.engine.rules.protection import frozen_spans, respects_frozen
from autodd_lsp.passes import PassContext, registered_passes
from autodd_lsp.passes import format as format_pass
from autodd_lsp.syntax.patch import render, select_patches
from autodd_lsp.syntax.source import Source

FORMAT = "format touched statements"
COMMENTS = "remove stale comments"

needs_ruff = pytest.mark.skipif(format_pass.find_ruff() is None, reason="ruff is not installed beside this interpreter")


def context(original, text):
    source = Source(text)
    return PassContext(source, frozen_spans(source), original=original)


def edits_of(pass_name, original, text):
    (reduction_pass,) = [p for p in registered_passes() if p.name == pass_name]
    ctx = context(original, text)
    edits = reduction_pass.edits(ctx) or []
    assert all(respects_frozen(e, ctx.frozen) for e in edits)
    return ctx, edits


def results(pass_name, original, text):
    """Every candidate text the pass offers, one edit at a time."""
    ctx, edits = edits_of(pass_name, original, text)
    return [render(text, select_patches([e], ctx.guards)) for e in edits]


def test_a_cell_marker_goes_once_its_cell_is_empty():
    original = "# %% [cell 1]\nx = 1\n# %% [cell 2]\ny = 2\n# %% [cell 3]\nz = 3\n"
    text = "# %% [cell 1]\n# %% [cell 2]\ny = 2\n# %% [cell 3]\n"
    assert results(COMMENTS, original, text) == ["# %% [cell 2]\ny = 2\n# %% [cell 3]\n",
                                                 "# %% [cell 1]\n# %% [cell 2]\ny = 2\n"]


def test_tidy_group_order():
    tidy = [p.name for p in registered_passes() if p.group == 5]
    assert tidy == ["drop dead elif clauses", "remove annotations naming what is gone", "remove unused imports", COMMENTS, "tidy blank lines",
                    "drop redundant parentheses", FORMAT]


# -- format touched statements ---------------------------------------------------

ORIGINAL = """\
import os


def f(
    first,
    second,
):
    return os.sep  # keep 'quotes' and   spacing


class A(Base):
    x = {'k': 1}   # odd   spacing kept


def g( x ):
    return x


run(
    first, second, 0, 0,
)
"""

REDUCED = """\
import os


def f(
):
    return os.sep  # keep 'quotes' and   spacing


class A():
    x = {'k': 1}   # odd   spacing kept


def g( x ):
    return x


run(
    0, 0,
)
"""

UNTOUCHED = [
    "import os\n",
    "    return os.sep  # keep 'quotes' and   spacing\n",
    "    x = {'k': 1}   # odd   spacing kept\n",
    "def g( x ):\n",
    "    return x\n",
]


@needs_ruff
def test_touched_headers_and_calls_are_formatted_and_nothing_else():
    ctx, edits = edits_of(FORMAT, ORIGINAL, REDUCED)
    assert len(edits) == 1 and edits[0].weight > 0
    (result,) = [render(REDUCED, select_patches(edits, ctx.guards))]
    assert "def f():\n" in result
    assert "class A:\n" in result
    assert "run(0, 0)\n" in result
    lines = result.splitlines(keepends=True)
    for line in UNTOUCHED:  # byte-identical, though ruff would rewrite each of them
        assert line in lines
    assert "def g(x):" not in result and '{"k": 1}' not in result
    assert result == (
        "import os\n\n\ndef f():\n    return os.sep  # keep 'quotes' and   spacing\n\n\n"
        "class A:\n    x = {'k': 1}   # odd   spacing kept\n\n\n"
        "def g( x ):\n    return x\n\n\nrun(0, 0)\n"
    )
    ast.parse(result)


@needs_ruff
def test_double_blank_lines_left_inside_a_body_become_one():
    original = "class C:\n    def a(self):\n        pass\n\n    def b(self):\n        pass\n\n    def c(self):\n        pass\n"
    reduced = "class C:\n    def a(self):\n        pass\n\n\n    def c(self):\n        pass\n"
    assert results(FORMAT, original, reduced) == [
        "class C:\n    def a(self):\n        pass\n\n    def c(self):\n        pass\n"
    ]


@needs_ruff
def test_a_statement_ending_a_block_is_formatted_apart_from_the_blank_lines_after_it():
    original = "def f(v):\n    check(v,\n          limit=1, strict=True)\n\n    other()\n\n\nf(1)\n"
    reduced = "def f(v):\n    check(v,\n          strict=True)\n\n\nf(1)\n"
    assert results(FORMAT, original, reduced) == ["def f(v):\n    check(v, strict=True)\n\n\nf(1)\n"]


@needs_ruff
def test_touched_lines_take_the_quotes_the_original_mostly_uses():
    original = 'name = "gemm"\nrun(\n    name,\n    cfg.dtype,\n)\nprint("done", \'odd\')\n'
    reduced = "name = \"gemm\"\nrun(\n    'float16',\n)\nprint(\"done\", 'odd')\n"  # a recorded value, in repr's quotes
    assert results(FORMAT, original, reduced) == ['name = "gemm"\nrun("float16")\nprint("done", \'odd\')\n']
    single = original.replace('"', "'")
    assert results(FORMAT, single, reduced.replace('"', "'")) == ["name = 'gemm'\nrun('float16')\nprint('done', 'odd')\n"]


@needs_ruff
@pytest.mark.parametrize("indent", ["\t", "  "])
def test_a_file_indented_otherwise_keeps_its_indentation(indent):
    original = "def f():\n_if x:\n__y = g(\n___1, 2)\n__return y\n".replace("_", indent)
    reduced = "def f():\n_if x:\n__y = g(\n___1,)\n__return y\n".replace("_", indent)
    assert results(FORMAT, original, reduced) == ["def f():\n_if x:\n__y = g(1)\n__return y\n".replace("_", indent)]


@needs_ruff
def test_strings_keep_their_text():
    original = 'data = """\nreceive  A 1\n\n\norder  B 2\n"""\nprint( data )\n'
    reduced = 'data = """\n\n\norder  B 2\n"""\nprint( data )\n'  # a line of embedded data went
    assert results(FORMAT, original, reduced) == []  # the string is its value; the untouched call stays


@needs_ruff
def test_frozen_code_is_never_formatted():
    text = (
        "class A():\n"
        "    pass\n"
        "# autodd: freeze-start\n"
        "class B():\n"
        "    y = f(  1 )\n"
        "# autodd: end-freeze\n"
        "z = f(  2 )\n"
    )
    (result,) = results(FORMAT, "pass\n", text)  # every line touched
    assert result == (
        "class A:\n"
        "    pass\n"
        "\n\n"  # ruff's two blank lines after a class: inserted, no line changed
        "# autodd: freeze-start\n"
        "class B():\n"
        "    y = f(  1 )\n"
        "# autodd: end-freeze\n"
        "z = f(2)\n"
    )


@needs_ruff
def test_nothing_touched_nothing_proposed():
    assert results(FORMAT, REDUCED, REDUCED) == []
    assert results(FORMAT, "", REDUCED) == []  # no original to compare with


@needs_ruff
def test_formatting_that_would_only_grow_the_text_is_not_proposed():
    original = "def f(a, b):\n    pass\n\n\nf(1, 2)\n"
    reduced = "def f(a, b):\n    pass\n\n\nf(alpha_beta_gamma_delta, epsilon_zeta_eta_theta, iota_kappa_lambda_mu, nu_xi_omicron_pi_rho_sigma)\n"
    # ruff would wrap the long call over several lines: longer, so the engine would refuse it
    assert results(FORMAT, original, reduced) == []


def test_finder_uses_this_installation_never_path(monkeypatch, tmp_path):
    fake = tmp_path / "ruff"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "missing" / "python"))
    import ruff

    def not_found():
        raise FileNotFoundError("no ruff here")

    monkeypatch.setattr(ruff, "find_ruff_bin", not_found)
    assert format_pass.find_ruff() is None


def test_missing_formatter_gives_no_edit_and_no_output(monkeypatch, tmp_path, capfd):
    import ruff

    monkeypatch.setattr(ruff, "find_ruff_bin", lambda: str(tmp_path / "nowhere" / "ruff"))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "nowhere" / "python"))
    assert format_pass.find_ruff() is None
    assert results(FORMAT, ORIGINAL, REDUCED) == []
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize(
    "script",
    [
        "exit 2",  # fails
        "echo 'ruff: error' >&2; exit 1",  # fails, saying so
        "exec sleep 5",  # hangs: the call times out
        "cat; echo 'x = 1'",  # prints something else than it was given around the range
        "printf ''",  # prints nothing
    ],
)
def test_failing_formatter_gives_no_edit_and_no_output(monkeypatch, tmp_path, capfd, script):
    fake = tmp_path / "ruff"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setattr(format_pass, "find_ruff", lambda: str(fake))
    monkeypatch.setattr(format_pass, "FORMAT_TIMEOUT", 0.3)
    assert results(FORMAT, ORIGINAL, REDUCED) == []
    assert capfd.readouterr() == ("", "")


def test_a_hanging_formatter_costs_one_timeout_not_one_per_range(monkeypatch, tmp_path):
    fake = tmp_path / "ruff"
    fake.write_text("#!/bin/sh\nexec sleep 5\n")
    fake.chmod(0o755)
    monkeypatch.setattr(format_pass, "find_ruff", lambda: str(fake))
    monkeypatch.setattr(format_pass, "FORMAT_TIMEOUT", 0.2)
    monkeypatch.setattr(format_pass, "MAX_CALLS_IN_PARALLEL", 1)
    ctx = context(ORIGINAL, REDUCED)
    assert len(format_pass.touched_ranges(ctx)) >= 3
    started = time.monotonic()
    assert format_pass.FormatTouched().edits(ctx) == []
    assert time.monotonic() - started < 0.45


@needs_ruff
def test_finder_finds_the_ruff_of_this_installation():
    import ruff

    path = format_pass.find_ruff()
    assert path is not None and os.path.isfile(path) and os.access(path, os.X_OK)
    assert path == ruff.find_ruff_bin()


# -- remove stale comments -------------------------------------------------------

STALE_ORIGINAL = """\
#!/usr/bin/env python
# -*- coding: utf-8 -*-
import os

# parse_args reads the command line
# and returns a namespace

def parse_args():
    return os.environ

# The bug: check_values gets the limit off by one.
def check_values(values):
    # OUTPUT:
    # 1 2 3
    # 4 5 6
    show(values)
    if len(values) > 2:
        raise RuntimeError('too many')  # check_values raises here
    # checked
    print(values)

HELP = '''
# OUTPUT: in a string, not a comment
'''
# autodd: freeze
check_values([1, 2, 3])
"""

STALE_REDUCED = """\
#!/usr/bin/env python
# -*- coding: utf-8 -*-
import os

# parse_args reads the command line
# and returns a namespace

# The bug: check_values gets the limit off by one.
def check_values(values):
    # OUTPUT:
    # 1 2 3
    # 4 5 6

    if len(values) > 2:
        raise RuntimeError('too many')  # check_values raises here
    # checked

HELP = '''
# OUTPUT: in a string, not a comment
'''
# autodd: freeze
check_values([1, 2, 3])
"""


def without(text, *blocks):
    for block in blocks:
        assert block in text
        text = text.replace(block, "", 1)
    return text


def test_a_comment_that_ended_a_block_that_is_gone_goes_though_a_blank_line_follows_it():
    """TheAlgorithms' longest_increasing_subsequence.py: `# Else` ended the `if` block whose
    `return array` is gone. Its result kept it, 8 spaces deep above a 4-space `return`: the blank
    line the removals left after it took the original's blank line above it, and the comment
    mapped to no line of the original."""
    original = ("def longest(array):\n    n = len(array)\n    # one element: return it\n\n"
                "    if n <= 1:\n        return array\n        # Else\n    pivot = array[0]\n"
                "    return [e for e in array[1:] if e >= pivot]\n")
    reduced = "def longest(array):\n        # Else\n\n    return [e for e in array[1:] if e >= array[1]]\n"
    assert results(COMMENTS, original, reduced) == [reduced.replace("        # Else\n", "")]


def test_stale_comments_one_edit_per_block():
    ctx, edits = edits_of(COMMENTS, STALE_ORIGINAL, STALE_REDUCED)
    candidates = [render(STALE_REDUCED, select_patches([e], ctx.guards)) for e in edits]
    name_gone = "# parse_args reads the command line\n# and returns a namespace\n"  # names a removed function
    output = "    # OUTPUT:\n    # 1 2 3\n    # 4 5 6\n"  # glued to show(values), which is gone
    checked = "    # checked\n"  # glued to print(values), which is gone
    assert sorted(candidates) == sorted(without(STALE_REDUCED, block) for block in (name_gone, output, checked))
    assert sorted(e.weight for e in edits) == sorted(len(b) for b in (name_gone, output, checked))
    everything = render(STALE_REDUCED, select_patches(edits, ctx.guards))
    assert everything == without(STALE_REDUCED, name_gone, output, checked)
    # what stays: shebang, encoding, the comment on surviving code, the trailing
    # comment, the string's text, the annotation
    for kept in (
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n",
        "# The bug: check_values gets the limit off by one.\ndef check_values(values):\n",
        "raise RuntimeError('too many')  # check_values raises here\n",
        "# OUTPUT: in a string, not a comment\n",
        "# autodd: freeze\ncheck_values([1, 2, 3])\n",
    ):
        assert kept in everything
    ast.parse(everything)


def test_comment_naming_a_surviving_name_stays_even_with_a_gone_one():
    original = "reset_count = 0\n\n\ndef main():\n    pass\n\n\n# reset_count is read before main()\n\nmain()\n"
    reduced = "def main():\n    pass\n\n\n# reset_count is read before main()\n\nmain()\n"
    assert results(COMMENTS, original, reduced) == []  # a gone variable's name: it may speak of what stays


def test_a_comment_naming_a_gone_function_goes_whatever_else_it_names():
    """Issue 40: a comment that names a function or class the result no longer has describes code
    that is gone (`batchify arranges the dataset into columns` once batchify is gone)."""
    original = "def helper():\n    pass\n\n\ndef main():\n    pass\n\n\n# helper() is called before main()\n\nmain()\n"
    reduced = "def main():\n    pass\n\n\n# helper() is called before main()\n\nmain()\n"
    assert results(COMMENTS, original, reduced) == ["def main():\n    pass\n\n\n\nmain()\n"]
    gone = "def main():\n    pass\n\n\n# call helper() first\n\nmain()\n"
    assert results(COMMENTS, original.replace("helper() is called before main()", "call helper() first"), gone) == [
        "def main():\n    pass\n\n\n\nmain()\n"
    ]


def test_plain_words_are_english_unless_the_original_defined_them():
    original = "errors = []\nresult = compute()\n\n# the errors are collected here\n\nprint(result)\n"
    reduced = "result = compute()\n\n# the errors are collected here\n\nprint(result)\n"
    assert results(COMMENTS, original, reduced) == []  # `errors` was a variable, but reads as English
    original = "def collect():\n    pass\n\n# collect runs first\n\nprint(1)\n"
    reduced = "\n# collect runs first\n\nprint(1)\n"
    assert results(COMMENTS, original, reduced) == ["\n\nprint(1)\n"]


def test_frozen_and_annotation_comments_stay():
    original = (
        "def gone():\n    pass\n\n"
        "# autodd: freeze-start\n"
        "# gone() used to be called here\n"
        "x = 1\n"
        "# autodd: end-freeze\n"
        "# about gone(), next to an annotation\n"
        "y = x  # autodd: freeze\n"
    )
    reduced = original.replace("def gone():\n    pass\n\n", "")
    assert results(COMMENTS, original, reduced) == []


def test_unchanged_comments_stay():
    """But a run's output dump (`# OUTPUT:`), which goes wherever it sits."""
    dump = "    # OUTPUT:\n    # 1 2 3\n    # 4 5 6\n"
    assert results(COMMENTS, STALE_ORIGINAL, STALE_ORIGINAL) == [without(STALE_ORIGINAL, dump)]
    assert results(COMMENTS, "", STALE_REDUCED) == []  # no original to compare with


def test_a_trailing_block_whose_statement_is_gone_goes():
    original = "import sys\nmain()\nreport(sys.argv)\n# OUTPUT\n# ok 1\n# ok 2\n\nexit_now()\n"
    reduced = "import sys\nmain()\n# OUTPUT\n# ok 1\n# ok 2\n\nexit_now()\n"
    assert results(COMMENTS, original, reduced) == ["import sys\nmain()\n\nexit_now()\n"]


# -- the whole engine -----------------------------------------------------------


@pytest.mark.slow
@needs_ruff
def test_engine_output_has_no_empty_class_parentheses_nor_split_empty_def(tmp_path):
    path = tmp_path / "shape.py"
    path.write_text(
        "class Base:\n"
        '    """A base nobody needs."""\n'
        "\n"
        "\n"
        "# Counter counts down the depth\n"
        "class Counter(Base):\n"
        "    limit = 3\n"
        "\n"
        "    def step(self, n):\n"
        "        if n > self.limit:\n"
        '            raise RuntimeError("depth %d reached" % n)\n'
        "        return self.step(n + 1)\n"
        "\n"
        "\n"
        "def count(\n"
        "    counter,\n"
        "    n,\n"
        "    unused,\n"
        "):\n"
        "    if n > 2:\n"
        "        return counter.step(n)  # autodd: freeze\n"
        "    return count(counter, n + 1, unused)\n"
        "\n"
        "\n"
        'count(Counter(), 0, "spare")\n'
    )
    events: list[Event] = []
    options = ReduceOptions(err_msg="depth 4 reached", cwd=str(tmp_path))
    summary = Reduction(path.read_text(), str(path), options, events.append).run()
    assert summary.verified
    text = summary.text
    assert "():" not in text  # no `class Counter():`
    assert "(\n" not in text  # no `def count(\n    ...\n):`
    assert "return counter.step(n)  # autodd: freeze\n" in text
    accepted_in, current = [], None
    for event in events:
        if isinstance(event, PassStarted):
            current = event.name
        elif isinstance(event, Accepted):
            accepted_in.append(current)
    assert accepted_in[-1] == FORMAT  # the reduction left `class Counter():` and `def count(\n    counter,\n    n,\n):`
    ast.parse(text)


def test_a_heading_whose_section_is_gone_goes():
    original = (
        "# Project header\nimport os\n\n"
        "# ====\n# Helpers\n# ====\n\ndef helper():\n    pass\n\n"
        "# ====\n# Main\n# ====\n\ndef main():\n    pass\n\nmain()\n"
    )
    reduced = "# Project header\nimport os\n\n# ====\n# Helpers\n# ====\n\n# ====\n# Main\n# ====\n\ndef main():\n    pass\n\nmain()\n"
    # the banner rows are blocks of their own (they go wherever they stand); `# Helpers` goes with its section
    assert all_at_once(COMMENTS, original, reduced) == \
        "# Project header\nimport os\n\n\n# Main\n\ndef main():\n    pass\n\nmain()\n"
    assert "# Project header\nimport os\n\n# ====\n# ====\n\n# ====\n# Main" in results(COMMENTS, original, reduced)[0]
    stacked = "import os\n# ====\n# Helpers\n# ====\n# ====\n# Main\n# ====\ndef main():\n    pass\n"
    original = stacked.replace("# ====\n# ====\n", "# ====\ndef helper():\n    pass\n# ====\n")
    assert all_at_once(COMMENTS, original, stacked) == "import os\n# Main\ndef main():\n    pass\n"


def all_at_once(pass_name, original, text):
    """The text with every edit the pass offers applied together."""
    ctx, edits = edits_of(pass_name, original, text)
    return render(text, select_patches(edits, ctx.guards))


def test_banner_rows_and_a_block_after_the_last_statement_go():
    """Rows of `####` and an `# OUTPUT` dump after the last statement (issue 40): not a person's
    reproducer. A comment on live code between them stays."""
    original = (
        "import math\n\n##########################\n# area of a circle\n"
        "##########################\nr = 2.0\nprint(math.pi * r * r)\n\n# OUTPUT\n# 12.566370614359172\n"
    )
    assert all_at_once(COMMENTS, original, original) == \
        "import math\n\n# area of a circle\nr = 2.0\nprint(math.pi * r * r)\n\n"
    header = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# noqa\nx = 1\n"
    assert results(COMMENTS, header, header) == []  # directives are never banners nor dumps


def test_a_block_headed_as_a_runs_output_goes_wherever_it_sits():
    """An `# OUTPUT` dump between the algorithm and the driver a case appends (TheAlgorithms'
    dijkstra): a run's output, stale in a reproducer that prints its own. A comment that only
    mentions output stays."""
    original = (
        "def area(r):\n    return 3.14 * r * r\n\n\n# OUTPUT\n# 12.56\n# 28.26\n\n"
        "# output the area of a unit circle\nprint(area(1))\n"
    )
    assert all_at_once(COMMENTS, original, original) == \
        "def area(r):\n    return 3.14 * r * r\n\n\n\n# output the area of a unit circle\nprint(area(1))\n"
    for heading in ("# Sample output:", "# Expected Output", "# results"):
        text = original.replace("# OUTPUT", heading)
        assert "# 12.56" not in all_at_once(COMMENTS, text, text), heading


# -- annotations naming what is gone ---------------------------------------------

ANNOTATIONS = "remove annotations naming what is gone"


def test_an_annotation_naming_a_gone_import_goes_and_one_naming_what_is_bound_stays():
    """The shape of TheAlgorithms' double-ended queue at the commit before its fix, reduced:
    under `from __future__ import annotations` nothing evaluates `-> Any` or `Iterable[int]`,
    so `from typing import Any, Iterable` went and the reproducer names what it lacks. Those go,
    one candidate each; `Deque._Node | None`, `-> None`, and a bare declaration stay."""
    text = (
        "from __future__ import annotations\n\n\nclass Deque:\n    class _Node:\n"
        "        prev_node: Deque._Node | None = None\n        val: Any\n\n"
        "    def __init__(self, items: Iterable[int] = ()) -> None:\n        self._back = self._Node()\n\n"
        "    def pop(self) -> Any:\n        size: Sized = 1\n        self._back = self._back.prev_node\n"
        "        self._back.next_node = None\n\n\nDeque().pop()\n"
    )
    assert results(ANNOTATIONS, text, text) == [
        text.replace("(self, items: Iterable[int] = ())", "(self, items = ())"),
        text.replace("def pop(self) -> Any:", "def pop(self):"),
        text.replace("size: Sized = 1", "size = 1"),
    ]
    bound = text.replace("from __future__ import annotations\n", "from __future__ import annotations\n"
                         "from typing import Any, Iterable, Sized\n")
    assert results(ANNOTATIONS, bound, bound) == []
