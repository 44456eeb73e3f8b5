"""Values the original program had: recorded in one extra run, offered to the passes.

A reducer that may only shrink (numbers to 0, strings to "", calls to their
callee) keeps the message with values no real program has. This package runs
the original once more with its expressions instrumented (`execution/record_main.py`, a
standalone script; `execution/recording.py` runs it), and gives the passes what each expression evaluated to
(`RecordedValues`, looked up through where the current text came from, see
`syntax/origin.py`): `cfg.block_K` may become `32`, never `0`; a call whose
value was an instance never becomes the class.
"""

from autodd_lsp.values.recorded import Recorded, RecordedValues, ValueLookup

__all__ = ["Recorded", "RecordedValues", "ValueLookup"]
