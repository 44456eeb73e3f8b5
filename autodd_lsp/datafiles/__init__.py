"""Data files cut into units: the files a program reads, made smaller the way their format allows.

Pure: no process, no run, no judge. `cuts.steps_for(name, data)` says how a file
of that format is cut: a list of steps (`Step`), each of which looks at the file's
current bytes and offers its units (`Cut`: how many, and the bytes with only some
of them kept). The engine (`engine/lifecycle/data_files.py`) searches each step's
units with the same format-agnostic strategy as a program's edits
(`autodd_lsp.search.Halves`) and keeps what fails the same way. `inline.written_in`
writes a small cut file into the program where it opened it (`io.StringIO`). See
notes/data.md.
"""

from autodd_lsp.datafiles.cuts import (
    Cut,
    Step,
    left_alone,
    shared_columns,
    split_files,
    steps_for,
)

__all__ = ["Cut", "Step", "left_alone", "shared_columns", "split_files", "steps_for"]
