"""The failing statement sees what it saw (oracle/failing_statement.py), and the program's own check stays.

Real programs, reduced by the real engine: a lookup table keeps its entries, a
dataclass its field types, a kernel its tensors; the probe that records the
operands changes nothing the program prints; the test of the program's own `if`
that raises the failure stays (engine/rules/protection.guard_spans).
"""

import ast
import re
import subprocess
import sys

import pytest

from autodd_lsp.engine.rules.operand_probe import probe, split_markers
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.failing_statement import (
    StatementRule,
    differences,
    held_parameters,
    varying_note,
)
from autodd_lsp.syntax.metrics import count_nodes
from tests.support import program_text, reduce, run_standalone


def probed_run(path, text, *args):
    path.write_text(probe(comparisons=False)(text))
    done = subprocess.run([sys.executable, str(path), *args], capture_output=True, timeout=120, cwd=path.parent,
                          check=False)
    return split_markers(RunResult(done.stdout, done.stderr, done.returncode))


def standalone(tmp_path, text, name="result.py"):
    out = tmp_path / "alone"
    out.mkdir(exist_ok=True)
    (out / name).write_text(text)
    return run_standalone(out / name)


REGIONS_EMPTIED = '''\
REGION_MANAGERS = {}


manager = REGION_MANAGERS["west"]
'''


@pytest.mark.slow
def test_the_probe_changes_nothing_printed_and_sees_the_table(tmp_path):
    text = program_text("regions.py")
    plain = subprocess.run([sys.executable, "regions.py"], capture_output=True, cwd=_write(tmp_path, "regions.py", text),
                           check=False)
    probed = probed_run(tmp_path / "regions.py", text)
    assert probed.stdout == plain.stdout and probed.stderr == plain.stderr and probed.returncode == 1
    record = probed.statement
    assert record is not None and record["op"] == "Subscript"
    table = record["reads"]["REGION_MANAGERS"]
    assert table["type"] == "builtins.dict" and table["len"] == 3
    assert record["operands"]["slice"]["value"] == "west"
    assert record["params"]["region"]["value"] == "west"
    # the slip the rule is for: the same line, the same KeyError, the table emptied through its variable
    emptied = probed_run(tmp_path / "emptied.py", REGIONS_EMPTIED)
    assert b"KeyError: 'west'" in emptied.stderr
    assert "reads.REGION_MANAGERS.len" in differences(record, emptied.statement)
    # and through a literal in the variable's place
    literal = probed_run(tmp_path / "literal.py", 'manager = {}["west"]\n')
    assert "operands.Subscript.value.len" in differences(record, literal.statement)
    rule = StatementRule(record, frozenset())
    assert not rule.accepts(emptied.statement, None) and not rule.accepts(literal.statement, None)
    assert rule.accepts(probed_run(tmp_path / "again.py", text).statement, None)


def _write(folder, name, text):
    (folder / name).write_text(text)
    return folder


@pytest.mark.slow
def test_a_lookup_table_keeps_its_entries(program, tmp_path, no_leftovers):
    path = program("regions.py")
    summary, _ = reduce(path, "KeyError")
    assert summary.verified, summary.describe()
    assert "the failing statement's operands" in summary.rule
    assert summary.final_failure_line == "KeyError: 'west'"
    tables = [node for node in ast.walk(ast.parse(summary.text)) if isinstance(node, ast.Dict)]
    assert any({"north", "south", "east"} <= {k.value for k in t.keys if isinstance(k, ast.Constant)} for t in tables), \
        summary.text
    assert "KeyError: 'west'" in standalone(tmp_path, summary.text)


@pytest.mark.slow
def test_a_dataclass_keeps_its_field_types(program, tmp_path):
    path = program("invoices.py")
    summary, _ = reduce(path, "has no attribute")
    assert summary.verified, summary.describe()
    assert summary.final_failure_line == "AttributeError: 'Order' object has no attribute 'shipping'"
    calls = {node.func.id: node for node in ast.walk(ast.parse(summary.text))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    order = calls.get("Order")
    assert order is not None, summary.text
    order_id, customer = order.args[:2]
    assert isinstance(order_id, ast.Constant) and order_id.value == 1001, summary.text  # the user's int
    assert isinstance(customer, ast.Call) and getattr(customer.func, "id", None) == "Customer", summary.text
    assert "has no attribute 'shipping'" in standalone(tmp_path, summary.text)


@pytest.mark.slow
def test_a_kernel_is_not_fed_a_namespace_and_keeps_the_users_numbers(program, tmp_path):
    pytest.importorskip("torch")
    path = program("attention.py")
    text = path.read_text()
    # the slip the issue saw: the kernel's own check fails the same way with `args` where its tensors were
    original = probed_run(tmp_path / "original.py", text).statement
    assert original is not None and original["params"]["q"]["shape"] == [2, 4, 128, 96]
    slipped_text = text.replace("attention_fwd(q, k, v, args.block_m,", "attention_fwd(args, args, args, 0,")
    slipped = probed_run(tmp_path / "slipped.py", slipped_text)
    assert b"ValueError: head dim 96 is not a multiple of block_n=64" in slipped.stderr
    assert {"params.q.type", "params.block_m.value"} <= set(differences(original, slipped.statement))
    assert not StatementRule(original, frozenset()).accepts(slipped.statement, None)
    # the reduction keeps the check that raises, and the numbers it compares
    summary, _ = reduce(path, "is not a multiple", timeout=60)
    assert summary.verified, summary.describe()
    assert summary.final_failure_line == "ValueError: head dim 96 is not a multiple of block_n=64"
    assert "dim % block_n != 0" in summary.text, summary.text
    record = probed_run(tmp_path / "result.py", summary.text).statement
    assert record is not None and not differences(original, record)
    assert "Namespace" not in str(record)


OWN_CHECK = '''\
import datetime


def weekday_name(day, month, year):
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    expected = datetime.date(year, month, day).weekday()
    if month < 3:
        month += 12
        year -= 1
    k, j = year % 100, year // 100
    h = (day + 13 * (month + 1) // 5 + k + k // 4 + 5 + 6 * j) % 7  # Zeller's, Julian calendar: 0 is Saturday
    computed = (h + 5) % 7
    if computed != expected:
        raise AssertionError(f"evaluated incorrectly: {names[computed]} instead of {names[expected]}")
    return names[computed]


print(weekday_name(15, 1, 1000))
'''


@pytest.mark.slow
def test_the_programs_own_check_keeps_its_guard(program, tmp_path):
    """A program that raises its failure itself keeps the `if` that decides to raise."""
    path = program("weekday.py", OWN_CHECK)
    summary, _ = reduce(path, "evaluated incorrectly")
    assert summary.verified, summary.describe()
    assert "if computed != expected:" in summary.text, summary.text
    tree = ast.parse(summary.text)
    guard = next(n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test) == "computed != expected")
    assert isinstance(guard.body[0], ast.Raise)
    assert "datetime.date(" in summary.text and "1000" in summary.text  # what it compares with, from the user's date
    assert "evaluated incorrectly" in standalone(tmp_path, summary.text)


ASSERT_WITH_MESSAGE = '''def increasing_tail(values):
    """The longest increasing run that starts after the first drop (a buggy filter)."""
    best = []
    pivot = values[0]
    for i in range(1, len(values)):
        if values[i] < pivot:
            tail = [v for v in values[i:] if v >= values[i]]
            if len(tail) > len(best):
                best = tail
            break
    return best


assert increasing_tail([28, 26, 12, 23, 35, 39]) == [12, 23, 35, 39], increasing_tail([28, 26, 12, 23, 35, 39])
'''


@pytest.mark.slow
def test_the_programs_own_assert_keeps_its_message(program, tmp_path):
    """`AssertionError: [26, 35, 39]` is what the user's message computed from the user's input;
    left free, the message became `increasing_tail([1, 26, 35, 39])` and the function lost its
    filter (`if v`), the same text from another computation."""
    path = program("tail.py", ASSERT_WITH_MESSAGE)
    summary, _ = reduce(path, "AssertionError: [26, 35, 39]")
    assert summary.verified, summary.describe()
    assert ", increasing_tail([28, 26, 12, 23, 35, 39])\n" in summary.text, summary.text
    assert "v >= values[i]" in summary.text, summary.text  # the buggy filter
    assert "AssertionError: [26, 35, 39]" in standalone(tmp_path, summary.text)


@pytest.mark.slow
@pytest.mark.parametrize("driver", [
    "result = increasing_tail([28, 26, 12, 23, 35, 39])\n",
    "data = [28, 26, 12, 23, 35, 39]\nresult = increasing_tail(data)\n",
])
def test_the_call_that_computed_what_the_assert_reads_stays_with_the_users_numbers(program, tmp_path, driver):
    """The same bug, the way a script is usually written: `result = increasing_tail([...])` (or its
    data in a name first), then `assert result == ..., result`. Left free, the call went (inlined,
    its list shrunk to `[1, 26, 35, 39]`), or the data shrank to `data = [1, 26, 35, 39]`, and the
    message came from another computation, the buggy filter gone; the call that computed what the
    assert reads stays now, with the user's numbers (`protection._producers`)."""
    text = ASSERT_WITH_MESSAGE.replace(
        "assert increasing_tail([28, 26, 12, 23, 35, 39]) == [12, 23, 35, 39], increasing_tail([28, 26, 12, 23, 35, 39])",
        "print('tails of the readings')\n" + driver + "assert result == [12, 23, 35, 39], result")
    path = program("tail.py", text)
    summary, _ = reduce(path, "AssertionError: [26, 35, 39]")
    assert summary.verified, summary.describe()
    assert driver in summary.text, summary.text  # the call and its data as the user wrote them
    assert "def increasing_tail(" in summary.text and "print(" not in summary.text, summary.text
    assert "v >= values[i]" in summary.text, summary.text  # the buggy filter
    assert "AssertionError: [26, 35, 39]" in standalone(tmp_path, summary.text)


@pytest.mark.slow
def test_an_ordinary_reduction_stays_small(tmp_path):
    """The quick benchmark case (its failure raised by the program's own check, deep inside): the rules
    reject only what they are for, the result stays within 1.3x of its size before them (73 nodes,
    benchmarks/latest/results.md), now with the whole check that raises (`total != expected`)."""
    from benchmarks.corpus.build_quick_case import ERR_MSG, write_case

    path = write_case(tmp_path)
    summary, _ = reduce(path, ERR_MSG)
    assert summary.verified, summary.describe()
    assert "the failing statement's operands" in summary.rule
    assert "total != expected" in summary.text, summary.text
    assert count_nodes(ast.parse(summary.text)) <= 1.3 * 73, summary.text


@pytest.mark.slow
def test_an_embedding_keeps_the_width_the_user_got_wrong(program, tmp_path):
    """The bigram model's table is one row short of its vocabulary: `nn.Embedding(1, 1)` fed a
    `torch.zeros((1, 2))` raises the same IndexError and hides that mistake."""
    pytest.importorskip("torch")
    path = program("bigram.py")
    original = probed_run(tmp_path / "original.py", path.read_text()).statement
    table = original["operands"]["func"]["fields"]
    assert (table["num_embeddings"]["value"], table["embedding_dim"]["value"]) == (23, 24)
    hidden = probed_run(tmp_path / "hidden.py", "import torch\nimport torch.nn as nn\n\n\n"
                        "logits = nn.Embedding(1, 1)(torch.zeros((1, 2), dtype=torch.long) + 1)\n")
    assert b"IndexError: index out of range in self" in hidden.stderr
    assert not StatementRule(original, frozenset()).accepts(hidden.statement, None)
    summary, _ = reduce(path, "index out of range", timeout=60)
    assert summary.verified, summary.describe()
    record = probed_run(tmp_path / "result.py", summary.text).statement
    assert record is not None
    widths = set(_found(record, "num_embeddings"))
    assert widths == {23}, summary.text  # the user's table, one row short of 24


def _found(record, name):
    """Every value of the field `name` anywhere in a record."""
    if isinstance(record, dict):
        for key, value in record.items():
            if key == name and isinstance(value, dict):
                yield value.get("value")
            else:
                yield from _found(value, name)
    elif isinstance(record, list):
        for item in record:
            yield from _found(item, name)


NESTED_CHECK = '''\
def network(text, strict=True):
    address, prefix = text.split("/")
    packed = sum(int(part) << (8 * (3 - i)) for i, part in enumerate(address.split(".")))
    mask = (0xFFFFFFFF << (32 - int(prefix))) & 0xFFFFFFFF
    if packed & mask != packed:
        if strict:
            raise ValueError(f"{text} has host bits set")
        packed &= mask
    return packed, mask


plan = {"office": "10.20.10.0/24", "gateway": "10.20.10.1/24"}
for name, value in plan.items():
    print(name, network(value))
'''


@pytest.mark.slow
def test_the_ifs_around_the_programs_own_check_keep_their_tests(program, tmp_path):
    """`if packed & mask != packed: if strict: raise ...`: protecting `strict` alone let the
    reduction drop the host-bits test and keep a raise that fires for every address."""
    path = program("hostbits.py", NESTED_CHECK)
    summary, _ = reduce(path, "has host bits set")
    assert summary.verified, summary.describe()
    tests = {ast.unparse(n.test) for n in ast.walk(ast.parse(summary.text)) if isinstance(n, ast.If)}
    assert {"packed & mask != packed", "strict"} <= tests, summary.text
    assert "10.20.10.1/24" in summary.text
    assert "has host bits set" in standalone(tmp_path, summary.text)


ROTATION = '''\
class Node:
    def __init__(self, data):
        self.data = data
        self.right = None


def rotate(node):
    right_child = node.right
    assert right_child is not None


root = Node(7)
rotate(root)
'''

# the failing function inlined into its caller: the same line fails the same way, the node is a stand-in
ROTATION_INLINED = '''\
class Node:
    right = None


right_child = Node().right
assert right_child is not None
'''


@pytest.mark.slow
def test_an_object_the_failing_function_was_given_stays_its_parameter(tmp_path):
    original = probed_run(tmp_path / "rotation.py", ROTATION).statement
    assert original is not None and original["flows"] == ["node"]  # read through `right_child = node.right`
    assert held_parameters(original) == {"node"}
    rule = StatementRule(original, frozenset())
    inlined = probed_run(tmp_path / "inlined.py", ROTATION_INLINED).statement
    assert not differences(original, inlined)  # what the old rule compared agrees
    assert not rule.accepts(inlined, None)
    assert rule.accepts(probed_run(tmp_path / "again.py", ROTATION.replace("Node(7)", "Node(7)  # kept")).statement, None)
    assert not rule.accepts(probed_run(tmp_path / "other.py", ROTATION.replace("Node(7)", "Node(8)")).statement, None)


CONFIG_MODULE = """from dataclasses import dataclass


@dataclass
class Config:
    vocab: int = 1000
    width: int = 8


class Rows:
    def __init__(self, count, width):
        self.rows = [[0.0] * width for _ in range(count)]


class Model:
    def __init__(self, config):
        self.config = config
        self.table = Rows(config.vocab, config.width)

    def forward(self, ids):
        return [self.table.rows[i] for i in ids]
"""

TRAINING_SCRIPT = """from model import Config, Model


def batches(tokens, size):
    for start in range(0, len(tokens), size):
        yield [t / 1 for t in tokens[start:start + size]]


model = Model(Config(vocab=26, width=4))
for batch in batches(list(range(20)), 5):
    print(model.forward(batch))
"""


@pytest.mark.slow
def test_a_module_s_failing_statement_keeps_what_it_read_before_the_module_is_inlined(tmp_path, no_leftovers):
    """A script and its `model.py`, reduced with the module imported first (then inlined): the
    table the module's failing statement reads has the user's 26 rows, and the batch the script
    passes its 5 floats. Before, only the script's call was recorded, which sees the model one
    level deep: `vocab=26` went to the default (a table of 1,000 rows), as nanoGPT's
    `GPTConfig(vocab_size=26, n_embd=128)` became `nn.Embedding(50304, 768)`."""
    (tmp_path / "model.py").write_text(CONFIG_MODULE)
    path = tmp_path / "train.py"
    path.write_text(TRAINING_SCRIPT)
    summary, _ = reduce(path, "list indices must be integers")
    assert summary.verified, summary.describe()
    assert "26" in summary.text and "1000" not in summary.text, summary.text
    # the floats reach forward: through the user's batching, or (the route pass) as its recorded batch
    assert "[t / 1 for t in tokens[0:5]]" in summary.text or re.search(r"\.forward\(\[0\.0[,\]]", summary.text), \
        summary.text


def test_what_differs_between_two_runs_is_named_with_its_module():
    """The note names the operands that differ, a module's with the module's file."""
    varying = frozenset({"reads.seed.value", "module.reads.seen.value", "module.params.period.value"})
    note = varying_note(varying, "flakylib.py")
    assert "(seed; period, seen in flakylib.py)" in note, note
    assert "(some operands)" in varying_note(frozenset({"operands.Call.args.0.value"}))
    assert varying_note(frozenset()) == ""
