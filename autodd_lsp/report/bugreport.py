"""The bug report: a Markdown page with what a maintainer needs to act on a reproducer.

    environment = query_environment(summary.text, options.python, folder)
    text = bug_report(summary, source_path, output_path, err_msg, options, environment=environment)

`bug_report` returns the page (it never writes a file; the front ends write it
with `autodd_lsp.files.atomic_write`):

* the reproducer in a ```python block, and the command that runs it
  (`python <output file name>`);
* the line showing the message in the reproducer's output next to the
  original's (`Summary.final_failure_line`, `Summary.original_failure_line`;
  "(not recorded)" when the engine did not record one); for a failing numeric
  comparison, its line and what differed in each (elements, greatest absolute
  and relative difference and where, NaNs: `Summary.original_comparison`);
* the environment: the Python version, the installed versions of the packages
  the reproducer imports, and the CUDA version and GPU model when the reproducer
  imports torch (or tilelang, which runs on torch) and torch sees a GPU ("no
  GPU", "CPU build" otherwise);
* the reduction's numbers: lines and AST nodes before and after, candidates
  run, time, the rule candidates were judged by (`Summary.rule`), whether the
  final re-run reproduced.

The environment is that of the interpreter that ran the candidates
(`options.python`), not the one running AutoDD: `query_environment` runs a small
script with it (one run, at most QUERY_TIMEOUT_S seconds; importing torch is
part of it when the reproducer imports torch). When `environment` is not given,
`bug_report` queries it itself. A query that fails never raises: the page says what
could not be determined and why.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from autodd_lsp import __version__
from autodd_lsp.engine import FailureSpec, ReduceOptions, Summary
from autodd_lsp.oracle.operands import difference_summary
from autodd_lsp.report.sides import side_a, sides_section
from autodd_lsp.shell import shell_word
from autodd_lsp.syntax.parsing import parse

QUERY_TIMEOUT_S = 60.0
NOT_RECORDED = "(not recorded)"
# Reproducers importing one of these run on torch: the GPU is what torch sees.
GPU_PACKAGES = ("torch", "tilelang")
_MARKER = "AUTODD-ENVIRONMENT:"

# Runs in the candidate interpreter (any Python 3): argv = [folder, json list of
# top-level module names]. Prints one line, _MARKER + JSON, last. It imports
# nothing of the program except torch (for its CUDA build and device), and finds
# the other modules without importing them.
_QUERY = r"""
import json, platform, sys
folder, names = sys.argv[1], json.loads(sys.argv[2])
info = {"python": platform.python_version(), "implementation": platform.python_implementation(),
        "platform": platform.platform(), "packages": [], "torch": None}
try:
    from importlib.metadata import packages_distributions, version
except ImportError:
    packages_distributions = version = None
try:
    owners = packages_distributions() if packages_distributions else {}
except Exception:
    owners = {}
import importlib.util, os, sysconfig
stdlib = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
stdlib_folder = os.path.realpath(sysconfig.get_paths()["stdlib"])
sys.path.insert(0, folder)
for name in names:
    entry = {"name": name, "distributions": [], "where": ""}
    for dist in owners.get(name) or [name]:
        try:
            entry["distributions"].append([dist, version(dist)])
        except Exception:
            pass
    if not entry["distributions"]:
        if name in stdlib:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except Exception:
            spec = None
        origin = ""
        if spec is not None and spec.origin not in (None, "namespace", "built-in", "frozen"):
            origin = os.path.realpath(spec.origin)
        elif spec is not None and spec.submodule_search_locations:  # a namespace package
            origin = os.path.realpath(list(spec.submodule_search_locations)[0])
        if spec is None:
            entry["where"] = "missing"
        elif not origin or origin.startswith(stdlib_folder + os.sep) and "-packages" not in origin:
            continue  # the standard library of a Python without stdlib_module_names
        elif origin.startswith(os.path.realpath(folder) + os.sep):
            entry["where"] = "local:" + os.path.relpath(origin, folder)
        else:
            entry["where"] = "file:" + origin
    info["packages"].append(entry)
if any(name in names for name in %(gpu)r):
    try:
        import torch
        cuda = getattr(torch.version, "cuda", None)
        hip = getattr(torch.version, "hip", None)
        info["torch"] = {"version": torch.__version__, "cuda": cuda, "hip": hip, "devices": []}
        if torch.cuda.is_available():
            info["torch"]["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except BaseException as error:
        info["torch"] = {"error": "%%s: %%s" %% (type(error).__name__, error)}
sys.stdout.flush()
sys.stdout.write("\n" + %(marker)r + json.dumps(info) + "\n")
""" % {"gpu": GPU_PACKAGES, "marker": _MARKER}  # noqa: UP031 - the query is all braces: %-substitution keeps it readable


@dataclass(frozen=True)
class Package:
    """A top-level module the reproducer imports, and what provides it."""

    name: str
    distributions: tuple[tuple[str, str], ...] = ()  # (distribution, version)
    where: str = ""  # when no distribution: "missing", "local:<relative path>", "file:<path>"

    def describe(self) -> str:
        if self.distributions:
            found = ", ".join(f"{dist} {version}" for dist, version in self.distributions)
            return f"`{self.name}`: {found}"
        if self.where.startswith("local:"):
            return f"`{self.name}`: a local module beside the program (`{self.where[6:]}`), not an installed package"
        if self.where.startswith("file:"):
            return f"`{self.name}`: not an installed package (found at `{self.where[5:]}`)"
        return f"`{self.name}`: not found by this interpreter"


@dataclass(frozen=True)
class Environment:
    """What the candidate interpreter reports; `error` says why the query told nothing."""

    python: str = ""
    implementation: str = ""
    platform: str = ""
    packages: tuple[Package, ...] = ()
    torch: dict | None = None  # None: not asked (the reproducer imports no GPU package)
    error: str = ""
    imports: tuple[str, ...] = field(default=())

    def gpu(self) -> str:
        """One line on the GPU, as torch sees it."""
        if self.error:
            return f"not determined ({self.error})"
        if self.torch is None:
            return "no GPU used (the reproducer imports neither torch nor tilelang)"
        if "error" in self.torch:
            return f"not determined: importing torch failed ({self.torch['error']})"
        version, cuda, hip = self.torch.get("version"), self.torch.get("cuda"), self.torch.get("hip")
        devices = self.torch.get("devices") or []
        if cuda:
            build = f"CUDA {cuda} (torch {version})"
        elif hip:
            build = f"ROCm {hip} (torch {version})"
        else:
            return f"no GPU (CPU build of torch {version})"
        if not devices:
            return f"no GPU available to torch; {build}"
        names = sorted(set(devices), key=devices.index)
        counted = ", ".join(f"{devices.count(n)} x {n}" if devices.count(n) > 1 else n for n in names)
        return f"{counted}; {build}"


def imported_modules(text: str) -> list[str]:
    """Top-level names of the modules `text` imports (absolute imports, and
    `importlib.import_module` / `__import__` of a literal name), in order of appearance."""
    try:
        tree = parse(text)
    except SyntaxError:
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            callee = node.func
            called = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        for name in names:
            top = name.split(".")[0]
            if top and top not in found:
                found.append(top)
    return found


def query_environment(text: str, python: str, folder: str, timeout: float = QUERY_TIMEOUT_S,
                      env: dict[str, str] | None = None) -> Environment:
    """Ask `python` for its version and the packages behind the imports of `text`.

    `folder` is where the program's own modules live (the source's folder); the
    query runs from an empty temporary folder, so a file of the program cannot
    shadow a module the query itself needs. `env`: variables set for it (side A of
    `--passes-with-env`).
    """
    imports = tuple(imported_modules(text))
    try:
        with tempfile.TemporaryDirectory(prefix=f"autodd-{os.getpid()}-env-") as scratch:
            done = subprocess.run(
                [python, "-c", _QUERY, os.path.abspath(folder), json.dumps(list(imports))],
                cwd=scratch, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False,
                env={**os.environ, **env} if env else None,
            )
    except subprocess.TimeoutExpired:
        return Environment(error=f"the environment query of {python} did not finish in {timeout:g} s", imports=imports)
    except OSError as error:
        return Environment(error=f"cannot run {python}: {error.strerror or error}", imports=imports)
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    answer = next((line for line in reversed(lines) if line.startswith(_MARKER)), None)
    if answer is None:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[-1] if said else f"exit status {done.returncode}"
        return Environment(error=f"the environment query of {python} failed: {why}", imports=imports)
    info = json.loads(answer[len(_MARKER):])
    packages = tuple(
        Package(p["name"], tuple((d, v) for d, v in p["distributions"]), p.get("where", "")) for p in info["packages"]
    )
    return Environment(
        python=info["python"],
        implementation=info["implementation"],
        platform=info["platform"],
        packages=packages,
        torch=info.get("torch"),
        imports=imports,
    )


def _sides(text: str, options: ReduceOptions, folder: str, environment: Environment) -> list[str]:
    """The works-with-A section (report/sides.py), side A probed as B was."""
    side = side_a(options)
    if side is None:
        return []
    return sides_section(options, query_environment(text, side[0], folder, env=side[1]), environment)


def _comparison_lines(summary: Summary, source_name: str, output_name: str) -> list[str]:
    """The failing numeric comparison's operands, original and reproducer (oracle/operands.py), or nothing."""
    if summary.original_comparison is None:
        return []
    rows = [(f"original ({source_name}):", difference_summary(summary.original_comparison)),
            (f"reproducer ({output_name}):",
             difference_summary(summary.final_comparison) if summary.final_comparison else NOT_RECORDED)]
    return ["", "The numeric comparison that fails, and what differed:", "", *_block(_aligned(rows), "text")]


def bug_report(
    summary: Summary,
    source_path: str,
    output_path: str,
    err_msg: str,
    options: ReduceOptions,
    *,
    environment: Environment | None = None,
) -> str:
    """The Markdown report of a finished reduction (see the module docstring)."""
    if environment is None:
        environment = query_environment(summary.text, options.python, os.path.dirname(os.path.abspath(source_path)))
    source_name, output_name = os.path.basename(source_path), os.path.basename(output_path)
    spec = (FailureSpec.message(err_msg) if err_msg else options.spec).kept(summary.signal)
    kind = spec.rules
    # With a crash, Python's faulthandler shows where it happened.
    run_command = f"python {kind.run_flags}{shell_word(output_name)}"
    if options.test:  # a pytest test: the command a user types (engine/spec/pytest_target.py)
        run_command = f"python -m pytest {shell_word(f'{output_name}::{options.test}')}"
    run_command += "".join(f" {shell_word(arg)}" for arg in options.args)  # the program's own arguments
    if options.stdin:
        run_command += f" < {shell_word(options.stdin_path())}"
    run_command = kind.report_command(spec.value, shell_word(output_name)) or run_command  # --check: your command
    has_line = bool(summary.original_failure_line or summary.final_failure_line)
    intro, lines_follow = kind.report_failure(spec.value, options.timeout, has_line, _inline)
    failure_lines = [intro, ""] if lines_follow else [intro]
    original_line = summary.original_failure_line or NOT_RECORDED
    final_line = summary.final_failure_line or NOT_RECORDED
    o, f, s = summary.original, summary.final, summary.stats
    if summary.verified:
        rerun = "still fails the same way"
    elif summary.cancelled:
        rerun = "not re-run (the reduction was stopped early)"
    else:
        rerun = "did NOT reproduce (is the failure flaky?)"
    out: list[str] = [
        "# Bug report",
        "",
        f"{_inline(output_name)} ({_lines(f.lines)}) fails like {_inline(source_name)} ({_lines(o.lines)}): "
        f"{kind.report_shows(spec.value, options.timeout, summary.final_failure_line or summary.original_failure_line, _inline)}",
        "",
        "## Reproducer",
        "",
        f"{_inline(output_name)}:",
        "",
        *_block(summary.text, "python"),
        "",
        "Run it with a fresh interpreter, in the folder that holds it:",
        "",
        *_block(run_command, "bash"),
        "",
        *_data_lines(summary, output_name),
        "## The failure",
        "",
        *failure_lines,
        *(_block(_aligned([(f"original ({source_name}):", original_line),
                           (f"reproducer ({output_name}):", final_line)]), "text") if len(failure_lines) > 1 else []),
        *_comparison_lines(summary, source_name, output_name),
        "",
        "## Environment",
        "",
        *_environment_lines(environment),
        "",
        *_sides(summary.text, options, os.path.dirname(os.path.abspath(source_path)), environment),
        "## Reduction",
        "",
        "| | non-blank lines | AST nodes |",
        "|---|---:|---:|",
        f"| original {_inline(source_name)} | {o.lines} | {o.nodes} |",
        f"| reproducer {_inline(output_name)} | {f.lines} | {f.nodes} |",
        "",
        f"- {s.candidates_run} candidates run ({s.cache_hits} cache hits, "
        f"{s.rejected_unparsable} rejected without running) in {s.elapsed:.1f} s",
        f"- rule (how a candidate had to fail): {summary.rule or NOT_RECORDED}",
        f"- final re-run: {rerun}",
        *_rate_lines(summary),
        f"- reduced by AutoDD {__version__}",
        "",
    ]
    return "\n".join(out)


SHOWN_DATA = 2048  # a cut text file up to this many bytes is shown in the report


def _data_lines(summary: Summary, output_name: str) -> list[str]:
    """The files the reproducer reads, each with its size before and after it was cut
    (engine/lifecycle/data_files.py) and where it is (its data folder, or written into it:
    data_inline.py); a small text one in the folder shown whole. [] when it reads none."""
    if not summary.data:
        return []
    beside, written = summary.data_in("folder"), summary.data_in("program")
    dropped = summary.data_in("dropped")
    folder = os.path.splitext(output_name)[0] + ".data"
    where = []
    if beside:
        where.append(f"Those cut into {_inline(folder + '/')} are laid out as it opens them, with "
                     f"{_inline(output_name)} beside them: run it in that folder.")
    if written:
        where.append(f"Those written into the program ({', '.join(_inline(d.name) for d in written)}) are read from "
                     "`io.StringIO` where it opened them" + ("; it runs alone." if not beside else "."))
    if dropped:
        where.append(f"{len(dropped)} other file(s) it read are not needed: it fails the same way without them.")
    out = [
        "## The data it reads",
        "",
        f"It read these files beside it; they were cut with it. {' '.join(where)}",
        "",
        "| file | bytes before | bytes after | how |",
        "|---|---:|---:|---|",
        *(f"| {_inline(d.name)} | {d.before:,} | {d.after:,} | {d.how} |" for d in (*beside, *written)),
        "",
    ]
    for item in beside:
        if item.after <= SHOWN_DATA and b"\0" not in item.data:
            try:
                text = item.data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out += [f"{_inline(item.name)}:", "", *_block(text.rstrip("\n"), "text"), ""]
    return out


def _rate_lines(summary: Summary) -> list[str]:
    """How often each failed, when the failure was intermittent (or its rate was asked for)."""
    if summary.original_rate is None:
        return []
    final = summary.final_rate.describe() if summary.final_rate is not None else NOT_RECORDED
    line = f"- failure rate: the original {summary.original_rate.describe()}; the reproducer {final} (fresh interpreter)"
    return [line]


def _lines(count: int) -> str:
    return f"{count} non-blank line" if count == 1 else f"{count} non-blank lines"


def _environment_lines(environment: Environment) -> list[str]:
    if environment.error:
        stdlib = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
        imports = ", ".join(name for name in environment.imports if name not in stdlib) or "none"
        return [f"- Python: not determined ({environment.error})",
                f"- Packages the reproducer imports: {imports} (versions not determined)",
                f"- GPU: {environment.gpu()}"]
    lines = [f"- Python {environment.python} ({environment.implementation}) on {environment.platform}"]
    if environment.packages:
        lines.append("- Packages the reproducer imports:")
        lines += [f"  - {package.describe()}" for package in environment.packages]
    else:
        lines.append("- Packages the reproducer imports: none beyond the standard library")
    lines.append(f"- GPU: {environment.gpu()}")
    return lines


def _aligned(rows: list[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)} {value}" for label, value in rows)


def _block(text: str, language: str) -> list[str]:
    """`text` in a fenced block whose fence no run of backticks inside can close."""
    longest = max((len(run) for run in _backtick_runs(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, *text.rstrip("\n").split("\n"), fence]


def _inline(text: str) -> str:
    """`text` as inline code, on one line."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    longest = max((len(run) for run in _backtick_runs(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _backtick_runs(text: str) -> list[str]:
    runs, current = [], ""
    for char in text:
        if char == "`":
            current += char
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    return runs
