"""The search over the program: pass groups looped to a fixpoint (above `candidate`).

`fixpoint.py` runs the registered passes' groups in order until a whole cycle changes
nothing; `pass_search.py` searches one pass's edits (with `autodd_lsp.search`'s ProbDD);
`memory.py` remembers the edits found needed and when they are new again; the original's
run as a map (`run_map.py`: code never run first) and the failing statement's slice
(`run_slice.py`) order the proposals; `best_run.py` reads the removals the best text's own
run refused; `lookahead.py` predicts the next searches so that their candidates run on idle
jobs.

Contract: decisions are taken in proposal order whatever the number of jobs, so the output
is the same for every `-j`; every accepted text is judged by a run (`candidate`).
"""
