"""Where a candidate's time goes, stage by stage: the summary of `AUTODD_STAGES` files.

    python benchmarks/stages.py FILE [FILE ...]

Each FILE is what one reduction wrote with `AUTODD_STAGES=FILE` (one JSON line
per candidate decided: `autodd_lsp/execution/stages.py`). For each stage, the
time between two marks of the same candidate: how many candidates reached both
(n), median and mean in ms, total in s, and the total's share of the stages'
sum. The stages are the engine's (before and after the run), the runner's or
Ray's (whichever marks the file holds), a second run (the frozen-code probe's,
where the run could not probe it in place), and the latency of a cancel (its
flag set while the run ran, to the backend's return). `benchmarks/parallel.py
--stages` writes such files for its runs and prints this table for them.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

# (label, from mark, to mark); a candidate counts in a stage when it has both marks.
ENGINE_BEFORE = [
    ("engine: proposal -> tester (a pool thread, render)", "proposed", "tested"),
    ("engine: checks, job slot, compile, write", "decide", "compiled"),
    ("engine: waiting for a run permit", "compiled", "permit"),
    ("engine: permit -> backend call", "permit", "run"),
]
RUNNER = [
    ("runner: its servers started, a free job slot", "run", "slot"),
    ("runner: its warm fork server", "slot", "ready"),
    ("runner: request -> candidate forked", "ready", "forked"),
    ("the candidate runs", "forked", "ended"),
    ("runner: output collected -> returned", "ended", "returned"),
]
RAY = [
    ("ray: an idle worker", "run", "taken"),
    ("ray: the actor call made (text shipped)", "taken", "submitted"),
    ("ray: submitted -> method starts on the worker", "submitted", "w.start"),
    ("worker: its servers started, a free job slot", "w.start", "w.slot"),
    ("worker: its warm fork server", "w.slot", "w.ready"),
    ("worker: request -> candidate forked", "w.ready", "w.forked"),
    ("the candidate runs", "w.forked", "w.ended"),
    ("worker: collected -> method returns", "w.ended", "w.return"),
    ("ray: the result back here", "w.return", "got"),
    ("ray: got -> returned", "got", "returned"),
]
ENGINE_AFTER = [("engine: judged (after the run)", "returned", "judged")]
SECOND_RUN = "a second run (frozen-code probe)"
CANCEL = "cancel latency: flag set -> run returned"
WARM_FIRST = "   of which a worker's first run"


def load(path: Path) -> list[dict]:
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


def _firsts(record: dict) -> dict[str, float]:
    """Each mark's first time (a second run's marks come later and are counted apart)."""
    firsts: dict[str, float] = {}
    for name, when in record["marks"]:
        firsts.setdefault(name, when)
    return firsts


def _runs(record: dict) -> list[tuple[float, float]]:
    """(run, returned) of each backend run of the candidate, in order."""
    starts = [when for name, when in record["marks"] if name == "run"]
    ends = [when for name, when in record["marks"] if name == "returned"]
    return list(zip(starts, ends, strict=False))


def durations(records: list[dict]) -> dict[str, list[float]]:
    """Stage label -> the seconds each candidate that reached it spent there."""
    ray = any(name.startswith("w.") for record in records for name, _ in record["marks"])
    stages = ENGINE_BEFORE + (RAY if ray else RUNNER) + ENGINE_AFTER
    out: dict[str, list[float]] = {label: [] for label, _, _ in stages}
    out[SECOND_RUN] = []
    out[CANCEL] = []
    warm_label = "worker: its warm fork server" if ray else "runner: its warm fork server"
    out[WARM_FIRST] = []
    seen_workers: set = set()
    for record in sorted(records, key=lambda r: _firsts(r).get("run", float("inf"))):
        firsts = _firsts(record)
        runs = _runs(record)
        second = sum(end - start for start, end in runs[1:])
        for label, start, end in stages:
            if start in firsts and end in firsts:
                spent = firsts[end] - firsts[start]
                if label.startswith("engine: judged"):
                    spent -= second
                out[label].append(spent)
                if label == warm_label:
                    worker = record.get("worker", record.get("slot"))
                    if worker not in seen_workers:
                        seen_workers.add(worker)
                        out[WARM_FIRST].append(spent)
        if len(runs) > 1:
            out[SECOND_RUN].append(second)
        if runs:
            run_start, run_end = runs[0]
            sets = [when for name, when in record["marks"] if name == "cancel_set" and run_start <= when <= run_end]
            if sets:
                out[CANCEL].append(run_end - sets[0])
    return out


def in_flight(records: list[dict]) -> dict[int, float]:
    """Share of the span (first proposal to last verdict) with k backend runs under way."""
    events = []
    for record in records:
        for start, end in _runs(record):
            events += [(start, 1), (end, -1)]
    times = [when for record in records for _, when in record["marks"]]
    if not events or not times:
        return {}
    span_start, span_end = min(times), max(times)
    events.sort()
    shares: dict[int, float] = {}
    level, last = 0, span_start
    for when, step in events:
        shares[level] = shares.get(level, 0.0) + (when - last)
        level, last = level + step, when
    shares[level] = shares.get(level, 0.0) + (span_end - last)
    span = span_end - span_start or 1.0
    return {k: v / span for k, v in sorted(shares.items())}


def phases(records: list[dict]) -> dict[str, list[float]]:
    """The reduction's phases outside the candidates (connecting, the original's checks, the search,
    closing, the final check; each Ray worker's start): seconds, each time the phase came."""
    spans: dict[str, list[float]] = {}
    for record in records:
        if "phase" in record:
            spans.setdefault(record["phase"], []).append(record["marks"][-1][1] - record["marks"][0][1])
    return spans


def summary(records: list[dict]) -> dict:
    """The numbers of one file: per stage n, median, mean, total; the runs in flight; the phases."""
    spans = phases(records)
    records = [record for record in records if "phase" not in record]
    stages = {}
    spent = durations(records)
    total_all = sum(sum(values) for label, values in spent.items() if label not in (CANCEL, WARM_FIRST))
    for label, values in spent.items():
        if not values:
            continue
        total = sum(values)
        stages[label] = {
            "n": len(values), "median_ms": 1000 * statistics.median(values), "mean_ms": 1000 * total / len(values),
            "total_s": total, "share": total / total_all if total_all and label not in (CANCEL, WARM_FIRST) else None,
        }
    runs = sum(len(_runs(record)) for record in records)
    return {"candidates": len(records), "runs": runs,
            "cancelled": sum(1 for record in records if record.get("cancelled")),
            "stages": stages, "in_flight": in_flight(records), "phases": spans}


def markdown(named: dict[str, dict]) -> str:
    """One table: a row per stage, for each run (its name) n, median ms, mean ms, total s, share."""
    names = list(named)
    order = [label for label, _, _ in ENGINE_BEFORE + RUNNER + RAY + ENGINE_AFTER] + [SECOND_RUN, CANCEL, WARM_FIRST]
    present = {label for numbers in named.values() for label in numbers["stages"]}
    labels = [label for index, label in enumerate(order) if label in present and label not in order[:index]]
    header = ["stage"] + [f"{name}: n, median ms, mean ms, total s (share)" for name in names]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in labels:
        cells = [label.strip()]
        for name in names:
            row = named[name]["stages"].get(label)
            if row is None:
                cells.append("-")
                continue
            share = f" ({100 * row['share']:.0f}%)" if row["share"] is not None else ""
            cells.append(f"{row['n']}, {row['median_ms']:.1f}, {row['mean_ms']:.1f}, {row['total_s']:.1f}{share}")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for name, numbers in named.items():
        flight = ", ".join(f"{k}: {100 * share:.0f}%" for k, share in numbers["in_flight"].items())
        lines.append(f"- {name}: {numbers['candidates']} candidates decided, {numbers['runs']} backend runs "
                     f"({numbers['cancelled']} ended cancelled); runs in flight, share of the span: {flight}")
        if numbers["phases"]:
            spans = "; ".join(f"{phase} {', '.join(f'{s:.1f}' for s in seconds)} s"
                              for phase, seconds in numbers["phases"].items())
            lines.append(f"- {name}, the reduction's phases: {spans}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    paths = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    if not paths:
        print("usage: python benchmarks/stages.py FILE [FILE ...]", file=sys.stderr)
        return 2
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        print(f"stages.py: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    print(markdown({path.stem: summary(load(path)) for path in paths}), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
