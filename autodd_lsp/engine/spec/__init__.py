"""What a reduction is asked to keep, in the engine's own words (the bottom room).

The failure to keep (`failure_spec.py`: a kind of failure and its value, through the
registry in `autodd_lsp.kinds`), a failing pytest test as the thing to reduce
(`pytest_target.py`), how often an intermittent failure shows and the test that judges a
candidate by that rate (`flaky.py`), and the one-line errors every room raises to a person
(`errors.py`).

Contract: pure data and arithmetic; nothing here runs a program or imports another room.
"""
