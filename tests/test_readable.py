"""Readable, faithful results on small real programs: no unused import left, no literal standing in."""

import re

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.oracle.degenerate import degenerate_values
from autodd_lsp.passes.base import PassContext
from autodd_lsp.passes.imports import RemoveUnusedImports
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import render
from autodd_lsp.syntax.source import Source
from tests.conftest import program_text


def test_an_import_whose_last_use_went_is_removed():
    text = program_text("orders.py").replace("    items: list = field(default_factory=list)\n", "")
    source = Source(text)
    edits = RemoveUnusedImports().edits(PassContext(source, [], original=text), 0)
    assert edits is not None and len(edits) == 1
    tidied = render(text, list(edits[0].patches))
    assert "from dataclasses import dataclass\n" in tidied and "field" not in tidied


def test_a_literal_standing_in_for_a_container_is_degenerate():
    stand_ins = ['{}["west"]', '{1: 1}[103]', "1[0]", "0(x)", "(1).shape", "[](x)"]
    for text in stand_ins:
        assert degenerate_values(parse(text))["literal stand-in"] >= 1, text
    for text in ['", ".join(names)', "table[x]", "f(x)[0]"]:
        assert degenerate_values(parse(text))["literal stand-in"] == 0, text


@pytest.mark.slow
def test_a_lookup_table_keeps_its_table(program, no_leftovers):
    """A KeyError of an order id nobody placed: not `{}[103]`, and no unused `field` import."""
    path = program("orders.py")
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg="KeyError")).run()
    assert summary.verified and summary.final_failure_line == "KeyError: 103"
    assert "{}[" not in summary.text and "}[" not in summary.text
    assert "import" not in summary.text or "field" not in summary.text


def test_redundant_parentheses_and_blank_lines_a_reduction_left_go():
    """What removals left in a training step: `(params["w1"]) @ w2`, `size=(32)`, two blank lines in a body."""
    from autodd_lsp.passes.parens import DropRedundantParentheses
    from autodd_lsp.passes.tidy import surplus_blank_lines

    original = (
        "def forward(params, x):\n"
        "    h = (params['w1'] + params['b1']) @ params['w2']\n"
        "    noise = rng.normal(size=(32, 32))\n"
        "    keep = (x)\n"
        "    return h + noise\n"
    )
    reduced = (
        "def forward(params, x):\n"
        "    h = (params['w1']) @ params['w2']\n"
        "\n"
        "\n"
        "    noise = rng.normal(size=(32))\n"
        "    keep = (x)\n"
        "    return h + noise\n"
    )
    source = Source(reduced)
    edits = DropRedundantParentheses().edits(PassContext(source, [], original=original), 0)
    texts = [render(reduced, list(edit.patches)) for edit in edits or []]
    assert len(texts) == 2  # the user's own `(x)` stays: its line was not touched
    assert "    h = params['w1'] @ params['w2']\n" in texts[0]
    assert "rng.normal(size=32)" in texts[1]
    assert surplus_blank_lines(source) == [4]  # one blank line inside a body
    assert surplus_blank_lines(Source("x = 1\n\n\n\ndef f():\n    pass\n")) == [4]  # two at the top level


def test_a_signed_number_loses_the_parentheses_of_the_expression_it_replaced():
    """`int((weight - 1.9) // 0.5)` became `int((-1.0))` (the run's value): `int(-1.0)`. Not where they
    bind: `(-1) ** 2` is 1, `-1 ** 2` is -1; nor `(-2).bit_length()`."""
    from autodd_lsp.passes.parens import DropRedundantParentheses

    original = "band = int((weight - 1.9) // 0.5)\nsign = (x) ** 2\nbits = (y).bit_length()\nz = a - (b)\n"
    reduced = "band = int((-1.0))\nsign = (-1) ** 2\nbits = (-2).bit_length()\nz = a - (-3)\n"
    source = Source(reduced)
    edits = DropRedundantParentheses().edits(PassContext(source, [], original=original), 0)
    texts = [render(reduced, list(edit.patches)) for edit in edits or []]
    assert sorted(texts) == sorted([reduced.replace("int((-1.0))", "int(-1.0)"), reduced.replace("(-3)", "-3")])
    assert all(eval(compile(t, "<t>", "exec"), {"a": 1}) is None for t in texts)  # each still runs


def inlined(text):
    """Every text that "inline variables" offers for `text`, one edit at a time."""
    from autodd_lsp.passes.variables import InlineVariables

    source = Source(text)
    return [render(text, list(e.patches)) for e in InlineVariables().edits(PassContext(source, [], original=text), 0) or []]


def test_a_value_that_calls_is_not_copied_into_two_uses():
    """`pd.read_csv('train.csv')` inlined into both uses would read the file twice."""
    reads_twice = 'import pandas as pd\ndf = pd.read_csv("train.csv")\nprint(df.shape, df["price"].mean())\n'
    assert inlined(reads_twice) == []
    in_a_loop = 'import pandas as pd\ndf = pd.read_csv("train.csv")\nfor epoch in range(3):\n    print(df)\n'
    assert inlined(in_a_loop) == []
    once = 'import pandas as pd\ndf = pd.read_csv("train.csv")\nprint(df)\n'
    assert inlined(once) == ['import pandas as pd\nprint(pd.read_csv("train.csv"))\n']
    table = 'sizes = (32, 64)\nprint(sizes[0], sizes)\n'  # no call: copying the value costs nothing at run time
    assert len(inlined(table)) == 1
    iterated = 'records = [(n, n * n) for n in range(20)]\nfor record in records:\n    print(record)\n'
    assert inlined(iterated) == ['for record in [(n, n * n) for n in range(20)]:\n    print(record)\n']  # run once
    comprehended = 'rows = load()\nnames = [row.name for row in rows if row]\n'
    assert inlined(comprehended) == ['names = [row.name for row in load() if row]\n']


def test_commented_out_code_goes_and_prose_stays():
    """`# self.hidden2 = nn.Sequential(` above a surviving layer: dead code in a reproducer."""
    from autodd_lsp.passes.stale_comments import RemoveStaleComments

    text = (
        "import torch.nn as nn\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        # the first layer widens the input\n"
        "        self.hidden = nn.Linear(4, 8)\n"
        "        # self.hidden2 = nn.Sequential(\n"
        "        #     nn.Linear(8, 8), nn.ReLU())\n"
        "        self.out = nn.Linear(8, 2)\n"
        "        # TODO: dropout\n"
        "        self.act = nn.ReLU()\n"
    )
    source = Source(text)
    edits = RemoveStaleComments().edits(PassContext(source, [], original=text), 0) or []
    assert [render(text, list(e.patches)).count("#") for e in edits] == [2]
    assert "self.hidden2" not in render(text, list(edits[0].patches))


def test_a_multi_line_value_inlined_into_a_block_moves_with_its_lines():
    """An inlined module's table used in a function: its closing brace does not stay at column 0."""
    from autodd_lsp.passes.variables import InlineVariables

    text = (
        "DEFAULTS = {\n"
        "    'float16': (128, 128),\n"
        "}\n"
        "def plan(dtype):\n"
        "    if dtype:\n"
        "        return DEFAULTS[dtype]\n"
    )
    source = Source(text)
    (edit,) = InlineVariables().edits(PassContext(source, [], original=text), 0) or []
    result = render(text, list(edit.patches))
    assert result == (
        "def plan(dtype):\n"
        "    if dtype:\n"
        "        return {\n"
        "            'float16': (128, 128),\n"
        "        }[dtype]\n"
    )
    assert parse(result)


def test_comments_about_removed_code_go():
    """`# idx and targets are both (B,T) tensor of integers` once the line it described is gone,
    and a comment naming a parameter that is gone everywhere; comments on surviving code stay."""
    from autodd_lsp.passes.stale_comments import RemoveStaleComments

    original = (
        "def forward(idx, targets, scale):\n"
        "    # idx and targets are both (B,T) tensor of integers\n"
        "    b, t = idx.size()\n"
        "    # the embeddings, then the head\n"
        "    x = embed(idx)\n"
        "    # scale divides the logits\n"
        "    return head(x) / scale\n"
    )
    reduced = (
        "def forward(idx):\n"
        "    # idx and targets are both (B,T) tensor of integers\n"
        "    x = embed(1)\n"
        "    # scale divides the logits\n"
        "    return head(x)\n"
    )
    source = Source(reduced)
    edits = RemoveStaleComments().edits(PassContext(source, [], original=original), 0) or []
    removed = sorted(reduced.count("\n") - render(reduced, list(e.patches)).count("\n") for e in edits)
    assert len(edits) == 2 and removed == [1, 1]
    kept = render(reduced, [p for e in edits for p in e.patches])
    assert "#" not in kept
    still = reduced.replace("    x = embed(1)\n", "    b, t = idx.size()\n    x = embed(1)\n")
    edits = RemoveStaleComments().edits(PassContext(Source(still), [], original=original), 0) or []
    assert ["idx and targets" in render(still, list(e.patches)) for e in edits] == [True]  # still above its line


def test_an_inlined_value_is_parenthesized_only_where_its_place_needs_it():
    """`a = m * k` inlined into `(a + b) * s`: `m * k + b`, not `(m * k) + b`; parentheses stay where
    the operator binds tighter (`(a + b) * s`) or on the right of a `-`."""
    assert inlined("area = block_m * block_k\nneed = (area + extra) * size\n") == ["need = (block_m * block_k + extra) * size\n"]
    assert inlined("part = block_m + block_k\ntotal = part * size\n") == ["total = (block_m + block_k) * size\n"]
    assert inlined("part = block_m - block_k\nleft = count - part\n") == ["left = count - (block_m - block_k)\n"]
    assert inlined("part = block_m * block_k\nprint(part, flush=True)\n") == ["print(block_m * block_k, flush=True)\n"]
    assert inlined("pair = block_m, block_k\nprint(pair)\n") == ["print((block_m, block_k))\n"]
    for text in inlined("area = block_m * block_k\nneed = (area + extra) * size\n"):
        parse(text)


SEQUENCE_MODEL = '''import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab, block_size, width):
        super().__init__()
        self.block_size = block_size
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx):
        b, t = idx.size()
        assert t <= self.block_size, f"sequence of length {t} is longer than the block size {self.block_size}"
        return self.head(self.embed(idx))


def batches(data, block_size, batch_size):
    for start in range(0, len(data) - block_size, block_size):
        chunk = data[start:start + block_size * batch_size]
        yield chunk.view(-1, block_size * 2)


data = torch.arange(4096) % 50
model = TinyLM(50, 64, 32)
for batch in batches(data, 64, 8):
    logits = model(batch)
    print(logits.shape)
'''


@pytest.mark.slow
def test_a_module_reads_the_input_its_caller_passes(tmp_path, no_leftovers):
    """`forward(self, idx)` is reached through `model(batch)`, where the parameter pass finds no
    call to drop `idx` from. Its value written over `idx.size()` left the caller passing
    `torch.zeros((4, 128))` and `forward` reading a `torch.zeros((1, 128))` of its own. Since the
    route pass calls the model as `TinyLM()(...)`, a call the parameter pass sees, `idx` may go
    with its argument and its value be written where it was read: one tensor either way, never a
    caller's argument that `forward` no longer reads."""
    pytest.importorskip("torch")
    path = tmp_path / "tiny_lm.py"
    path.write_text(SEQUENCE_MODEL)
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg="is longer than the block size")).run()
    assert summary.verified, summary.describe()
    assert summary.text.count("torch.zeros(") == 1, summary.text
    read_in_forward = "b, t = idx.size()" in summary.text
    assert read_in_forward == ("def forward(self, idx)" in summary.text), summary.text
    assert re.search(r"torch\.zeros\(\(\d+, 128\)", summary.text), summary.text  # the sequence the failure reads


@pytest.mark.slow
def test_the_failing_statement_keeps_the_users_words(program, no_leftovers):
    """An off-by-one index: the line the traceback showed (`self.items[self.head + self.count]`) stays
    as written. Values may stand in for inputs further up (`self.head` in `add`), never inside the
    failing statement, where `self.items[6]` would be the same failure without the mistake."""
    path = program("ring_buffer.py")
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg="IndexError")).run()
    assert summary.verified and summary.final_failure_line == "IndexError: list index out of range"
    assert "return self.items[self.head + self.count]\n" in summary.text
    assert "self.items[6]" not in summary.text
    assert summary.final.nodes < summary.original.nodes


def test_a_whole_item_loses_the_parentheses_an_inlined_variable_brought():
    """pytest_fixture's `SMEM_BYTES = 48 * 1024`, inlined into the device's dict, left
    `{"smem": (48 * 1024)}`. A dict's value, a list's item, a call's argument, a one-line
    assignment's value: the parentheses go. Not where they bind (`(a + b) * c`), nor around a
    multi-line value (they continue its line), nor a tuple's."""
    from autodd_lsp.passes.parens import DropRedundantParentheses

    original = ("SMEM_BYTES = 48 * 1024\ndevice = {'smem': SMEM_BYTES}\nsizes = [SMEM_BYTES, 2]\n"
                "grid = max(SMEM_BYTES, 1)\nlimit = SMEM_BYTES\nscaled = SMEM_BYTES * 2\npair = SMEM_BYTES\n"
                "total = SMEM_BYTES\n")
    reduced = ("device = {'smem': (48 * 1024)}\nsizes = [(48 * 1024), 2]\ngrid = max((48 * 1024), 1)\n"
               "limit = (48 * 1024)\nscaled = (48 * 1024) * 2\npair = (48, 1024)\ntotal = (48 *\n    1024)\n")
    source = Source(reduced)
    edits = DropRedundantParentheses().edits(PassContext(source, [], original=original), 0)
    texts = sorted(render(reduced, list(edit.patches)) for edit in edits or [])
    assert texts == sorted([
        reduced.replace("{'smem': (48 * 1024)}", "{'smem': 48 * 1024}"),
        reduced.replace("[(48 * 1024), 2]", "[48 * 1024, 2]"),
        reduced.replace("max((48 * 1024), 1)", "max(48 * 1024, 1)"),
        reduced.replace("limit = (48 * 1024)", "limit = 48 * 1024"),
    ])
    assert all(compile(t, "<t>", "exec") for t in texts)
