"""A plain-Python case whose every run takes well under a millisecond.

It measures the engine's own cost per candidate: with nothing to wait for,
candidates per second is what the reducer can do. The program (~400 lines) is
generated: a dozen kinds of small helpers (loops, branches, classes, dict and
string work), a pipeline calling them, and a checksum step deep inside that
raises only for one input.
"""

from __future__ import annotations

from pathlib import Path

ERR_MSG = "checksum mismatch for record 17: expected 2, got 4"

_HELPERS = [
    '''def scale_{i}(values, factor={i}):
    """Multiply every value; keep the sign."""
    out = []
    for value in values:
        out.append(value * factor if value >= 0 else -abs(value) * factor)
    return out
''',
    '''def clamp_{i}(value, low=0, high={hi}):
    if value < low:
        return low
    elif value > high:
        return high
    return value
''',
    '''class Counter{i}:
    def __init__(self, start={i}):
        self.count = start
        self.history = []

    def bump(self, amount=1):
        self.history.append(amount)
        self.count += amount
        return self.count
''',
    '''def tokens_{i}(text):
    words = [word.strip(".,") for word in text.split() if word]
    return {{word: len(word) + {i} for word in words}}
''',
    '''def merge_{i}(left, right):
    merged = dict(left)
    for key, value in right.items():
        merged[key] = merged.get(key, 0) + value
    return merged
''',
    '''def label_{i}(number):
    try:
        return "item-%03d" % (number + {i})
    except TypeError:
        return "item-???"
''',
]


def _program(helpers: int = 36) -> str:
    parts = ['"""Record pipeline: scale, clamp, count and checksum records."""\n\nimport math\n\n']
    for i in range(helpers):
        parts.append(_HELPERS[i % len(_HELPERS)].format(i=i, hi=10 * i + 5) + "\n\n")
    parts.append(
        '''def checksum(record_id, values):
    total = sum(values) % 7
    expected = (record_id * 3) % 7
    if record_id == 17 and total != expected:
        raise ValueError(f"checksum mismatch for record {record_id}: expected {expected}, got {total}")
    return total


def process(record_id, values):
'''
    )
    for i in range(0, helpers, len(_HELPERS)):
        parts.append(
            f"""    values = scale_{i}(values, factor=1)
    values = [clamp_{i + 1}(v, high=1000) for v in values]
    counter = Counter{i + 2}(start=0)
    counter.bump(len(values))
    names = tokens_{i + 3}("alpha beta gamma")
    names = merge_{i + 4}(names, {{"alpha": {i}}})
    tag = label_{i + 5}(record_id)
"""
        )
    parts.append(
        """    return checksum(record_id, values)


RECORDS = [(n, [n, n + 1, (n * n) % 5]) for n in range(20)]
results = {}
for record_id, values in RECORDS:
    results[record_id] = process(record_id, values)
print(len(results), "records")
"""
    )
    return "".join(parts)


def write_case(folder: Path) -> Path:
    target = folder / "quick_python.py"
    target.write_text(_program())
    return target
