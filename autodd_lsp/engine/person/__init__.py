"""The person in the loop (above `candidate`): texts a person offers during a run, and
afterwards what the removal of each kept line did (`person.py`).

Contract: a person's text is judged by the run's own oracle like any candidate; what the
run learned per line is read without running user code; knows nothing of editors.
"""
