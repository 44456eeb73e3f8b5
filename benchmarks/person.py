"""A person's reproducer beside every benchmark case (issue 40): how far is each result from it?

    python benchmarks/person.py [--outputs DIR ...] [--cases a,b] [--no-check]

`benchmarks/corpus/person/` holds, for each case of `cases.CASES`, the reproducer a careful person
would send a maintainer under the tool's own rule (the same failure line from the same place, the
failing statement in its own words, the user's values; nothing else): `<case>.py` (a pytest case's is
a test file, copied under a test file's name to run). Its README says what each keeps and why.

For each case this script checks that the person's reproducer qualifies, the way `run.py` checks a
tool's output (a copy of it beside what the case keeps, run alone, as pytest, with the program's
arguments or the user's check, in some of `runs` runs; then, where the harness computes the fidelity
table, the same failure line, the same place and no more degenerate values than the original), and
also that its innermost program frame is the original's failing statement (the original's raising
statement in a module beside it, when that is what was inlined). Then it prints a Markdown table:
the result's AST nodes (the tool's kept output, `outputs/<case>.ours.min.py`, under the first of the
`--outputs` folders that has it), the person's, result/person, their geometric mean and how many
cases are over 2x; with the checks, also whether the result passes the same check (a result smaller
than the person's has often lost the failing statement or the user's values), and the mean over the
results that do. `--outputs` takes a `run.py --out` folder's `outputs/` (default: the committed
`latest/outputs` and `latest/public/outputs`); `--no-check` measures sizes only.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import fidelity  # noqa: E402
from benchmarks import run as harness  # noqa: E402
from benchmarks.corpus.cases import CASES, CASES_BY_NAME, CORPUS_DIR, Case  # noqa: E402
from benchmarks.measure import count_ast_nodes  # noqa: E402
from benchmarks.tools import subprocess_env  # noqa: E402

PERSON_DIR = CORPUS_DIR / "person"
DEFAULT_OUTPUTS = (REPO_ROOT / "benchmarks" / "latest" / "outputs",
                   REPO_ROOT / "benchmarks" / "latest" / "public" / "outputs")
# What the fidelity comparison accepts as the same place ("n/a": neither failure line has frames).
SAME_PLACE = ("yes", "yes (inlined)", "n/a")


def person_file(case: Case) -> Path:
    """The person's reproducer of `case` (for a pytest case, a test file that is not named as one, so
    that no pytest run collects it: the harness's copy is)."""
    return PERSON_DIR / f"{case.name}.py"


def result_file(case: Case, outputs: list[Path]) -> Path | None:
    """Our tool's kept output of `case` in the first of `outputs` that has one."""
    for folder in outputs:
        path = folder / case.kept_name("ours")
        if path.is_file():
            return path
    return None


def nodes(path: Path | None) -> int | None:
    return count_ast_nodes(path.read_text()) if path is not None else None


def harness_fidelity(case: Case) -> bool:
    """Whether `run.py` computes the fidelity table for the case (one run's lines, a message)."""
    return not case.flags and not case.ours_only and case.runs == 1


def check(case: Case, *reproducers: Path) -> list[tuple[bool | None, str]]:
    """Does each of `reproducers` (the person's, a tool's output) fail the way the original of `case`
    does? None: it cannot run here. The original is materialized and run once for all of them."""
    missing = harness.missing_modules(case)
    if missing:
        return [(None, f"needs {', '.join(missing)}")] * len(reproducers)
    verdicts: list[tuple[bool | None, str]] = []
    with tempfile.TemporaryDirectory(prefix=f"autodd-person-{case.name}-") as tmp:
        source = case.materialize(Path(tmp) / "original")
        timeout, env = harness.repro_timeout(case), subprocess_env()
        original: dict | None = None
        for number, reproducer in enumerate(reproducers):
            # As a tool's output: written into a copy of the case's folder, under the harness's name.
            workdir = Path(tmp) / f"reproducer-{number}"
            shutil.copytree(source.parent, workdir)
            program = workdir / (f"{source.stem}_min.py" if case.test else f"{case.name}.min.py")
            shutil.copyfile(reproducer, program)
            found = harness.reproduces_in_some_run(case, program)
            if not found.get("strict"):
                verdicts.append((False, f"does not reproduce alone: {found.get('why') or 'the message only in quoted source'}"))
            elif not harness_fidelity(case):
                verdicts.append((True, "reproduces alone" + (f" ({found['why']})" if found.get("why") else "")))
            else:
                if original is None:
                    original = fidelity.original_failure(source, case.err_msg, timeout, env, case.test)
                verdicts.append(verdict(original, fidelity.tool_fidelity(original, program, case.err_msg, timeout, env, case.test)))
    return verdicts


def verdict(original: dict, record: dict) -> tuple[bool, str]:
    """The fidelity comparison's verdict, and whether the failing statement is the original's."""
    result = record["failure"]
    problems = []
    if record["line"] != "same":
        problems.append(f"failure line {record['line']}: {result['shown']!r}")
    if record["same_place"] not in SAME_PLACE:
        problems.append(f"not the same place: {result['library_frame']} (the original: {original['library_frame']})")
    if record["more_degenerate"]:
        problems.append(f"more degenerate: {fidelity.degenerate_label(record['more_degenerate'])}")
    inlined = record["same_place"] == "yes (inlined)"
    statement = original["library_source"] if inlined else original["program_source"]
    if result["program_source"] != statement:
        problems.append(f"failing statement {result['program_source']!r}, the original's {statement!r}")
    if problems:
        return False, "; ".join(problems)
    return True, f"same line, same place ({record['same_place']}), `{statement}`" if statement else \
        f"same line, same place ({record['same_place']})"


def ratio(result: int | None, person: int | None) -> float | None:
    return result / person if result and person else None


def table(rows: list[dict]) -> list[str]:
    checked = any("result_check" in row for row in rows)
    header = ["case", "result nodes", "person nodes", "result/person"] + (["result fails the same way"] if checked else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        cells = [row["case"], fidelity._fmt(row["result"]), fidelity._fmt(row["person"]), times(row["ratio"])]
        if checked:
            cells.append(row.get("result_check", "-"))
        lines.append("| " + " | ".join(fidelity.markdown_cell(cell) for cell in cells) + " |")
    lines.append("")
    lines += summary(rows, "result")
    if checked:
        lines += summary([row for row in rows if row.get("result_check") == "yes"],
                         "result that fails the same way (by the check above)")
    missing = [row["case"] for row in rows if row["result"] is None]
    if missing:
        lines.append(f"No result in the outputs folders: {', '.join(missing)}.")
    return lines


def summary(rows: list[dict], what: str) -> list[str]:
    """The geometric mean of result/person over `rows` and the cases over 2x."""
    ratios = [row["ratio"] for row in rows if row["ratio"] is not None]
    if not ratios:
        return []
    mean = math.exp(sum(math.log(value) for value in ratios) / len(ratios))
    over = [f"{row['case']} {times(row['ratio'])}" for row in rows if row["ratio"] is not None and row["ratio"] > 2]
    return [f"Geometric mean of result/person over the {len(ratios)} cases with a {what}: **{mean:.2f}x**; "
            f"over 2x: {len(over)}" + (f" ({', '.join(over)})" if over else "") + ".", ""]


def short(qualifies: bool | None, why: str) -> str:
    """A table cell for a check's verdict: yes, or what differs (the details go to stderr)."""
    if qualifies is None:
        return f"not run ({why})"
    if qualifies:
        return "yes"
    labels = {"failing statement": "another failing statement", "failure line": "another failure line",
              "not the same place": "another place", "does not reproduce alone": "does not reproduce alone"}
    parts = []
    for part in why.split("; "):
        if part.startswith("more degenerate: "):
            parts.append(part.removeprefix("more degenerate: "))
        else:
            parts.append(next((label for start, label in labels.items() if part.startswith(start)), part))
    return "no: " + ", ".join(parts)


def times(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value >= 0.1 else f"{value:.3f}x"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=Path, action="append",
                        help="a folder of kept outputs (repeatable; default: benchmarks/latest/outputs and "
                        "benchmarks/latest/public/outputs)")
    parser.add_argument("--cases", default=",".join(case.name for case in CASES),
                        help="comma-separated case names (default: all)")
    parser.add_argument("--no-check", action="store_true", help="measure sizes only; run nothing")
    args = parser.parse_args(argv)
    args.cases = harness._pick(args.cases, CASES_BY_NAME, parser, "case")
    args.outputs = args.outputs or list(DEFAULT_OUTPUTS)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    rows, failed = [], []
    for case in args.cases:
        output = result_file(case, args.outputs)
        result, person = nodes(output), nodes(person_file(case))
        row = {"case": case.name, "result": result, "person": person, "ratio": ratio(result, person)}
        rows.append(row)
        if args.no_check:
            continue
        print(f"[{case.name}] checking the person's reproducer ...", file=sys.stderr, flush=True)
        (qualifies, why), *on_result = check(case, person_file(case), *([output] if output is not None else []))
        label = {True: "qualifies", False: "DOES NOT QUALIFY", None: "skipped"}[qualifies]
        print(f"[{case.name}] person: {label}: {why}", file=sys.stderr, flush=True)
        if qualifies is False:
            failed.append(case.name)
        for checked, why in on_result:
            print(f"[{case.name}] result: {short(checked, why)}", file=sys.stderr, flush=True)
            row["result_check"] = short(checked, why)
    print("\n".join(table(rows)))
    if failed:
        print(f"\nperson reproducers that do not qualify: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
