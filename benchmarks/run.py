"""Run our minimizer and the reference (tilelang.autodd) side by side on the corpus.

    python benchmarks/run.py [--cases a,b] [--tools ours,reference] [-j 1]
                             [--cap 900] [--repeat 1] [--out benchmarks/results] [--fresh]
    python benchmarks/run.py --report-only [--out DIR] [--no-fidelity]

See benchmarks/README.md for what each column means.
"""

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import fidelity  # noqa: E402
from benchmarks.corpus.cases import CASES, CASES_BY_NAME, Case  # noqa: E402
from benchmarks.measure import program_size, reproduces_standalone  # noqa: E402
from benchmarks.report import print_tables, write_outputs  # noqa: E402
from benchmarks.tools import TOOLS, build_command, run_tool, subprocess_env  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(c.name for c in CASES),
                        help="comma-separated case names (default: all)")
    parser.add_argument("--tools", default="ours,reference", help="comma-separated: ours, reference")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="-j passed to both tools")
    parser.add_argument("--cap", type=float, default=900, help="wall-clock cap per tool run, seconds")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each tool N times per case; the table shows the run of median wall time")
    parser.add_argument("--sample-interval", type=float, default=0.5,
                        help="how often to sample the output file's size, seconds")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--fresh", action="store_true",
                        help="discard earlier results instead of merging into them")
    parser.add_argument("--report-only", action="store_true",
                        help="run no tool; recompute the fidelity table and redraw tables and plot "
                        "from results.json")
    parser.add_argument("--no-fidelity", action="store_true",
                        help="do not run the original and the outputs for the fidelity table "
                        "(a --report-only run then keeps the fidelity stored in results.json)")
    args = parser.parse_args(argv)
    args.cases = _pick(args.cases, CASES_BY_NAME, parser, "case")
    args.tools = _pick(args.tools, TOOLS, parser, "tool")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def _pick(spec: str, known: dict, parser, kind: str) -> list:
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"unknown {kind}(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in names]


def machine_info() -> dict:
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "tilelang": _version("tilelang"),
        "torch": _version("torch"),
    }


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def missing_modules(case: Case) -> list[str]:
    return [name for name in case.needs if importlib.util.find_spec(name) is None]


def run_case(case: Case, tools: list, args) -> dict | None:
    missing = missing_modules(case)
    if missing:
        print(f"skipping {case.name}: needs {', '.join(missing)}")
        return None
    with tempfile.TemporaryDirectory(prefix=f"autodd-bench-{case.name}-") as tmp:
        source = case.materialize(Path(tmp) / "original")
        result = case_header(case, source, args.jobs)
        if not result["original"]["strict"]:
            why = result["original"]["why"] or "message only in a traceback's quoted source"
            print(f"skipping {case.name}: the original does not reproduce ({why})")
            return result
        original = None
        if not args.no_fidelity and not case.flags and not case.ours_only and case.runs == 1:  # one run's lines
            original = fidelity.original_failure(source, case.err_msg, repro_timeout(case), subprocess_env(),
                                                 case.test)
            result["original"]["failure"] = original
        for tool in tools:
            if (case.flags and not tool.takes_failure_flags) or (case.test and not tool.takes_test_ids) or (
                    case.ours_only and tool.name != "ours"):
                result["tools"][tool.name] = not_applicable(case, tool)
                continue
            runs = []
            for attempt in range(args.repeat):
                counter = f" ({attempt + 1}/{args.repeat})" if args.repeat > 1 else ""
                print(f"[{case.name}] running {tool.name}{counter} ...", flush=True)
                runs.append(run_one(case, tool, source, Path(tmp) / tool.name / f"run{attempt}", args))
            record = result["tools"][tool.name] = median_run(runs)
            keep_output(case, tool, record, args.out)
            if original is not None and record.get("output"):
                record["fidelity"] = fidelity.tool_fidelity(
                    original, Path(record["output"]), case.err_msg, repro_timeout(case), subprocess_env(), case.test)
    return result


def not_applicable(case: Case, tool) -> dict:
    """The record of a tool that cannot be given the case's failure (the reference: --err-msg only)
    or its SOURCE (the reference runs files as scripts: no pytest node id)."""
    if case.test:
        return {"status": "n/a", "detail": f"takes no pytest node id (FILE.py::{case.test}): it runs files as scripts"}
    if case.ours_only:
        return {"status": "n/a", "detail": case.ours_only}
    return {"status": "n/a", "detail": f"takes only --err-msg, not {case.failure}"}


def median_run(runs: list[dict]) -> dict:
    """The run of median wall time, with every run's wall time and candidate count beside it.

    One run is a noisy measure on a shared machine; the median run is reported
    whole (its output, its size curve), not a mix of several.
    """
    ranked = sorted(runs, key=lambda record: record["wall_s"])
    chosen = dict(ranked[(len(ranked) - 1) // 2])
    if len(runs) > 1:
        chosen["runs"] = [{"wall_s": r["wall_s"], "candidates": r.get("candidates")} for r in runs]
    return chosen


def case_header(case: Case, source: Path, jobs: int) -> dict:
    original = program_size(case.program_text(source))
    original.update(reproduces_in_some_run(case, source, in_place=True))
    return {
        "description": case.description,
        "err_msg": case.err_msg,
        "failure": case.failure,
        "timeout": case.timeout,
        "jobs": jobs,
        "original": original,
        "tools": {},
    }


def repro_timeout(case: Case) -> float:
    # A lone run also pays interpreter and import start-up, which tools amortize.
    return max(60.0, 2.0 * case.timeout)


def run_one(case: Case, tool, source: Path, workdir: Path, args) -> dict:
    """Run one tool on a private copy of the case, then measure its output.

    The record's `output` is the run's own output file, in `workdir`;
    `keep_output` copies the chosen run's to outputs/.
    """
    workdir.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source.parent, workdir)  # the program with whatever the case keeps beside it
    program = workdir / source.name
    # A test file's result must stay importable by pytest's default import mode: no dot in its stem.
    output = workdir / (f"{source.stem}_min.py" if case.test else f"{case.name}.min.py")
    logs = args.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    flags = ("--check", case.check) if case.check else case.flags
    command = build_command(tool, program, output, case.err_msg, case.timeout, args.jobs, flags, case.test,
                            case.program_args)
    if case.runs > 1 and tool.takes_failure_flags:  # ours: measure the intermittent failure's rate
        command += ["--repeat", str(case.runs)]
    record = run_tool(tool, command, workdir, output, logs / f"{case.name}.{tool.name}", args.cap,
                      args.sample_interval)
    record["status"], record["detail"] = classify(record, output.exists(), args.cap)
    record["final"], record["repro"] = measure_output(case, output)
    if output.exists():
        record["output"] = str(output)
    return record


def keep_output(case: Case, tool, record: dict, out: Path) -> None:
    """Copy the reported run's output to outputs/<case>.<tool>.min.py (with
    --repeat, the median run's, not the last one's)."""
    if not record.get("output"):
        return
    kept = out / "outputs" / case.kept_name(tool.name)
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(record["output"], kept)
    record["output"] = str(kept)


def classify(record: dict, has_output: bool, cap: float) -> tuple[str, str]:
    last_err = record["stderr_tail"].splitlines()[-1][:200] if record["stderr_tail"] else "(no stderr)"
    if record["timed_out"]:
        return "timeout", f"stopped at the {cap:g} s cap; output measured as it was then"
    if record["returncode"] != 0:
        return "error", f"exit {record['returncode']}: {last_err}"
    if not has_output:
        return "no output", "exited 0 without writing an output file"
    return "ok", ""


def measure_output(case: Case, output: Path) -> tuple[dict | None, dict | None]:
    if not output.exists():
        return None, None
    final = program_size(output.read_text())
    return final, reproduces_in_some_run(case, output)


def reproduces_in_some_run(case: Case, program: Path, in_place: bool = False) -> dict:
    """`reproduces_standalone`, up to `case.runs` times (an intermittent failure shows in some)."""
    for attempt in range(case.runs):
        found = reproduces_standalone(program, case.err_msg, repro_timeout(case), subprocess_env(),
                                      case.returncode, in_place=in_place, test=case.test,
                                      args=case.program_args, check=case.check)
        if found["reproduces"]:
            if case.runs > 1:
                found["why"] = f"in run {attempt + 1} of at most {case.runs}"
            return found
    return found


def load_previous(folder: Path, fresh: bool) -> dict:
    path = folder / "results.json"
    if fresh or not path.exists():
        return {}
    try:
        previous = json.loads(path.read_text())
    except json.JSONDecodeError:
        return {}
    return previous if isinstance(previous, dict) else {}


def merge_case(previous: dict | None, current: dict) -> dict:
    """Keep earlier runs of other tools on the same case and settings, so tools
    can be benchmarked in separate invocations."""
    if previous and previous.get("err_msg") == current["err_msg"] and previous.get("jobs") == current["jobs"]:
        current["tools"] = {**previous.get("tools", {}), **current["tools"]}
    return current


def main(argv=None) -> int:
    args = parse_args(argv)
    args.out = args.out.resolve()
    previous = load_previous(args.out, args.fresh)
    cases = previous.get("cases", {})
    machine = previous.get("machine") if args.report_only else None
    for case in [] if args.report_only else args.cases:
        result = run_case(case, args.tools, args)
        if result is not None:
            cases[case.name] = merge_case(cases.get(case.name), result)
    ordered = {c.name: cases[c.name] for c in CASES if c.name in cases}
    results = {"machine": machine or machine_info(), "cases": ordered}
    if args.report_only and not args.no_fidelity:
        fidelity.refresh(results, args.out, CASES_BY_NAME, repro_timeout, subprocess_env(), missing_modules)
    print_tables(results)
    write_outputs(results, args.out)
    print(f"wrote {args.out / 'results.md'} and results.json" + (" and size_over_time.png" if (args.out / 'size_over_time.png').is_file() else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
