"""Parallel efficiency: how much of N workers the search uses when candidates wait.

    python benchmarks/parallel.py [--jobs 1,2,4,8] [--no-ray] [--cap 900] [--out benchmarks/results]

Runs our tool on `slow_service` (every candidate sleeps ~0.5 s, so two CPU cores
are not the limit) with the runner backend at each -j, then with
`--backend ray -j 4` on a local Ray cluster of 3 nodes (4 CPU slots, the
head's included) that this script starts and shuts down. For each run:
wall time, speed-up over -j 1, candidates run, candidates wasted (the
summary's "started and discarded as stale": runs begun, then thrown away
because an earlier candidate was accepted, or run ahead for a step that did
not come), and whether the output is
byte-identical to -j 1's. The Ray row says "not available" when this
checkout's engine offers no "ray" backend or Ray is not installed.

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

from benchmarks.corpus.cases import SLOW_SERVICE  # noqa: E402
from benchmarks.tools import TOOLS, build_command, run_tool  # noqa: E402

RAY_JOBS = 4
RAY_NODES = (2, 1, 1)  # CPU slots per node, the head first: 3 nodes, 4 slots
STALE = re.compile(r"([\d,]+) started and discarded as stale")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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


def run_reduction(label: str, jobs: int, extra: list[str], folder: Path, cap: float) -> dict:
    """One run of our CLI on a fresh copy of the case; the record of `tools.run_tool` plus stale and output."""
    tool = TOOLS["ours"]
    workdir = folder / label.replace(" ", "_")
    source = SLOW_SERVICE.materialize(workdir)
    output = workdir / f"{SLOW_SERVICE.name}.min.py"
    command = build_command(tool, source, output, SLOW_SERVICE.err_msg, SLOW_SERVICE.timeout, jobs) + extra
    print(f"[{label}] {' '.join(command[1:])}", flush=True)
    record = run_tool(tool, command, workdir, output, workdir / "log", cap, interval=5.0)
    stderr = Path(record["logs"][1]).read_text(errors="replace")
    stale = STALE.findall(stderr)
    record.update(
        label=label,
        jobs=jobs,
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


def markdown(records: list[dict], when: str) -> str:
    lines = [
        f"# Parallel efficiency: `{SLOW_SERVICE.name}` ({when}, {os.cpu_count()} CPUs)",
        "",
        f"{SLOW_SERVICE.description}. `python benchmarks/parallel.py`; runner backend unless said.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows(records)]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    records = []
    with tempfile.TemporaryDirectory(prefix="autodd-bench-parallel-") as tmp:
        folder = Path(tmp)
        for jobs in sorted(args.jobs):
            records.append(run_reduction(f"-j {jobs}", jobs, [], folder, args.cap))
        label = f"ray, 3 nodes, -j {RAY_JOBS}"
        why = "skipped (--no-ray)" if args.no_ray else ray_available()
        if why:
            records.append({"label": label, "unavailable": why})
        else:
            with local_ray_cluster(folder / "ray") as address:
                records.append(run_reduction(
                    label, RAY_JOBS, ["--backend", "ray", "--ray-address", address], folder, args.cap))
    when = datetime.date.today().isoformat()
    text = markdown(records, when)
    print(text)
    (args.out / "parallel.md").write_text(text)
    (args.out / "parallel.json").write_text(json.dumps(records, indent=1) + "\n")
    print(f"wrote {args.out / 'parallel.md'} and parallel.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
