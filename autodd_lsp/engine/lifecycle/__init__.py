"""A reduction's life, from the options to the final check (above `searching` and `person`).

`reduction.py` (`Reduction`, the facade) holds one run together: its options
(`options.py`, the one home of every setting's default, rule and help), the original's
checks (`original.py`), the inlining swap (`inlined.py`), values recorded in the background
(`value_recorder.py`), the parts wired together for the fixpoint (`session.py`), the final
check in a fresh interpreter (`verify.py`), its texts (`texts.py`), its events
(`events.py`, frozen dataclasses) and their reporter (`reporter.py`), and its scratch folder
(`run_scratch.py`). `library.py` is the same search against a plain Python predicate.

Contract: the front ends reach this room only through `autodd_lsp.engine`'s exports.
"""
