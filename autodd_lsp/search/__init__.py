"""Search strategies: which edits to try together, and in what order.

A strategy is a small deterministic state machine over edit indices:
`propose()` names the next subset to try, `feedback()` says how it went (`ProbDD`; `Halves`: a group the caller
expects to go together, all at once, then by halves).
`driver.search` runs one strategy with N candidates in flight at once while
keeping the sequential strategy's decisions (so the result is the same at any -j);
`regions.search_regions` runs one strategy per independent region of the
program as parallel chains and merges what they found (the same at any -j too).
"""

from autodd_lsp.search.driver import Chain, Strategy, search, search_chains
from autodd_lsp.search.halves import Halves
from autodd_lsp.search.probdd import ProbDD
from autodd_lsp.search.regions import RegionOutcome, regions_of, search_regions

__all__ = ["Chain", "Halves", "ProbDD", "RegionOutcome", "Strategy", "regions_of", "search", "search_chains", "search_regions"]
