"""Many units (a data file's rows, lines, characters), few of them needed: blocks, then smaller blocks.

`keep_fewer(count, keeps, budget)` returns the indices of the units to keep
(ascending). It cuts the units into at most `BLOCKS` contiguous blocks and runs
`Halves` over them (all blocks dropped at once, then by halves, down to single
blocks); then cuts what is left into smaller blocks and goes on, down to single
units, until a level drops nothing new at one unit a block or `budget` tries
are spent. `keeps(kept)` is asked of candidate subsets (it runs the program);
the given units are assumed to keep the failure. A need of n units anywhere costs
about 2 log2(BLOCKS) tries a level for each block that holds one; a file whose
failure needs a few rows is cut in a few dozen tries, one that needs many stops
at its budget with the blocks found so far. Knows nothing of formats or Python.
"""

from __future__ import annotations

from collections.abc import Callable

from autodd_lsp.search.halves import Halves

BLOCKS = 16


def keep_fewer(
    count: int, keeps: Callable[[list[int]], bool], budget: int
) -> tuple[list[int], int]:
    """The units to keep, and the tries spent (see the module docstring)."""
    alive = list(range(count))
    tries = 0
    size = max(1, -(-count // BLOCKS))
    while alive and tries < budget:
        blocks = [alive[i : i + size] for i in range(0, len(alive), size)]
        strategy = Halves(len(blocks))
        while tries < budget:
            subset = strategy.propose()
            if subset is None:
                break
            dropped = {i for b in (*strategy.applied, *subset) for i in blocks[b]}
            kept = [i for i in alive if i not in dropped]
            tries += 1
            strategy.feedback(subset, keeps(kept))
        gone = {i for b in strategy.applied for i in blocks[b]}
        alive = [i for i in alive if i not in gone]
        if size == 1:
            break
        size = max(1, size // 4) if gone else max(1, size // 8)
    return alive, tries
