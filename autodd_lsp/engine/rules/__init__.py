"""The rules a candidate is judged by, and what must stay (above `spec`).

Whether a run is still the user's failure (`judge.py`, composing the oracle's rules), frozen
code that must run (`frozen_probe.py`) and must not be edited (`protection.py`), the
failure's operands probed and compared (`operand_probe.py`, `operand_rule.py`), no file an
earlier run wrote (`earlier_files.py`), the seeding calls a failure depends on
(`seeds.py`), and saying early why nothing fails the same way (`no_match.py`).

Contract: functions of a text, a run's output and the original's records; nothing here
starts a program (the rooms above run what these rules ask for).
"""
