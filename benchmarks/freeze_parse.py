"""How long `parse_freeze` takes on an annotated 2,000-line file, the way an editor calls it.

    python benchmarks/freeze_parse.py

The file is the plain-Python corpus program repeated (functions renamed) up
to 2,000 lines, with a `# autodd: freeze` on every 25th one-line statement and one
freeze block. Timings are the median of many calls; each "edit" call parses a
text the parser has not seen, as after a keystroke.
"""

from __future__ import annotations

import ast
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from autodd_lsp.freeze import chunked_source as freeze_source
from autodd_lsp.freeze import parse_freeze
from autodd_lsp.freeze.incremental import ChunkParser

CORPUS = Path(__file__).parent / "corpus" / "plain_python.py"
LINES = 2000


def annotated_file(lines: int = LINES) -> str:
    program = CORPUS.read_text()
    copies = [program.replace("def ", f"def v{i}_") for i in range(lines // program.count("\n") + 1)]
    text = "\n".join(copies).split("\n")[:lines]
    one_line = sorted(
        {node.lineno - 1 for node in ast.walk(ast.parse("\n".join(text))) if isinstance(node, ast.stmt)}
        & {(node.end_lineno or node.lineno) - 1 for node in ast.walk(ast.parse("\n".join(text))) if isinstance(node, ast.stmt)}
    )
    for number in one_line[::25]:
        text[number] += "  # autodd: freeze"
    top_level = [n for n, line in enumerate(text) if line.startswith("def ")]
    text.insert(top_level[3], "# autodd: freeze-start")
    text.insert(top_level[5] + 1, "# autodd: end-freeze")
    result = "\n".join(text[:lines])
    ast.parse(result)  # the cut must leave a valid program
    return result


def median_ms(call: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    text = annotated_file()
    lines = text.split("\n")
    rng = random.Random(0)
    counter = iter(range(10**9))

    def first_open() -> None:
        freeze_source._CHUNKS = ChunkParser(freeze_source.parse_python)  # nothing remembered
        parse_freeze(text + f"\n# {next(counter)}")

    def edited(change: Callable[[list[str], int], None]) -> Callable[[], None]:
        def call() -> None:
            copy = lines[:]
            change(copy, rng.randrange(len(copy)))
            parse_freeze("\n".join(copy))

        return call

    def type_on_line(copy: list[str], index: int) -> None:
        copy[index] += f"  # typed {next(counter)}"

    def insert_line(copy: list[str], index: int) -> None:
        copy.insert(index, f"# new line {next(counter)}")

    def break_syntax(copy: list[str], index: int) -> None:
        copy[index] += f" ({next(counter)}"

    info = parse_freeze(text)
    print(f"{len(lines)} lines, {len(info.regions)} frozen regions, {len(info.problems)} problems")
    print(f"ast.parse of the whole text     {median_ms(lambda: ast.parse(text), 20):6.1f} ms")
    print(f"parse_freeze, text first seen   {median_ms(first_open, 10):6.1f} ms")
    parse_freeze(text)
    print(f"parse_freeze, a line edited     {median_ms(edited(type_on_line), 100):6.1f} ms")
    print(f"parse_freeze, a line inserted   {median_ms(edited(insert_line), 100):6.1f} ms")
    print(f"parse_freeze, syntax broken     {median_ms(edited(break_syntax), 100):6.1f} ms")


if __name__ == "__main__":
    main()
