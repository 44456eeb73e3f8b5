"""The size ladder: how candidates and time grow with the program's size (issue 24).

    python benchmarks/ladder.py [--rungs ladder_infix,...] [--cap 600] [--out benchmarks/results]
    python benchmarks/ladder.py --report-only [--out DIR]     # redraw ladder.md and the plot from ladder.json

Runs our tool at -j 1 on each rung of `cases.LADDER` (real programs of about 100,
300, 1,000, 2,000 and 3,000 lines, two of them a script over sibling modules) through
run.py's own `run_case`: a private copy of the program, the wall-clock cap (a rung
must finish within 10 minutes), the summary's candidate count, the output's size
and its standalone check. Beside it, the program's own run: the median of
`OWN_RUNS` runs of the original in its folder, each timed inside a fresh
interpreter around `runpy.run_path` (start-up and the failure's exit excluded),
which is what a candidate costs at best on a warm fork.

A program's size before is that of every `.py` file it is made of (a script and
its sibling modules); after, that of the one file AutoDD hands back (the modules
inlined). Writes `ladder.md`, `ladder.json` and `ladder.png` (candidates and wall
time against AST nodes before) under `--out`, each rung's output under
`--out/ladder/outputs/`; see benchmarks/README.md.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import run  # noqa: E402
from benchmarks.corpus.cases import LADDER, Case  # noqa: E402
from benchmarks.measure import program_size  # noqa: E402
from benchmarks.report import reproduction_label  # noqa: E402
from benchmarks.tools import TOOLS, subprocess_env  # noqa: E402

OWN_RUNS = 3
# Runs the program as `python PROGRAM ARGS...` would, in its folder, and prints the seconds it took.
TIMED_RUN = """\
import runpy, sys, time
sys.argv = sys.argv[1:]
start = time.perf_counter()
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except BaseException:
    pass
print(f"\\nautodd-ladder-seconds {time.perf_counter() - start}", file=sys.__stderr__)
"""


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rungs", default=",".join(case.name for case in LADDER),
                        help="comma-separated rung names (default: all)")
    parser.add_argument("--cap", type=float, default=600, help="wall-clock cap per rung, seconds")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--report-only", action="store_true", help="run nothing; redraw from ladder.json")
    args = parser.parse_args(argv)
    args.rungs = run._pick(args.rungs, {case.name: case for case in LADDER}, parser, "rung")
    return args


def program_files(folder: Path) -> list[Path]:
    """The files a rung's program is made of: every Python file of its folder."""
    return sorted(folder.glob("*.py"))


def size_of(files: list[Path]) -> dict:
    sizes = [program_size(path.read_text()) for path in files]
    return {key: sum(size[key] for size in sizes) for key in ("lines", "tokens", "nodes")}


def own_run_seconds(case: Case, source: Path, runs: int = OWN_RUNS) -> float | None:
    """The median time of the program's own run in its folder (None: a run printed no time)."""
    times = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", TIMED_RUN, source.name, *case.program_args],
                              cwd=source.parent, env=subprocess_env(), capture_output=True, text=True,
                              errors="replace", timeout=run.repro_timeout(case), stdin=subprocess.DEVNULL,
                              check=False)
        found = [line for line in proc.stderr.splitlines() if line.startswith("autodd-ladder-seconds ")]
        if not found:
            return None
        times.append(float(found[-1].split()[1]))
    return statistics.median(times)


def measure_rung(case: Case, args) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"autodd-ladder-{case.name}-") as tmp:
        source = case.materialize(Path(tmp))
        files = program_files(source.parent)
        rung = {"name": case.name, "description": case.description, "files": [path.name for path in files],
                "before": size_of(files), "own_run_s": own_run_seconds(case, source)}
    settings = argparse.Namespace(jobs=1, no_fidelity=True, repeat=1, cap=args.cap, sample_interval=1.0,
                                  out=args.out / "ladder")
    result = run.run_case(case, [TOOLS["ours"]], settings)
    rung["original_reproduces"] = bool(result and result["original"]["strict"])
    rung["ours"] = (result or {}).get("tools", {}).get("ours")
    return rung


def per_candidate(rung: dict) -> float | None:
    record = rung.get("ours") or {}
    return record["wall_s"] / record["candidates"] if record.get("candidates") else None


HEADER = ["rung", "files", "lines before → after", "AST nodes before → after", "candidates", "wall s",
          "s/candidate", "own run s", "candidate ÷ own run", "status", "reproduces alone"]


def row(rung: dict) -> list[str]:
    record = rung.get("ours") or {}
    final = record.get("final") or {}
    cost, own = per_candidate(rung), rung.get("own_run_s")
    return [
        rung["name"], str(len(rung["files"])),
        f"{rung['before']['lines']:,} → {_count(final.get('lines'))}",
        f"{rung['before']['nodes']:,} → {_count(final.get('nodes'))}",
        _count(record.get("candidates")),
        f"{record['wall_s']:.1f}" if record.get("wall_s") is not None else "-",
        f"{cost:.3f}" if cost else "-",
        f"{own:.3f}" if own is not None else "-",
        f"{cost / own:.1f}x" if cost and own else "-",
        record.get("status", "not run" if rung["original_reproduces"] else "original does not reproduce"),
        reproduction_label(record.get("repro")),
    ]


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "-"


def markdown(rungs: list[dict], when: str) -> str:
    lines = [f"# Size ladder ({when}, {os.cpu_count()} CPUs, -j 1)", "",
             "`python benchmarks/ladder.py`; see benchmarks/README.md.", "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row(rung)) + " |" for rung in rungs]
    lines += [""] + [f"- `{rung['name']}` ({', '.join(rung['files'])}): {rung['description']}" for rung in rungs]
    return "\n".join(lines) + "\n"


def plot(rungs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [rung for rung in rungs if (rung.get("ours") or {}).get("candidates")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, label in ((axes[0], "candidates", "candidates run"), (axes[1], "wall_s", "wall time, s")):
        nodes = [rung["before"]["nodes"] for rung in done]
        values = [rung["ours"][key] for rung in done]
        ax.plot(nodes, values, "o-")
        for rung, x, y in zip(done, nodes, values, strict=True):
            ax.annotate(rung["name"], (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set(xscale="log", yscale="log", xlabel="AST nodes of the program before", ylabel=label)
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("Size ladder: our tool at -j 1")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    args = parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        saved = json.loads((args.out / "ladder.json").read_text())
    else:
        rungs = []
        for case in args.rungs:
            print(f"[ladder] {case.name} ...", flush=True)
            rungs.append(measure_rung(case, args))
        saved = {"machine": run.machine_info(), "rungs": rungs}
        (args.out / "ladder.json").write_text(json.dumps(saved, indent=1) + "\n")
    rungs = saved["rungs"]
    text = markdown(rungs, saved["machine"]["date"][:10])
    print(text)
    (args.out / "ladder.md").write_text(text)
    try:
        plot(rungs, args.out / "ladder.png")
    except ImportError:
        print("no ladder.png: matplotlib is not installed (pip install matplotlib)")
    print(f"wrote {args.out / 'ladder.md'} and ladder.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
