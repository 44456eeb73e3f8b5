"""The engine's options model: the one home of every run setting's default, rule and help.

Two layers, because two things are asked of the engine:

* `RunOptions`: how to run the program (backend, timeout, jobs, interpreter, folder, GPUs, a
  cluster, a pytest test). One trial run (`engine/asking/trial.py`, when a person asks what the
  program prints) needs only this.
* `ReduceOptions(RunOptions)`: a reduction, which also needs the failure to keep and how to
  judge it (match rule, repeats, inlining).

Each field's metadata (`option(...)`) names its command-line flag, its server setting and
carries its help; `engine_options()` reads them with each field's type and default, and both
front ends derive from that list: the CLI's flags (`cli/arguments.py`: argparse's flags, types,
choices, defaults and help) and the server's settings (`server/request.py`: its keys, types,
defaults). A new option is one field here (and, when the editor shows it, its entry in
package.json and settings.ts, which `tests/server/test_settings_schema.py` checks). `validate()` raises
`OptionError`, a `UsageError` that says which field is wrong, so each front end names it in its
own words: the CLI by its flag (`--timeout`), the server by its setting (`timeout`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
import typing
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from typing import Any

from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.engine.spec.flaky import DEFAULT_RUNS, MAX_REPEAT
from autodd_lsp.engine.spec.pytest_target import PytestTest, check_test_id
from autodd_lsp.execution.backend import Launch
from autodd_lsp.execution.gpus import parse_gpus

BACKENDS = ("runner", "subproc", "ray")
# How a candidate must fail to count as the same failure (see notes/oracle.md):
# "same": the original's failure line, from the same place, frozen code run;
# "substring": the message anywhere in the output (the loose rule).
MATCH_RULES = ("same", "substring")


def option(default: Any = MISSING, *, flag: str = "", help: str = "", metavar: str = "", choices: tuple[str, ...] = (),
           setting: str = "", default_factory: Any = MISSING) -> Any:
    """A field with its command-line flag ("-j/--jobs"; "" none), its help, metavar and choices, and
    its server setting (default: the long flag in camelCase, `--ray-address` -> `rayAddress`)."""
    metadata = {"flag": flag, "help": help, "metavar": metavar, "choices": choices, "setting": setting}
    if default_factory is not MISSING:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


class OptionError(UsageError):
    """A bad option value. `str()` names it by its command-line flag; `named(name)` by another name."""

    def __init__(self, option_field: str, template: str, **values: Any) -> None:
        self.field = option_field
        self.template = template
        self.values = values
        super().__init__(self.named(flag_of(option_field)))

    def named(self, name: str) -> str:
        return self.template.format(name=name, **self.values)


def _field(name: str) -> Field[Any]:
    """The ReduceOptions field called `name` (KeyError if there is none)."""
    for f in fields(ReduceOptions):
        if f.name == name:
            return f
    raise KeyError(name)


def flag_of(name: str) -> str:
    """The command-line flag of a ReduceOptions field (`timeout` -> `--timeout`); `name` if it has none."""
    try:
        return _field(name).metadata.get("flag") or name
    except KeyError:
        return name


@dataclass(frozen=True)
class RunOptions:
    """How to run the program: everything one run of it needs, and nothing about a failure."""

    backend: str = option("runner", flag="--backend", choices=BACKENDS,
                          help="runner: warm fork server (fast, default); subproc: fresh interpreter per candidate; "
                               "ray: on a Ray cluster's workers (pip install 'autodd-lsp[ray]')")
    timeout: float = option(60.0, flag="--timeout", metavar="SEC",
                            help="the most one candidate may run, in seconds (default 60)")
    # Candidates run at once; None: one per GPU given (`gpus`), with `ray` one per slot of
    # the cluster (resolved when the run connects), else 1.
    jobs: int | None = option(None, flag="-j/--jobs", metavar="N",
                              help="candidates run in parallel (default 1; with --gpus one per GPU (x --runs-per-gpu), with --backend "
                                   "ray one per GPU of the cluster, else per CPU); the result is the same for any N")
    python: str = option(default_factory=lambda: sys.executable, flag="--python", metavar="PATH", setting="interpreter",
                         help="interpreter that runs candidates (default: the one running autodd)")
    cwd: str | None = None  # working directory of candidates; None: the caller's
    output_limit: int = 8 * 1024 * 1024  # bytes kept per stream (head and tail)
    # A pytest test in the source file to run instead of the file as a script: its node id inside
    # the file ("test_x", "test_x[64-float16]", "TestK::test_x"); see engine/spec/pytest_target.py.
    test: str = option("", setting="test")  # the CLI takes it from SOURCE (FILE.py::test)
    # GPUs the local backends pin, one per running program (execution/gpus.py): "" none,
    # "auto" (those CUDA_VISIBLE_DEVICES or the driver shows), or ids "0,1,3".
    gpus: str = option("", flag="--gpus", metavar="IDS",
                       help="GPUs to pin, e.g. 0,1,2,3 or auto (those CUDA_VISIBLE_DEVICES or the driver shows): "
                            "each run of the program sees exactly one of them, never one another run is using")
    # Programs that share one GPU at once (execution/gpus.py's `GpuPool`): for candidates that spend most
    # of their run compiling on the CPU (a TileLang kernel); -j then defaults to GPUs x N.
    runs_per_gpu: int = option(1, flag="--runs-per-gpu", metavar="N",
                               help="runs of the program that share one GPU of --gpus at once (default 1): for "
                                    "candidates that mostly compile on the CPU; not for ones that each fill "
                                    "the GPU's memory")
    # The Ray cluster of `backend="ray"` (execution/ray_backend.py); "": RAY_ADDRESS, else a local one.
    ray_address: str = option("", flag="--ray-address", metavar="ADDRESS",
                              help="the Ray cluster of --backend ray (default: RAY_ADDRESS, else a local Ray "
                                   "started for the run)")
    # The program's own command line and input: every run of it (original, candidates, the final
    # re-run, the report's command, the regression test) gets `args` as sys.argv[1:] and reads the
    # file `stdin` (relative: to `cwd`) on its standard input; "": /dev/null.
    # The CLI takes `args` after `--` (cli/arguments.py), the server as the setting `args` (a list of strings).
    args: tuple[str, ...] = option((), setting="args",
                                   help="the program's own arguments (sys.argv[1:] of every run), after --")
    stdin: str = option("", flag="--stdin", metavar="FILE",
                        help="a file every run of the program reads on its standard input (default: none, "
                             "as /dev/null)")
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
            object.__setattr__(self, "jobs", len(ids) * max(1, self.runs_per_gpu) or 1)

    def launch(self) -> Launch:
        """How every run of the program starts (execution.Launch): the test under pytest, or the
        file as a script with the program's arguments and input."""
        if self.test:
            return PytestTest(self.test).launch()
        return Launch(args=tuple(self.args), stdin=self.stdin_path())

    def stdin_path(self) -> str:
        """The input file's absolute path ("" for none)."""
        return os.path.join(self.cwd or os.getcwd(), self.stdin) if self.stdin else ""

    def run_options(self) -> RunOptions:
        """These options' run part alone (what one probing run takes)."""
        return RunOptions(**{f.name: getattr(self, f.name) for f in fields(RunOptions) if f.init})

    def validate(self) -> None:
        """Raise OptionError / UsageError (one line, for the person) if a run setting cannot work."""
        if self.backend not in BACKENDS:
            raise OptionError("backend", "unknown backend {value!r} for {name} (choose from {choices})",
                              value=self.backend, choices=", ".join(BACKENDS))
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)) or not self.timeout > 0:
            raise OptionError("timeout", "{name} must be a positive number of seconds, got {value:g}",
                              value=self.timeout)
        if self.jobs is not None and (isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1):
            raise OptionError("jobs", "{name} must be at least 1, got {value}", value=self.jobs)
        if not isinstance(self.args, (tuple, list)) or not all(isinstance(arg, str) for arg in self.args):
            raise OptionError("args", "{name}: the program's arguments must be strings")
        if self.stdin and not os.path.isfile(self.stdin_path()):
            raise OptionError("stdin", "{name} {value}: no such file", value=self.stdin)
        if self.stdin and not os.access(self.stdin_path(), os.R_OK):
            raise OptionError("stdin", "{name} {value}: cannot read it", value=self.stdin)
        if self.test:
            check_test_id(self.test)
            if self.args or self.stdin:
                raise UsageError("a pytest test runs under pytest's own command line: program arguments and "
                                 "--stdin are for scripts")
            if self.backend == "ray":
                raise UsageError("a pytest test reduces with the local backends (runner, subproc); "
                                 "--backend ray runs scripts")
        if self._gpu_problem:
            raise UsageError(self._gpu_problem)  # it names --gpus and its value
        if self.gpus and self.backend == "ray":
            raise UsageError("--gpus is for the local backends; with --backend ray each candidate gets one "
                             "of the cluster's GPUs by itself")
        if self.runs_per_gpu < 1:
            raise UsageError(f"--runs-per-gpu {self.runs_per_gpu}: give 1 or more")
        if self.runs_per_gpu > 1 and not self.gpus:
            raise UsageError("--runs-per-gpu shares the GPUs of --gpus; give --gpus too")
        slots = len(self.gpu_ids) * self.runs_per_gpu
        if self.gpu_ids and self.jobs is not None and self.jobs > slots:
            shared = f" x {self.runs_per_gpu} runs each" if self.runs_per_gpu > 1 else ""
            raise UsageError(f"-j {self.jobs} needs {self.jobs} GPUs, --gpus gives {len(self.gpu_ids)}{shared} "
                             "(each running candidate has a GPU of its own; --runs-per-gpu N lets N share one)")
        if self.ray_address and self.backend != "ray":
            raise UsageError("--ray-address is for --backend ray")
        if self.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise UsageError("--backend ray needs Ray: pip install 'autodd-lsp[ray]'")


@dataclass(frozen=True)
class ReduceOptions(RunOptions):
    """A reduction: how to run the program, and which failure to keep and how to judge it."""

    # The failure to keep: `failure` (any kind, see failure_spec.py) or, the older way,
    # `err_msg` (the message kind). Exactly one of the two; `spec` is the one given.
    err_msg: str = ""
    failure: FailureSpec | None = None
    match: str = option("same", flag="--match", choices=MATCH_RULES,
                        help="same: the original's failure line from the same place (default); "
                             "substring: the message anywhere in the output")
    # Write the program's own modules into the reproducer (autodd_lsp.inlining).
    inline_modules: bool = option(True, flag="--keep-imports",
                                  help="keep the imports of the program's own modules instead of inlining them "
                                       "(the reduction then stays in SOURCE; the result needs those modules beside it)")
    # Cut the data files the result reads beside it too (engine/lifecycle/data_files.py, notes/data.md).
    reduce_data: bool = option(True, flag="--no-data",
                               help="leave the data files the result reads beside it whole (by default they are "
                                    "cut with it and written beside the result, in OUTPUT's .data folder)")
    # Write the small cut files into the result where it opens them (engine/lifecycle/data_inline.py).
    inline_data: bool = option(True, flag="--data-as-files",
                               help="keep the cut data files as files in OUTPUT's .data folder (by default a small "
                                    "one is written into the result, io.StringIO where it was opened, when the "
                                    "result still fails the same way)")
    # Reduce with the imports kept first, then inline what the result still imports (engine/lifecycle/inlined.py);
    # False inlines every module before reducing (no flag: what the benchmark compares with).
    inline_lazily: bool = option(True)
    # Runs of the original that measure its failure rate (engine/spec/flaky.py); 0: automatic
    # (two runs; flaky.DEFAULT_RUNS when they disagree).
    repeat: int = option(0, flag="--repeat", metavar="N",
                         help="run the original N times to measure how often it fails (default: twice, "
                              f"and {DEFAULT_RUNS} times when only one of those fails); an intermittent failure "
                              "is reduced to one that fails about as often, and the result is re-run N times")

    # Works with A, fails with B (engine/candidate/passing_side.py): A is another interpreter, or this one
    # with these environment variables ("NAME=VALUE"); every candidate must pass there.
    passes_with: str = option("", flag="--passes-with", metavar="PYTHON",
                              help="another Python (a virtual environment with other package versions) where the "
                                   "program passes: each candidate must exit 0 there without the failure")
    passes_with_env: tuple[str, ...] = option((), flag="--passes-with-env", metavar="NAME=VALUE",
                                              help="NAME=VALUE (repeatable): the program passes with these "
                                                   "environment variables set (with --passes-with's Python, if given)")

    @property
    def spec(self) -> FailureSpec:
        """The failure to keep."""
        return self.failure if self.failure is not None else FailureSpec.message(self.err_msg)

    def validate(self) -> None:
        """Raise OptionError / UsageError (one line, for the person) if an option cannot work."""
        if self.failure is not None and self.err_msg:
            raise UsageError("give the failure to keep once: an error message or another kind, not both")
        self.spec.validate()
        super().validate()
        if self.match not in MATCH_RULES:
            raise OptionError("match", "unknown match rule {value!r} for {name} (choose from {choices})",
                              value=self.match, choices=", ".join(MATCH_RULES))
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or not (
            self.repeat == 0 or 2 <= self.repeat <= MAX_REPEAT
        ):
            raise OptionError("repeat", "{name} must be 0 (automatic) or a number of runs from 2 to {most}, got {value}",
                              value=self.repeat, most=MAX_REPEAT)
        if self.passes_with or self.passes_with_env:
            from autodd_lsp.engine.candidate.passing_side import check_python, parse_env

            parse_env(self.passes_with_env)
            if self.passes_with:
                check_python(self.passes_with)
        if self.test and self.spec.rules.test_problem:
            raise UsageError(self.spec.rules.test_problem)
        if self.spec.rules.command(self.spec.value) and self.backend == "ray":
            raise UsageError(f"{self.spec.rules.flag} runs your command on this machine: use --backend runner or "
                             "subproc, not ray")

    def launch(self) -> Launch:
        """How every run starts: as `RunOptions.launch`, or, when the kind judges with a command of its own
        (`--check CMD`), that command through the shell (`Launch.shell`)."""
        command = self.spec.rules.command(self.spec.value)
        return replace(super().launch(), shell=command) if command else super().launch()

    @property
    def backend_to_use(self) -> str:
        """The backend candidates run on: the one asked for, except that a shell command (a check) runs
        as a subprocess (the warm fork servers run Python)."""
        return "subproc" if self.spec.rules.command(self.spec.value) else self.backend


@dataclass(frozen=True)
class EngineOption:
    """One option a person sets (a flag, a setting or both), as the front ends derive it."""

    field: str  # the ReduceOptions field
    flags: tuple[str, ...]  # ("-j", "--jobs"); () when only the server sets it
    setting: str  # the server's key ("interpreter"); "" when only the command line sets it
    type: type  # bool, int, float or str
    default: Any
    help: str
    metavar: str
    choices: tuple[str, ...]
    negated: bool = False  # a boolean that its flag and setting turn off (--keep-imports: inline_modules)


def engine_options() -> list[EngineOption]:
    """The ReduceOptions fields a person sets, in field order, with what each front end needs."""
    hints = typing.get_type_hints(ReduceOptions)
    found = []
    for f in fields(ReduceOptions):
        flag, setting = f.metadata.get("flag", ""), f.metadata.get("setting", "")
        if not (flag or setting):
            continue
        flags = tuple(flag.split("/")) if flag else ()
        hint = hints[f.name]
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:  # `int | None`
            hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        if not setting:
            words = flags[-1].lstrip("-").split("-")
            setting = words[0] + "".join(word.capitalize() for word in words[1:])
        found.append(EngineOption(
            f.name, flags, setting, hint, default, f.metadata["help"], f.metadata["metavar"], f.metadata["choices"],
            negated=hint is bool and default is True,
        ))
    return found
