"""One candidate, start to finish: cached, compiled, written to its slot, run, judged (above `rules`).

`candidates.py` (`CandidateTester`) tries one text: cheap checks first (size, the content
cache, `compiler.py`'s per-chunk compile), then a real run in a job slot beside the source
(`slots.py`), run until a stopping rule decides (`verdict.py`, the one loop for it), on a
permit (`permits.py`), or taken from a run that went ahead of its search (`ahead.py`);
every run sees the folders as the user had them (`clean_runs.py`, `folder_claim.py`); your
check runs where the candidate is the file (`mirror.py`: a slot per mirror of its folder); works
with A, fails with B runs the passing side too (`passing_side.py`).

Contract: a verdict depends on the text alone (the cache, the runs ahead and `-j N` rely on
it); this room knows nothing of passes or of the search that asks.
"""
