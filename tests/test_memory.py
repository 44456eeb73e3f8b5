"""The fixpoint's memory of edits found needed (`engine/searching/memory.py`): a statement-level edit
is keyed by the statements that share a name with it, so it is tried again once one of them
changes, and not after a change elsewhere; a fine-grained one by its statement and the
statements that name a call's keyword it removes. The keys on real text, then the real
fixpoint through the library API (`minimize`) against a plain predicate, with the memory and
without, and the real engine on a two-file program whose config keyword was left behind."""

from __future__ import annotations

import pytest

from autodd_lsp.engine import minimize
from autodd_lsp.engine.searching.memory import edit_key, names_key
from autodd_lsp.passes import PassContext, Remembers, registered_passes
from autodd_lsp.passes.elements import RemoveElements
from autodd_lsp.passes.parameters import RemoveParameters
from autodd_lsp.passes.statements import RemoveStatements
from autodd_lsp.syntax.source import Source
from tests.support import reduce
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


CONFIGURED = """from dataclasses import dataclass


@dataclass
class ModelConfig:
    block_size: int = 1024
    n_layer: int = 12


def build(config):
    return [object() for _ in range(config.n_layer)]


cfg = ModelConfig(block_size=64, n_layer=2)
print(len(build(cfg)))
"""


def keyword_removal_key(text: str, keyword: str) -> tuple:
    """The key of the element pass's removal of the keyword argument `keyword=...`."""
    source = Source(text)
    [edit] = [e for e in RemoveElements().propose(PassContext(source))
              if text[e.patches[0].start:e.patches[0].end].strip(" ,").startswith(keyword + "=")]
    return edit_key(source, edit)


def test_a_keyword_removal_is_new_again_once_a_statement_naming_the_keyword_changes():
    """`n_layer=2` refused while the field's default or a reader differs is tried again once
    either changes, though the call's own statement is the same text."""
    before = keyword_removal_key(CONFIGURED, "n_layer")
    assert keyword_removal_key(CONFIGURED.replace("n_layer: int = 12", "n_layer: int = 1"), "n_layer") != before
    assert keyword_removal_key(CONFIGURED.replace("range(config.n_layer)", "range(2)"), "n_layer") != before
    assert keyword_removal_key(CONFIGURED.replace("print(len(", "print(1 + len("), "n_layer") == before
    assert keyword_removal_key(CONFIGURED.replace("block_size: int = 1024", "block_size: int = 1"), "n_layer") == before


LIBRARY_MODEL = """from dataclasses import dataclass


@dataclass
class ModelConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768


class Attention:
    def __init__(self, config):
        assert config.n_embd % config.n_head == 0
        self.n_head = config.n_head
        self.head_dim = config.n_embd // config.n_head


class Block:
    def __init__(self, config):
        self.attn = Attention(config)
        self.width = config.n_embd


class Model:
    def __init__(self, config):
        self.config = config
        self.blocks = [Block(config) for _ in range(config.n_layer)]

    def forward(self, tokens):
        t = len(tokens)
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        return [b.width for b in self.blocks]
"""

TRAIN = """from dataclasses import dataclass

from model import Model, ModelConfig


@dataclass
class RunConfig:
    block_size: int = 64
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 128


def main():
    run = RunConfig()
    model = Model(ModelConfig(block_size=run.block_size, vocab_size=65, n_layer=run.n_layer,
                              n_head=run.n_head, n_embd=run.n_embd))
    tokens = list(range(run.block_size * 2))
    print(model.forward(tokens))


main()
"""


@pytest.mark.slow
def test_a_config_keyword_goes_once_nothing_reads_it(tmp_path, no_leftovers):
    """A training script and its model module, as a user feeds a model twice its block size.
    `n_layer=2` was refused while the blocks were built from it; they went later, at a deeper
    level, and the call's text had not changed since: the result kept `n_layer=2` and its field,
    and reducing that result again removed them. Keyed by the keyword's readers too, it goes."""
    (tmp_path / "model.py").write_text(LIBRARY_MODEL)
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    summary, _ = reduce(path, "Cannot forward sequence of length 128")
    assert summary.verified, summary.describe()
    assert "block_size=64" in summary.text and "range(128)" in summary.text, summary.text
    assert "n_layer" not in summary.text, summary.text
