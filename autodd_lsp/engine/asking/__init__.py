"""Before a reduction, when no failure was given (the top room): the trial run and the question.

One run of the program outside any reduction (`trial.py`), the failures it shows for a
person to pick one (`question.py`, as both front ends offer them), and a missing top-level
import said to be the environment, not a bug to reduce (`environment.py`).

Contract: runs the program once, on a person's explicit act; reduces nothing.
"""
