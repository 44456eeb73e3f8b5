"""The reduction engine: the one library that the CLI and the language server drive.

    from autodd_lsp.engine import Reduction, ReduceOptions

    reduction = Reduction(source_text, source_path, ReduceOptions(err_msg="..."), listener)
    summary = reduction.run()      # blocking; call reduction.cancel() from any thread to stop

    # a failure without a message: ReduceOptions(failure=FailureSpec.crash("SIGSEGV")),
    # FailureSpec.exit_code(3), FailureSpec.hang(), FailureSpec.regex("K_A = [0-9]+")
    # how to run it: ReduceOptions(..., backend="subproc", timeout=10, jobs=4, gpus="auto");
    # those are RunOptions (engine/lifecycle/options.py), which is all that a trial run (engine/asking/trial.py) takes

    # a failing pytest test: SOURCE "tests/test_k.py::test_x[64-float16]"
    path, test = split_source(source)          # UsageError for a bad node id
    Reduction(read(path), path, ReduceOptions(err_msg="...", test=test), listener)

    # a plain Python predicate instead of runs (the library API, engine/lifecycle/library.py):
    small = minimize(source_text, lambda text: "boom" in text)

`run()` first checks that the original reproduces (raises NotReproducible with
the tail of its output otherwise), then shrinks, emitting events (see
`autodd_lsp.engine.lifecycle.events`) to `listener`, and returns the `Summary` (also on
cancel: `summary.cancelled`, with the best text so far). Bad input raises
UsageError from the constructor. The engine knows nothing about its front ends.

This module is the whole API the front ends use (tests/test_layout.py checks that
they import nothing else of the engine, nor the execution layer): besides the
above, the failure question (`ask_failure`: one trial run of a program and the
failures it shows, `question.py`), the option metadata the CLI's flags and the
server's settings are built from (`engine_options`), the person in the loop's answers
(`person`: `Kept`, `without_line`), `CancelEvent` (the cancel flag a front end hands
to `ask_failure` and `try_text`) and `output_tail` (the end of an output, for a person).
"""

from autodd_lsp.engine.asking.question import FailureQuestion, ask_failure
from autodd_lsp.engine.lifecycle.events import (
    Accepted,
    DataFile,
    Event,
    Failed,
    Finished,
    Notice,
    PassStarted,
    Progress,
    Size,
    Started,
    Stats,
    Summary,
)
from autodd_lsp.engine.lifecycle.library import minimize
from autodd_lsp.engine.lifecycle.options import (
    BACKENDS,
    MATCH_RULES,
    EngineOption,
    OptionError,
    ReduceOptions,
    RunOptions,
    engine_options,
)
from autodd_lsp.engine.lifecycle.reduction import Reduction
from autodd_lsp.engine.person.person import FAILURE_GONE, Kept, without_line
from autodd_lsp.engine.spec.errors import NotReproducible, UsageError
from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.engine.spec.flaky import FailureRate
from autodd_lsp.engine.spec.pytest_target import PytestTest, split_source
from autodd_lsp.execution import CancelEvent
from autodd_lsp.kinds.signature import output_tail

__all__ = [
    "BACKENDS",
    "FAILURE_GONE",
    "MATCH_RULES",
    "Accepted",
    "CancelEvent",
    "DataFile",
    "EngineOption",
    "Event",
    "Failed",
    "FailureQuestion",
    "FailureRate",
    "FailureSpec",
    "Finished",
    "Kept",
    "NotReproducible",
    "Notice",
    "OptionError",
    "PassStarted",
    "Progress",
    "PytestTest",
    "ReduceOptions",
    "Reduction",
    "RunOptions",
    "Size",
    "Started",
    "Stats",
    "Summary",
    "UsageError",
    "ask_failure",
    "engine_options",
    "minimize",
    "output_tail",
    "split_source",
    "without_line",
]
