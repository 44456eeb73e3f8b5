"""The benchmark corpus: each case is a failing program and the message to keep
(or, for a failure without a message, our CLI's flags for it).

Every program calls its entry point at module level (no __main__ guard),
because the reference tool execs candidates with __name__ == "builtins".
"""

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent
REPO_ROOT = CORPUS_DIR.parent.parent


@dataclass(frozen=True)
class Case:
    name: str
    err_msg: str
    # Per-candidate timeout handed to both tools (--timeout), in seconds.
    timeout: int
    description: str
    source: Path | None = None
    # For generated cases: writes the program into a folder, returns its path.
    builder: Callable[[Path], Path] | None = None
    # Modules the program imports; the harness skips the case if one is missing.
    needs: tuple[str, ...] = ()
    # A failure without a message: our CLI's flags for it (e.g. ("--crash", "SIGSEGV")), in place
    # of --err-msg, and the exit status a reproduction has (negative: killed by that signal).
    # Only tools that take such flags run it (the reference keeps a message: not applicable).
    flags: tuple[str, ...] = ()
    returncode: int | None = None
    # An intermittent failure: a program reproduces if one of this many runs shows it, and our
    # tool is given --repeat with it (the reference has no such option).
    runs: int = 1
    # A failing pytest test: its node id in the program, which is then a test file (SOURCE is
    # FILE.py::test; it runs, alone or not, as `python -m pytest FILE.py::test`).
    test: str = ""
    # The program's own arguments (`-- ARG...`: every run of it, and the standalone check, gets them).
    program_args: tuple[str, ...] = ()
    # The user's own check (`--check CMD`, exit 0 = the bug is there) in place of a message.
    check: str = ""
    # Why only our tool can run the case (program arguments, a notebook, a check): the reference
    # runs a file as a script, without arguments, and keeps a message.
    ours_only: str = ""

    @property
    def failure(self) -> str:
        """The failure to keep as the command line says it."""
        if self.check:
            return f"--check {self.check!r}"
        return " ".join(self.flags) if self.flags else f"--err-msg {self.err_msg!r}"

    def program_text(self, source: Path) -> str:
        """The program as it runs (a notebook's code cells as one script)."""
        if source.suffix == ".ipynb":
            from autodd_lsp.notebook import notebook_program

            return notebook_program(str(source)).text
        return source.read_text()

    def kept_name(self, tool: str) -> str:
        """The file name a tool's output is kept under (outputs/): a test file's must stay a name
        pytest can import, without dots in its stem."""
        return f"test_{self.name}_{tool}_min.py" if self.test else f"{self.name}.{tool}.min.py"

    def materialize(self, folder: Path) -> Path:
        """Put a fresh copy of the program in `folder` and return its path."""
        folder.mkdir(parents=True, exist_ok=True)
        if self.builder is not None:
            return self.builder(folder)
        target = folder / f"{self.name}.py"
        if self.source is None:
            raise ValueError(f"case {self.name} has neither a source nor a builder")
        shutil.copyfile(self.source, target)
        return target


def _build_argparse(folder: Path) -> Path:
    from benchmarks.corpus import build_argparse_case

    return build_argparse_case.write_case(folder)


def _build_data_beside(folder: Path) -> Path:
    """The program with the data file and the module it keeps beside itself."""
    for name in ("site_report.py", "units.py", "measurements.csv"):
        shutil.copyfile(CORPUS_DIR / "data_beside" / name, folder / name)
    return folder / "site_report.py"


def _build_package_check(folder: Path) -> Path:
    """The sweep script with the `tiles` package it imports beside it."""
    shutil.copytree(CORPUS_DIR / "package_check", folder, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder / "sweep.py"


def _build_pytest_fixture(folder: Path) -> Path:
    """The test file with its conftest.py and the module it imports beside it."""
    source = CORPUS_DIR / "pytest_fixture"
    shutil.copyfile(source / "conftest.py", folder / "conftest.py")
    shutil.copyfile(source / "tiles.py", folder / "tiles.py")
    shutil.copyfile(source / "kernel_tests.py", folder / "test_kernel.py")
    return folder / "test_kernel.py"


def _build_folder(name: str, entry: str) -> Callable[[Path], Path]:
    """A case kept as a folder of the corpus: its files copied, `entry` the program."""

    def build(folder: Path) -> Path:
        shutil.copytree(CORPUS_DIR / name, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        return folder / entry

    return build


def _build_notebook(folder: Path) -> Path:
    shutil.copyfile(CORPUS_DIR / "sensor_report.ipynb", folder / "sensor_report.ipynb")
    return folder / "sensor_report.ipynb"


def _build_quick(folder: Path) -> Path:
    from benchmarks.corpus import build_quick_case

    return build_quick_case.write_case(folder)


def _argparse_err_msg() -> str:
    from benchmarks.corpus import build_argparse_case

    return build_argparse_case.ERR_MSG


CASES = [
    Case(
        name="tilelang_gemm",
        err_msg="T.gemm K shape check failed",
        timeout=60,
        description="TileLang GEMM whose B shared tile is (N, K) instead of (K, N); fails while tracing",
        source=REPO_ROOT / "examples" / "autodd" / "gemm_bug.py",
        needs=("tilelang", "torch"),
    ),
    Case(
        name="torch_shape",
        err_msg="mat1 and mat2 shapes cannot be multiplied",
        timeout=60,
        description="small PyTorch transformer classifier; a nested Linear has the wrong in_features",
        source=CORPUS_DIR / "torch_shape.py",
        needs=("torch",),
    ),
    Case(
        name="plain_python",
        # The full line, numbers included: only a run of the inventory logic prints
        # it, whereas the bare prefix also "reproduces" through a traceback quoting
        # the raise statement's source.
        err_msg="inventory invariant violated: B-200 has 3 reserved but only 2 on hand",
        timeout=10,
        description="pure-Python inventory interpreter; a stock adjustment breaks an invariant",
        source=CORPUS_DIR / "plain_python.py",
    ),
    Case(
        name="argparse_large",
        err_msg=_argparse_err_msg(),
        timeout=10,
        description="stdlib argparse source (~2,600 lines) plus a CLI driver given an invalid choice",
        builder=_build_argparse,
    ),
    Case(
        name="quick_python",
        err_msg="checksum mismatch for record 17: expected 2, got 4",
        timeout=10,
        description="generated record pipeline (~340 lines) whose runs take under a millisecond: "
        "measures the engine's own cost per candidate",
        builder=_build_quick,
    ),
    # Programs as they really are (issue 13).
    Case(
        name="data_beside",
        err_msg="could not convert string to float",
        timeout=10,
        description="site report that reads the CSV next to it (through __file__) and imports "
        "a sibling module; one reading is 'n/a'",
        builder=_build_data_beside,
    ),
    Case(
        name="package_check",
        err_msg="bytes of shared memory",
        timeout=10,
        description="shape sweep over the project's own `tiles` package (an __init__ with re-exports, "
        "relative imports); the package's own check raises the failure",
        builder=_build_package_check,
    ),
    Case(
        name="flaky_half",
        err_msg="scheduled package before its needs",
        timeout=10,
        description="job scheduler whose race (an unseeded random choice) shows in about half the runs",
        source=CORPUS_DIR / "flaky_half.py",
        runs=20,
    ),
    Case(
        name="pytest_fixture",
        err_msg="tile check failed",
        timeout=10,
        description="a failing parametrized pytest test (test_plan[64-float16]) of a tile planner, with "
        "its device fixture in conftest.py and helpers in a sibling module",
        builder=_build_pytest_fixture,
        test="test_plan[64-float16]",
    ),
    # Slip cases: messages that other failures of the same program also show,
    # so a reducer that only keeps the words can end with another bug.
    Case(
        name="keyerror_lookup",
        err_msg="KeyError",
        timeout=10,
        description="sales report whose manager table lacks a region (KeyError: 'west'); "
        "every other step also indexes a dict and can raise another KeyError",
        source=CORPUS_DIR / "keyerror_lookup.py",
    ),
    Case(
        name="tilelang_short_msg",
        err_msg="shape check failed",
        timeout=60,
        description="the TileLang GEMM of tilelang_gemm with a short message that TileLang's "
        "K, N and M shape checks all print",
        source=REPO_ROOT / "examples" / "autodd" / "gemm_bug.py",
        needs=("tilelang", "torch"),
    ),
    Case(
        name="warning_and_error",
        err_msg="deprecated config key 'lr'",
        timeout=10,
        description="config loader that warns about a deprecated key (UserWarning) and later "
        "raises a ValueError with the same words",
        source=CORPUS_DIR / "warning_and_error.py",
    ),
    # Failures without a message (issue 13).
    Case(
        name="crash_ctypes",
        err_msg="",
        flags=("--crash", "SIGSEGV"),
        returncode=-11,
        timeout=10,
        description="records packed in a native buffer; a relocation table sends ctypes.string_at to "
        "address 0 (SIGSEGV, no message)",
        source=CORPUS_DIR / "crash_ctypes.py",
    ),
    # Programs as users run them (issue 23).
    Case(
        name="args_cli",
        err_msg="KeyError: 'platinum'",
        timeout=10,
        description="a pricing CLI that needs its arguments (--items pen:2,desk --tier platinum); the tier "
        "argparse allows has no discount rate",
        builder=_build_folder("args_cli", "pricing_cli.py"),
        program_args=("--items", "pen:2,desk", "--tier", "platinum"),
        ours_only="takes no program arguments",
    ),
    Case(
        name="notebook",
        err_msg="IndexError: list index out of range",
        timeout=10,
        description="a Jupyter notebook (10 cells: markdown, %matplotlib, %env, %%time, %time) whose gap "
        "filling reads past the last reading",
        builder=_build_notebook,
        ours_only="takes no notebook",
    ),
    Case(
        name="check_driver",
        err_msg="",
        check="python driver.py {}",
        returncode=0,
        timeout=10,
        description="an address-normalisation plugin that does nothing alone; a driver script loads it and "
        "exits 0 while a lookup written with 'St.' fails (abbreviations expanded before case folding)",
        builder=_build_folder("check_driver", "plugin.py"),
        ours_only="takes no check of its own (--check)",
    ),
    # Real programs from public repositories at the commit before a bug fix (issue 22); each file's
    # header names the repository, file, commit, fix commit and licence, and what was changed.
    Case(
        name="public_dijkstra",
        err_msg="'list' object is not callable",
        timeout=10,
        description="TheAlgorithms/Python graphs/dijkstra_algorithm.py at 84f101c (fixed by 54aa73f): the "
        "priority queue's min_heapify calls its array (`self.array(lc)`) once the queue holds four nodes",
        source=CORPUS_DIR / "public" / "dijkstra_algorithm.py",
    ),
    Case(
        name="public_avl_tree",
        err_msg="AssertionError",
        timeout=10,
        description="TheAlgorithms/Python data_structures/binary_tree/avl_tree.py at c666db3 (fixed by "
        "13e4d3e): del_node rebalances with the children it read before the recursive delete",
        source=CORPUS_DIR / "public" / "avl_tree.py",
    ),
    Case(
        name="public_word_lm",
        err_msg="Weights only load failed",
        timeout=120,
        description="pytorch/examples word_language_model (main.py with its data.py and model.py) at cc8e404 "
        "(fixed by ac7e960): trains, saves the whole model, reloads it with torch.load, which torch >= 2.6 "
        "refuses (weights_only); run as the project's CI runs it",
        builder=_build_folder("public/word_language_model", "main.py"),
        needs=("torch",),
        program_args=("--epochs", "1", "--dry-run"),
        ours_only="takes no program arguments",
    ),
]

# The same wrong answer and "works with A, fails with B" (issue 21): measured by
# `benchmarks/wrong_answer.py` (ours only: the reference keeps a message), with and
# without the operand rule (`--match substring`).
NUMPY1_VENV = REPO_ROOT / "benchmarks" / "results" / "venv-numpy1"


def numpy1_python() -> Path:
    """Side A of ab_numpy_nep50: a virtual environment with numpy 1.26.4 (made once, from PyPI)."""
    python = NUMPY1_VENV / "bin" / "python"
    if not python.exists():
        import subprocess
        import sys

        subprocess.run([sys.executable, "-m", "venv", str(NUMPY1_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "numpy==1.26.4"], check=True)
    return python


WRONG_ANSWER_CASES = [
    Case(name="wa_tilelang_epilogue", err_msg="", flags=("--err-msg", "Tensor-likes are not close"), timeout=120,
         description="four TileLang CPU kernels of an MLP block (target='c'); residual_add reads the residual "
         "one row block late", source=CORPUS_DIR / "wa_tilelang_epilogue.py", needs=("tilelang", "torch")),
    Case(name="wa_tilelang_matmul", err_msg="", flags=("--wrong-answer",), timeout=120,
         description="TileLang CPU matmul, transpose and axpy; the matmul drops its last K tile",
         source=CORPUS_DIR / "wa_tilelang_matmul.py", needs=("tilelang", "torch")),
    Case(name="wa_numpy_tiled", err_msg="", flags=("--err-msg", "Not equal to tolerance"), timeout=30,
         description="NumPy blocked matmul that skips the partial K tile, with transpose and normalize checks",
         source=CORPUS_DIR / "wa_numpy_tiled.py", needs=("numpy",)),
    Case(name="wa_torch_nan", err_msg="", flags=("--wrong-answer",), timeout=60,
         description="masked attention softmax: a fully padded sequence gives NaN rows (the reference: zeros)",
         source=CORPUS_DIR / "wa_torch_nan.py", needs=("torch",)),
    Case(name="ab_env_fastpath", err_msg="", flags=("--err-msg", "Not equal to tolerance",
                                                    "--passes-with-env", "POOL_REFERENCE=1"), timeout=30,
         description="feature pipeline whose fast pooling path divides by window + 1; POOL_REFERENCE=1 "
         "(side A) takes the reference path", source=CORPUS_DIR / "ab_env_fastpath.py", needs=("numpy",)),
    Case(name="ab_numpy_nep50", err_msg="", flags=("--wrong-answer", "--passes-with", "{numpy1}"), timeout=30,
         description="float32 losses summed into a Python float: fine on numpy 1.26.4 (side A, a venv), "
         "drifts on numpy 2 (NEP 50)", source=CORPUS_DIR / "ab_numpy_nep50.py", needs=("numpy",)),
]

CASES_BY_NAME = {case.name: case for case in CASES}


def _build_over_modules(script: str, modules: dict[str, str]) -> Callable[[Path], Path]:
    """A script of corpus/ladder/ with sibling modules that are this interpreter's own, verbatim,
    under other names (`modules`: the sibling's name -> the stdlib module's)."""

    def build(folder: Path) -> Path:
        import importlib
        import inspect

        entry = folder / Path(script).name
        shutil.copyfile(CORPUS_DIR / "ladder" / script, entry)
        for name, module in modules.items():
            (folder / f"{name}.py").write_text(inspect.getsource(importlib.import_module(module)))
        return entry

    return build


# The size ladder (`benchmarks/ladder.py`, issue 24): real programs of about 100 (the code of a 194-line
# file), 300, 1,000, 2,000 and 3,000 lines (non-blank, every .py file counted), the third and the fifth
# of them a script over sibling modules (the interpreter's own, verbatim). Two are real programs failing
# as they were (public_avl_tree: the commit before its fix) or as their users make them (argparse_large:
# an invalid choice), three carry one injected bug (named in their headers).
LADDER = [
    Case(
        name="ladder_infix",
        err_msg="KeyError: ' '",
        timeout=10,
        description="TheAlgorithms/Python data_structures/stacks/infix_to_prefix_conversion.py (f5988cc) "
        "given an equation with spaces: its operator-priority table has no ' ' (injected: the line that "
        "removed the spaces is gone)",
        source=CORPUS_DIR / "ladder" / "infix_to_prefix_conversion.py",
    ),
    CASES_BY_NAME["public_avl_tree"],
    Case(
        name="ladder_recipe",
        err_msg="Invalid literal for Fraction: '1 1/2'",
        timeout=10,
        description="recipe scaler (a script) over two sibling modules, `rational.py` and `wrapping.py`: the "
        "interpreter's own fractions.py and textwrap.py; a mixed number reaches Fraction() whole (injected in "
        "the script)",
        builder=_build_over_modules("recipe/scale_recipe.py", {"rational": "fractions", "wrapping": "textwrap"}),
    ),
    CASES_BY_NAME["argparse_large"],
    Case(
        name="ladder_netaudit",
        err_msg="ValueError: 10.20.10.1/24 has host bits set",
        timeout=10,
        description="network-plan audit (a script) over three sibling modules, `iniconf.py`, `ipnets.py` and "
        "`rulewords.py`: the interpreter's own configparser.py, ipaddress.py and shlex.py; a gateway, an "
        "interface address put together by the plan's interpolation, goes through the strict ip_network() "
        "(injected in the script: ip_interface() is what it wants)",
        builder=_build_over_modules("netaudit/netaudit.py",
                                    {"iniconf": "configparser", "ipnets": "ipaddress", "rulewords": "shlex"}),
    ),
]

# The parallel-efficiency case (`benchmarks/parallel.py`, not in `run.py`'s corpus: at
# half a second a candidate, the reference alone would take most of an hour).
SLOW_SERVICE = Case(
    name="slow_service",
    err_msg="no weight band for A-106",
    timeout=10,
    description="shipping-quote service whose every run sleeps 0.5 s (a frozen time.sleep): "
    "candidates wait, they do not compute",
    source=CORPUS_DIR / "slow_service.py",
)

# The parallel-efficiency case of another shape (`parallel.py --program tilelang_two`): each
# run compiles two TileLang kernels for the CPU (a C++ compile each): candidates compute.
TILELANG_TWO = Case(
    name="tilelang_two",
    err_msg="Tensor-likes are not close",
    timeout=120,
    description="two TileLang kernels compiled for the CPU (TileLang's C target), each checked against "
    "PyTorch; the second centres rows dividing by the tile width instead of the row length: candidates "
    "compute (two C++ compiles a run), they do not wait",
    source=CORPUS_DIR / "tilelang_two.py",
    needs=("tilelang", "torch"),
)
