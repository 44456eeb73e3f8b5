"""Parallel efficiency: how much of N workers the search uses when candidates wait.

    python benchmarks/parallel.py [--program slow_service|tilelang_two] [--jobs 1,2,4,8] [--no-ray]
                                  [--stages] [--cap 900] [--out benchmarks/results]

Runs our tool on `slow_service` (every candidate sleeps ~0.5 s, so two CPU cores
are not the limit), or with `--program tilelang_two` on a program of another
shape (each run compiles two TileLang kernels for the CPU: candidates compute),
with the runner backend at each -j, then with
`--backend ray -j 4` on a local Ray cluster of 3 nodes (4 CPU slots, the
head's included) that this script starts and shuts down. For each run:
wall time, speed-up over -j 1, candidates run, candidates wasted (the
summary's "started and discarded as stale": runs begun, then thrown away
because an earlier candidate was accepted, or run ahead for a step that did
not come), and whether the output is
byte-identical to -j 1's. The Ray row says "not available" when this
checkout's engine offers no "ray" backend or Ray is not installed.

`--stages`: every run also writes its candidates' stage timestamps
(`AUTODD_STAGES`, `autodd_lsp/execution/stages.py`) to `stages-<run>.jsonl` under
`--out`, and a table per stage (`benchmarks/stages.py`) for the runs at -j 4
(the runner's and Ray's) is printed and added to `parallel.md`.

Writes `parallel.md` and `parallel.json` under `--out`; see benchmarks/README.md.
"""

import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import stages  # noqa: E402
from benchmarks.corpus.cases import SLOW_SERVICE, TILELANG_TWO  # noqa: E402
from benchmarks.tools import TOOLS, build_command, run_tool  # noqa: E402

RAY_JOBS = 4
RAY_NODES = (2, 1, 1)  # CPU slots per node, the head first: 3 nodes, 4 slots
PROGRAMS = {case.name: case for case in (SLOW_SERVICE, TILELANG_TWO)}
STAGES_ENV = "AUTODD_STAGES"  # autodd_lsp/execution/stages.py
STALE = re.compile(r"([\d,]+) started and discarded as stale")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", choices=sorted(PROGRAMS), default=SLOW_SERVICE.name,
                        help="the program to reduce (default: slow_service)")
    parser.add_argument("--stages", action="store_true",
                        help="record each candidate's stage timestamps and print a table per stage for -j 4")
    parser.add_argument("--jobs", default="1,2,4,8", help="comma-separated -j values for the runner backend")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray cluster row")
    parser.add_argument("--cap", type=float, default=900, help="wall-clock cap per run, seconds")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    try:
        args.jobs = [int(j) for j in args.jobs.split(",") if j.strip()]
    except ValueError:
        parser.error(f"--jobs takes numbers such as 1,2,4,8, got {args.jobs!r}")
    if not args.jobs or 1 not in args.jobs or min(args.jobs) < 1:
        parser.error("--jobs must include 1 (the speed-ups are over -j 1)")
    return args


def run_reduction(case, label: str, jobs: int, extra: list[str], folder: Path, cap: float,
                  stages_file: Path | None = None) -> dict:
    """One run of our CLI on a fresh copy of `case`; the record of `tools.run_tool` plus stale and output.
    `stages_file`: where the run writes its candidates' stage timestamps (AUTODD_STAGES)."""
    tool = TOOLS["ours"]
    workdir = folder / label.replace(" ", "_")
    source = case.materialize(workdir)
    output = workdir / f"{case.name}.min.py"
    command = build_command(tool, source, output, case.err_msg, case.timeout, jobs) + extra
    print(f"[{label}] {' '.join(command[1:])}", flush=True)
    if stages_file is not None:
        stages_file.unlink(missing_ok=True)
        os.environ[STAGES_ENV] = str(stages_file)
    try:
        record = run_tool(tool, command, workdir, output, workdir / "log", cap, interval=5.0)
    finally:
        os.environ.pop(STAGES_ENV, None)
    stderr = Path(record["logs"][1]).read_text(errors="replace")
    stale = STALE.findall(stderr)
    record.update(
        label=label,
        jobs=jobs,
        stages_file=str(stages_file) if stages_file is not None else None,
        stale=int(stale[-1].replace(",", "")) if stale else 0,
        output_text=output.read_text() if output.exists() and record["returncode"] == 0 else None,
    )
    record.pop("samples", None)
    return record


def ray_available() -> str:
    """"" when the Ray row can run, else why not."""
    from autodd_lsp.engine.lifecycle.options import BACKENDS

    if "ray" not in BACKENDS:
        return "not available (this engine has no ray backend)"
    if importlib.util.find_spec("ray") is None:
        return "not available (Ray is not installed)"
    return ""


@contextlib.contextmanager
def local_ray_cluster(temp: Path):
    """A 3-node Ray cluster on 127.0.0.1 (RAY_NODES CPU slots), private to this run.

    Its session files go to a private RAY_TMPDIR, usage stats are off, and
    `shutdown()` ends exactly the processes it started (never `ray stop`,
    which would end every Ray on the machine).
    """
    os.environ.update(
        RAY_TMPDIR=str(temp),
        RAY_USAGE_STATS_ENABLED="0",
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
    )
    from ray.cluster_utils import Cluster

    head, *workers = RAY_NODES
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": head, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    try:
        for slots in workers:
            cluster.add_node(num_cpus=slots, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()


def speedup(base: dict, record: dict) -> str:
    if record.get("returncode") != 0 or base.get("returncode") != 0:
        return "-"
    return f"{base['wall_s'] / record['wall_s']:.2f}x"


def rows(records: list[dict]) -> list[list[str]]:
    base = next(r for r in records if r.get("label") == "-j 1")
    table = []
    for record in records:
        if "unavailable" in record:
            table.append([record["label"], record["unavailable"], "-", "-", "-", "-"])
            continue
        if record["returncode"] != 0:
            status = f"error (exit {record['returncode']}): {record['stderr_tail'].splitlines()[-1:]}"
            table.append([record["label"], status, "-", "-", "-", "-"])
            continue
        same = record["output_text"] is not None and record["output_text"] == base["output_text"]
        table.append([
            record["label"], f"{record['wall_s']:.1f}", speedup(base, record),
            f"{record['candidates']:,}" if record.get("candidates") is not None else "n/a",
            f"{record['stale']:,}", "yes" if same else "NO",
        ])
    return table


HEADER = ["run", "wall s", "speed-up", "candidates run", "wasted (stale)", "output identical to -j 1"]


def markdown(case, records: list[dict], when: str, stage_table: str = "", load_before: str = "") -> str:
    """`load_before`: the load averages before the first run (`load()`)."""
    flag = "" if case is SLOW_SERVICE else f" --program {case.name}"
    loaded = f", load {load_before}" if load_before else ""
    lines = [
        f"# Parallel efficiency: `{case.name}` ({when}, {os.cpu_count()} CPUs{loaded})",
        "",
        f"{case.description}. `python benchmarks/parallel.py{flag}`; runner backend unless said.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows(records)]
    if stage_table:
        lines += ["", "## Where a candidate's time goes, per stage (`--stages`)", "", stage_table]
    return "\n".join(lines) + "\n"


def load() -> str:
    """The load averages over 1, 5 and 15 minutes, as `uptime` says them."""
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def stage_tables(records: list[dict]) -> str:
    """The per-stage table of the runs at -j 4 that wrote stage timestamps."""
    named = {}
    for record in records:
        path = record.get("stages_file")
        if record.get("jobs") == RAY_JOBS and path and Path(path).is_file():
            named[record["label"]] = stages.summary(stages.load(Path(path)))
    return stages.markdown(named) if named else ""


def main(argv=None) -> int:
    args = parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    case = PROGRAMS[args.program]
    missing = [name for name in case.needs if importlib.util.find_spec(name) is None]
    if missing:
        print(f"parallel.py: {case.name} needs {', '.join(missing)}, not installed", file=sys.stderr)
        return 2
    records = []

    def stages_file(label: str) -> Path | None:
        slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")
        return args.out / f"stages-{case.name}-{slug}.jsonl" if args.stages else None

    load_before = load()
    print(f"load before: {load_before}", flush=True)
    with tempfile.TemporaryDirectory(prefix="autodd-bench-parallel-") as tmp:
        folder = Path(tmp)
        for jobs in sorted(args.jobs):
            label = f"-j {jobs}"
            records.append(run_reduction(case, label, jobs, [], folder, args.cap, stages_file(label)))
        label = f"ray, 3 nodes, -j {RAY_JOBS}"
        why = "skipped (--no-ray)" if args.no_ray else ray_available()
        if why:
            records.append({"label": label, "unavailable": why})
        else:
            with local_ray_cluster(folder / "ray") as address:
                records.append(run_reduction(
                    case, label, RAY_JOBS, ["--backend", "ray", "--ray-address", address], folder, args.cap,
                    stages_file(label)))
    print(f"load after: {load()}", flush=True)
    when = datetime.date.today().isoformat()
    text = markdown(case, records, when, stage_tables(records) if args.stages else "", load_before)
    print(text)
    (args.out / "parallel.md").write_text(text)
    (args.out / "parallel.json").write_text(json.dumps(records, indent=1) + "\n")
    print(f"wrote {args.out / 'parallel.md'} and parallel.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
