"""Turning benchmark records into tables (terminal, Markdown), JSON and a plot."""

import importlib.util
import json
import sys
from pathlib import Path

from benchmarks import fidelity

COLUMNS = ["tool", "status", "wall s", "candidates", "cand/s", "lines", "tokens", "AST nodes", "reproduces"]


def tool_row(name: str, record: dict) -> list[str]:
    final = record.get("final") or {}
    repro = record.get("repro")
    return [
        name,
        record["status"],
        f"{record['wall_s']:.1f}" if record.get("wall_s") is not None else "-",
        _fmt(record.get("candidates"), missing="n/a"),
        _rate(record),
        _fmt(final.get("lines")),
        _fmt(final.get("tokens")),
        _fmt(final.get("nodes")),
        reproduction_label(repro),
    ]


def _rate(record: dict) -> str:
    """Candidates per second of wall time, start-up and final check included."""
    if not record.get("candidates") or not record.get("wall_s"):
        return "-"
    return f"{record['candidates'] / record['wall_s']:.0f}"


def spread(runs: list[dict]) -> str:
    """`median of 5 runs; wall 2.4-2.9 s; 180-216 candidates/s`."""
    walls = [r["wall_s"] for r in runs]
    rates = [r["candidates"] / r["wall_s"] for r in runs if r.get("candidates") and r.get("wall_s")]
    text = f"median of {len(runs)} runs; wall {min(walls):.1f}-{max(walls):.1f} s"
    if rates:
        text += f"; {min(rates):.0f}-{max(rates):.0f} candidates/s"
    return text


def reproduction_label(repro: dict | None) -> str:
    if repro is None:
        return "-"
    if repro.get("strict"):
        return "yes"
    return "echo only" if repro["reproduces"] else "NO"


def original_row(original: dict) -> list[str]:
    return ["original", "", "", "", "", _fmt(original["lines"]), _fmt(original["tokens"]), _fmt(original["nodes"]), "yes"]


def ratios(case_result: dict) -> dict:
    """ours / reference for time and nodes, when both finished with an output."""
    tools = case_result["tools"]
    ours, ref = tools.get("ours"), tools.get("reference")
    if not (ours and ref and ours.get("final") and ref.get("final")):
        return {}
    out = {}
    if ours["status"] == "ok" and ref["status"] == "ok" and ref["wall_s"]:
        out["time"] = round(ours["wall_s"] / ref["wall_s"], 3)
    if ours["final"]["nodes"] and ref["final"]["nodes"]:
        out["nodes"] = round(ours["final"]["nodes"] / ref["final"]["nodes"], 3)
    return out


def case_rows(case_result: dict) -> list[list[str]]:
    rows = [original_row(case_result["original"])]
    rows += [tool_row(name, record) for name, record in sorted(case_result["tools"].items())]
    return rows


def ratio_line(case_result: dict) -> str:
    r = ratios(case_result)
    if not r:
        return "ours/reference: n/a (needs both tools to produce an output)"
    parts = [f"{key} {value:.2f}x" for key, value in r.items()]
    return "ours/reference: " + ", ".join(parts)


def notes(case_result: dict) -> list[str]:
    """One line per tool that did not end cleanly, with the reason; the spread of repeated runs; a
    verdict a person wrote by eye into the record (`verdict`: a new run replaces the record, and drops it)."""
    lines = []
    for name, record in sorted(case_result["tools"].items()):
        if record.get("verdict"):
            lines.append(f"{name}, the maintainer's verdict by eye: {record['verdict']}")
        if record.get("detail"):
            lines.append(f"{name}: {record['detail']}")
        if record.get("runs"):
            lines.append(f"{name}: {spread(record['runs'])}")
        repro = record.get("repro")
        if repro and not repro["reproduces"]:
            lines.append(f"{name} output does not reproduce: {repro['why']}")
        elif repro and not repro.get("strict"):
            lines.append(f"{name} output shows the message only inside a traceback's quoted source line")
    return lines


def print_tables(results: dict) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(render_markdown(results))
        return
    # Outside a terminal rich assumes 80 columns and truncates; tables need ~110.
    console = Console(width=None if sys.stdout.isatty() else 120)
    for name, case_result in results["cases"].items():
        table = Table(title=f"{name}: {failure_of(case_result)}")
        for column in COLUMNS:
            table.add_column(column, justify="left" if column in ("tool", "status") else "right")
        for row in case_rows(case_result):
            table.add_row(*row)
        console.print(table)
        console.print(ratio_line(case_result))
        for line in notes(case_result):
            console.print(f"  [yellow]{line}[/yellow]", markup=True, highlight=False)
        rows = fidelity.case_rows(case_result)
        if rows:
            table = Table(title=f"{name}: fidelity (each program run alone)")
            for column in fidelity.CASE_COLUMNS:
                table.add_column(column, overflow="fold")
            for row in rows:
                table.add_row(*row)
            console.print(table, markup=False, highlight=False)
    rows = fidelity.summary_rows(results)
    if rows:
        table = Table(title="fidelity: is each result the same bug?")
        for column in fidelity.SUMMARY_COLUMNS:
            table.add_column(column)
        for row in rows:
            table.add_row(*row)
        console.print(table)


def render_markdown(results: dict) -> str:
    out = ["# AutoDD benchmark results", ""]
    out += [f"- {key}: {value}" for key, value in results["machine"].items()]
    out.append("")
    out += fidelity.render_summary(results)
    for name, case_result in results["cases"].items():
        out += [f"## {name}", "", case_result["description"], "",
                f"`{failure_of(case_result, json.dumps)}`, "
                f"per-candidate timeout {case_result['timeout']} s, -j {case_result['jobs']}", ""]
        out.append("| " + " | ".join(COLUMNS) + " |")
        out.append("|" + "|".join("---" for _ in COLUMNS) + "|")
        out += ["| " + " | ".join(row) + " |" for row in case_rows(case_result)]
        out += ["", ratio_line(case_result), ""]
        out += [f"- {line}" for line in notes(case_result)]
        out.append("")
        out += fidelity.render_case(case_result)
    return "\n".join(out)


def write_outputs(results: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (folder / "results.md").write_text(render_markdown(results))
    if importlib.util.find_spec("matplotlib") is None:
        print("benchmarks: no plot (size_over_time.png needs matplotlib: pip install -e '.[bench]')", file=sys.stderr)
        return
    plot_size_over_time(results, folder / "size_over_time.png")


def plot_size_over_time(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(results["cases"].items())
    if not cases:
        return
    columns = min(2, len(cases))
    rows = -(-len(cases) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.5 * columns, 4 * rows), squeeze=False)
    for ax, (name, case_result) in zip(axes.flat, cases, strict=False):
        _plot_case(ax, name, case_result)
    for ax in list(axes.flat)[len(cases):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_case(ax, name: str, case_result: dict) -> None:
    start_nodes = case_result["original"]["nodes"]
    for tool, record in sorted(case_result["tools"].items()):
        samples = record.get("samples") or []
        if not samples:
            ax.plot([], [], label=f"{tool} ({record['status']})")
            continue
        times = [0.0] + [t for t, _ in samples] + [record["wall_s"]]
        nodes = [start_nodes] + [n for _, n in samples] + [samples[-1][1]]
        ax.step(times, nodes, where="post", label=f"{tool} ({record['status']})")
        ax.plot([times[-1]], [nodes[-1]], "o", color=ax.lines[-1].get_color())
    ax.set_title(name)
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("AST nodes")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def failure_of(case_result: dict, quote=repr) -> str:
    """The failure kept, as the command line says it: `--err-msg '...'` or `--crash SIGSEGV`."""
    failure = case_result.get("failure") or ""
    return failure if failure and not failure.startswith("--err-msg") else f"--err-msg {quote(case_result['err_msg'])}"


def _fmt(value, missing: str = "-") -> str:
    if value is None:
        return missing
    return f"{value:,}" if isinstance(value, int) else str(value)
