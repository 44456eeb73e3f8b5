"""Wrong answers and A/B cases (issue 21): our CLI with the operand rule, and with `--match substring`.

    python benchmarks/wrong_answer.py [CASE ...] [--modes same,substring] [-j N]

For each case of `cases.WRONG_ANSWER_CASES` and each mode: nodes before and after,
time, candidates run, seconds per candidate, and whether the result keeps the
original's failing comparison with the same operands (the result and the original
are run probed, standalone, and their records compared by `oracle/operands.py`);
for an A/B case, whether the result passes on side A and fails on B. Writes
`benchmarks/results/wrong_answer.json` and prints a Markdown table. Side A of
ab_numpy_nep50 is a venv with numpy 1.26.4, made once under benchmarks/results/
(`cases.numpy1_python`). Ours only: the reference tool keeps a message, not operands.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autodd_lsp.engine.candidate.passing_side import parse_env
from autodd_lsp.engine.rules.operand_probe import probed_text, split_markers
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.operands import chosen, difference_summary, same_operands
from benchmarks.corpus.cases import REPO_ROOT, WRONG_ANSWER_CASES, Case, numpy1_python

DONE = re.compile(r"(\d+) -> (\d+) AST nodes.*?, (\d+) candidates run.*?, ([\d.]+) s;")
RESULTS = REPO_ROOT / "benchmarks" / "results" / "wrong_answer.json"


def flags_of(case: Case) -> list[str]:
    return [str(numpy1_python()) if flag == "{numpy1}" else flag for flag in case.flags]


def probed_record(text: str, folder: Path, which: str, timeout: float) -> dict | None:
    """The failing comparison of `text`, run probed with a fresh interpreter."""
    path = folder / "probed_run.py"
    path.write_text(probed_text(text) or text)
    done = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, timeout=timeout, check=False)
    path.unlink()
    return chosen(split_markers(RunResult(done.stdout, done.stderr, done.returncode)).comparisons, which)


def side_a(case: Case, flags: list[str]) -> tuple[str, dict[str, str]] | None:
    if "--passes-with" in flags:
        return flags[flags.index("--passes-with") + 1], {}
    env = [flags[i + 1] for i, flag in enumerate(flags) if flag == "--passes-with-env"]
    return (sys.executable, parse_env(env)) if env else None


def run_case(case: Case, mode: str, jobs: int) -> dict:
    flags = flags_of(case)
    with tempfile.TemporaryDirectory(prefix="autodd-wa-") as scratch:
        folder = Path(scratch)
        source = case.materialize(folder)
        output = folder / f"{case.name}.min.py"
        command = [sys.executable, "-m", "autodd_lsp", str(source), *flags, "-o", str(output), "-q",
                   "--timeout", str(case.timeout), "-j", str(jobs), "--match", mode]
        start = time.monotonic()
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
        wall = time.monotonic() - start
        found = DONE.search(done.stdout + done.stderr)
        record: dict = {"case": case.name, "mode": mode, "failure": " ".join(case.flags), "status": done.returncode,
                        "wall_s": round(wall, 1)}
        if done.returncode != 0 or found is None or not output.exists():
            record["error"] = (done.stderr or done.stdout).strip().splitlines()[-1:]
            return record
        before, after, candidates, seconds = found.groups()
        record.update(nodes_before=int(before), nodes_after=int(after), candidates=int(candidates),
                      time_s=float(seconds), s_per_candidate=round(float(seconds) / max(1, int(candidates)), 3))
        which = "first" if "--wrong-answer" in flags else "last"
        original = probed_record(source.read_text(), folder, which, 300)
        result = probed_record(output.read_text(), folder, which, 300)
        record["original_comparison"] = difference_summary(original) if original else None
        record["result_comparison"] = difference_summary(result) if result else None
        record["same_operands"] = bool(original and result and same_operands(original, result))
        side = side_a(case, flags)
        if side is not None:
            python, env = side
            alone = subprocess.run([python, str(output)], cwd=folder, capture_output=True, timeout=300, check=False,
                                   env={**os.environ, **env})
            record["passes_on_a"] = alone.returncode == 0
        record["result"] = output.read_text()
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*")
    parser.add_argument("--modes", default="same,substring")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    chosen_cases = [c for c in WRONG_ANSWER_CASES if not args.cases or c.name in args.cases]
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    records = {(r["case"], r["mode"]): r for r in previous}
    for case in chosen_cases:
        for mode in args.modes.split(","):
            record = run_case(case, mode, args.jobs)
            records[(case.name, mode)] = record
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            RESULTS.write_text(json.dumps(list(records.values()), indent=1))
            print(json.dumps({k: v for k, v in record.items() if k != "result"}), flush=True)
    print("| case | mode | nodes | time | candidates | s/cand | same operands | passes on A |")
    print("|---|---|---|---|---|---|---|---|")
    for r in records.values():
        nodes = f"{r.get('nodes_before')} -> {r.get('nodes_after')}" if "nodes_before" in r else r.get("error")
        print(f"| {r['case']} | {r['mode']} | {nodes} | {r.get('time_s')} s | {r.get('candidates')} | "
              f"{r.get('s_per_candidate')} | {r.get('same_operands')} | {r.get('passes_on_a', '')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
