"""Options shared by every front end; defaults are the CLI's."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field

from autodd_lsp.engine.errors import UsageError
from autodd_lsp.engine.failure_spec import FailureSpec
from autodd_lsp.engine.flaky import MAX_REPEAT
from autodd_lsp.engine.pytest_target import check_test_id
from autodd_lsp.execution.gpus import parse_gpus

BACKENDS = ("runner", "subproc", "ray")
# How a candidate must fail to count as the same failure (see notes/oracle.md):
# "same": the original's failure line, from the same place, frozen code run;
# "substring": the message anywhere in the output (the loose rule).
MATCH_RULES = ("same", "substring")


@dataclass(frozen=True)
class ReduceOptions:
    # The failure to keep: `failure` (any kind, see failure_spec.py) or, the older way,
    # `err_msg` (the message kind). Exactly one of the two; `spec` is the one given.
    err_msg: str = ""
    backend: str = "runner"
    timeout: float = 60.0  # seconds, the most any one candidate may run
    # Candidates run at once; None: one per GPU given (`gpus`), with `ray` one per slot of
    # the cluster (resolved when the run connects), else 1.
    jobs: int | None = None
    python: str = field(default_factory=lambda: sys.executable)  # interpreter that runs candidates
    cwd: str | None = None  # working directory of candidates; None: the caller's
    output_limit: int = 8 * 1024 * 1024  # bytes kept per stream (head and tail)
    match: str = "same"  # one of MATCH_RULES
    inline_modules: bool = True  # write the program's own modules into the reproducer (autodd_lsp.inlining)
    # Runs of the original that measure its failure rate (engine/flaky.py); 0: automatic
    # (two runs; flaky.DEFAULT_RUNS when they disagree).
    repeat: int = 0
    failure: FailureSpec | None = None
    # A pytest test in the source file to reduce instead of running the file as a script: its node
    # id inside the file ("test_x", "test_x[64-float16]", "TestK::test_x"); see engine/pytest_target.py.
    test: str = ""
    # GPUs the local backends pin, one per running program (execution/gpus.py): "" none,
    # "auto" (those CUDA_VISIBLE_DEVICES or the driver shows), or ids "0,1,3".
    gpus: str = ""
    # The Ray cluster of `backend="ray"` (execution/ray_backend.py); "": RAY_ADDRESS, else a local one.
    ray_address: str = ""
    gpu_ids: tuple[str, ...] = field(init=False, default=(), compare=False, repr=False)
    _gpu_problem: str = field(init=False, default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        ids: tuple[str, ...] = ()
        problem = ""
        if self.gpus:
            try:
                ids = tuple(parse_gpus(self.gpus))
            except ValueError as error:
                problem = str(error)
        object.__setattr__(self, "gpu_ids", ids)
        object.__setattr__(self, "_gpu_problem", problem)
        if self.jobs is None and self.backend != "ray":
            object.__setattr__(self, "jobs", len(ids) or 1)

    @property
    def spec(self) -> FailureSpec:
        """The failure to keep."""
        return self.failure if self.failure is not None else FailureSpec.message(self.err_msg)

    def validate(self) -> None:
        """Raise UsageError (one line, for the user) if an option cannot work."""
        if self.failure is not None and self.err_msg:
            raise UsageError("give the failure to keep once: an error message or another kind, not both")
        self.spec.validate()
        if self.backend not in BACKENDS:
            raise UsageError(f"unknown backend {self.backend!r} (choose from {', '.join(BACKENDS)})")
        if not self.timeout > 0:
            raise UsageError(f"--timeout must be a positive number of seconds, got {self.timeout}")
        if self.match not in MATCH_RULES:
            raise UsageError(f"unknown match rule {self.match!r} (choose from {', '.join(MATCH_RULES)})")
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or not (
            self.repeat == 0 or 2 <= self.repeat <= MAX_REPEAT
        ):
            raise UsageError(
                f"--repeat must be 0 (automatic) or a number of runs from 2 to {MAX_REPEAT}, got {self.repeat}"
            )
        if self.test:
            check_test_id(self.test)
            if self.backend == "ray":
                raise UsageError("a pytest test reduces with the local backends (runner, subproc); "
                                 "--backend ray runs scripts")
            if self.spec.kind == "exit-code":
                raise UsageError("--exit-code cannot be kept for a pytest test (pytest exits with 1 for any failed "
                                 "test): give its message with --err-msg or --err-regex")
        if self.jobs is not None and self.jobs < 1:
            raise UsageError(f"-j/--jobs must be at least 1, got {self.jobs}")
        if self._gpu_problem:
            raise UsageError(self._gpu_problem)
        if self.gpus and self.backend == "ray":
            raise UsageError("--gpus is for the local backends; with --backend ray each candidate gets one "
                             "of the cluster's GPUs by itself")
        if self.gpu_ids and self.jobs is not None and self.jobs > len(self.gpu_ids):
            raise UsageError(f"-j {self.jobs} needs {self.jobs} GPUs, --gpus gives {len(self.gpu_ids)} "
                             "(each running candidate has a GPU of its own)")
        if self.ray_address and self.backend != "ray":
            raise UsageError("--ray-address is for --backend ray")
        if self.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise UsageError("--backend ray needs Ray: pip install 'autodd-lsp[ray]'")
