"""Is the result the same bug? The fidelity table of the benchmark.

For each case the original and each tool's result are run alone (a fresh
`python` in an empty temporary folder holding a copy, as `measure.py` does)
and compared on what a maintainer would look at:

* the failure line: the last line of the output (stdout, then stderr) that
  shows the message outside traceback-quoted source
  (`autodd_lsp.oracle.failure.matching_lines`), compared after
  `autodd_lsp.oracle.normalize.normalize_line` with the program's own path
  masked (memory addresses, temporary paths, line numbers);
* the place: the innermost traceback frame of that line outside the program's
  file (library code, e.g. TileLang's `gemm_op.py` at its line) must be the same
  file and line, and either both or neither must have their innermost frame in
  the program itself. The source line of the innermost frame in the program is
  shown beside it, for a reader to judge what the rule cannot;
* degenerate values (`autodd_lsp.oracle.degenerate.degenerate_values`): kinds
  the result has more of than the original (zero-sized shapes, empty strings,
  empty collections);
* AST nodes before and after.

`observe` and `compare` are pure functions of what was run and its output, so
they are tested on small programs (tests/test_benchmark_fidelity.py).
"""

from __future__ import annotations

import ast
import os
import re
import sys
import tempfile
from pathlib import Path

from autodd_lsp.oracle.degenerate import degenerate_values
from autodd_lsp.oracle.failure import matching_lines
from autodd_lsp.oracle.normalize import normalize_line
from autodd_lsp.oracle.tracebacks import frames_of_lines
from benchmarks.measure import run_copy_alone

# Longest failure line or source line shown in a table cell (the JSON keeps all of it).
CELL_LIMIT = 140


# --- running a program alone -------------------------------------------------------------


def run_alone(program: Path, message: str, timeout: float, env: dict | None = None, in_place: bool = False,
              test: str = "") -> dict:
    """Run a copy of `program` with a fresh interpreter in an empty folder (an original: in
    its own folder); observe its failure. `test`: a pytest node id in the file, run under pytest."""
    text = program.read_text()
    proc, copy_path = run_copy_alone(program, timeout, env, in_place, test)
    if proc is None:
        observed = observe("", message, text, copy_path)
        observed["exit"] = f"timed out after {timeout:g} s"
        return observed
    # Same order as the engine's oracle: stdout, then stderr.
    observed = observe(proc.stdout + "\n" + proc.stderr, message, text, copy_path)
    observed["exit"] = str(proc.returncode)
    return observed


# --- what one run shows ------------------------------------------------------------------


def observe(output: str, message: str, text: str, program_path: str) -> dict:
    """The failure one run of `text` (run as `program_path`) shows in `output`.

    Keys: `line` (the failure line, or None when the message is absent),
    `shown` (the line with the run's temporary path shortened to the program's
    file name, for tables), `normalized`, `traceback` (whether the line is an exception's text with
    frames), `library_frame` ("file:line" of the innermost frame outside the
    program, or None), `innermost_in_program`, `program_frame` (the line number
    of the innermost frame in the program) and `program_source` (that line of
    the program, stripped), `library_source` (the line of the innermost frame
    outside the program, stripped, when that frame is in a module beside the
    program: inlining moves it into the program), `degenerate` (kind -> count,
    None if the text does not parse) and `nodes`.
    """
    lines = output.splitlines()
    index = last_match_index(lines, message, text)
    frames = frames_of_lines(lines).get(index, ()) if index is not None else ()
    in_program = [_is_program(frame.file, program_path) for frame in frames]
    library = [frame for frame, inside in zip(frames, in_program, strict=False) if not inside]
    program = [frame for frame, inside in zip(frames, in_program, strict=False) if inside]
    line = lines[index] if index is not None else None
    tree = _parse(text)
    return {
        "line": line,
        "shown": line.replace(program_path, os.path.basename(program_path)) if line is not None else None,
        "normalized": normalize_line(line, (program_path,)) if line is not None else None,
        "traceback": bool(frames),
        "library_frame": f"{normalize_line(library[-1].file, (program_path,))}:{library[-1].line}" if library else None,
        "innermost_in_program": in_program[-1] if frames else None,
        "program_frame": program[-1].line if program else None,
        "program_source": _source_line(text, program[-1].line, tree) if program else None,
        "library_source": _local_source(library[-1], program_path) if library else None,
        "degenerate": dict(degenerate_values(tree)) if tree is not None else None,
        "nodes": sum(1 for _ in ast.walk(tree)) if tree is not None else None,
    }


def last_match_index(lines: list[str], message: str, text: str) -> int | None:
    """Index in `lines` of the last line `matching_lines` accepts, or None.

    A match that carries its position (`Match.index`) says it; otherwise, as
    what `matching_lines` accepts in a prefix of the output is a prefix of what
    it accepts in the whole, the position of the last match is the length of
    the shortest prefix that has all the matches, less one.
    """
    matches = matching_lines("\n".join(lines), message, text)
    if not matches:
        return None
    index = getattr(matches[-1], "index", -1)
    if 0 <= index < len(lines) and lines[index] == matches[-1].line:
        return index
    total = len(matches)
    low, high = 1, len(lines)  # the shortest prefix length with `total` matches is in [low, high]
    while low < high:
        middle = (low + high) // 2
        if len(matching_lines("\n".join(lines[:middle]), message, text)) >= total:
            high = middle
        else:
            low = middle + 1
    return low - 1


def _local_source(frame, program_path: str) -> str | None:
    """The stripped source line of `frame` when its file is one of the program's own modules."""
    folder = os.path.dirname(os.path.abspath(program_path)) + os.sep
    if not os.path.abspath(frame.file).startswith(folder):
        return None
    try:
        with open(frame.file, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return lines[frame.line - 1].strip() if 0 < frame.line <= len(lines) else None


def _is_program(file: str, program_path: str) -> bool:
    if file == program_path:
        return True
    folder = os.path.dirname(program_path)
    return os.path.realpath(os.path.join(folder, file)) == os.path.realpath(program_path)


def _parse(text: str) -> ast.AST | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _source_line(text: str, number: int, tree: ast.AST | None = None) -> str | None:
    """Line `number` of `text`, stripped; the whole simple statement that starts
    there when it spans several lines (a traceback quotes only its first line,
    `manager = {`, where the statement is `manager = {}[region]`)."""
    lines = text.splitlines()
    if not 0 < number <= len(lines):
        return None
    statement = _statement_at(tree, number) if tree is not None else None
    if statement is None or statement.end_lineno == number or hasattr(statement, "body"):
        return lines[number - 1].strip()
    segment = ast.get_source_segment(text, statement) or lines[number - 1]
    parts = [part.strip() for part in segment.splitlines()]
    joined = " ".join(part for part in parts if part)
    return re.sub(r" (?=[)\]}])", "", re.sub(r"(?<=[(\[{]) ", "", joined))


def _statement_at(tree: ast.AST, number: int) -> ast.stmt | None:
    """The innermost statement that starts on line `number`."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == number:
            if found is None or (node.end_lineno or number) <= (found.end_lineno or number):
                found = node
    return found


# --- comparing a result with the original ------------------------------------------------


def compare(original: dict, result: dict) -> dict:
    """How the result's failure relates to the original's.

    `line`: "same" (equal after normalizing), "differs", or "absent" (the
    result shows no failure line). `same_place`: "yes", "no", or "n/a" when
    neither failure line comes with a traceback (a printed message, a C++
    check). `more_degenerate`: kind -> how many more the result has.
    """
    if result["line"] is None:
        line = "absent"
    else:
        line = "same" if result["normalized"] == original["normalized"] else "differs"
    return {
        "line": line,
        "same_place": same_place(original, result),
        "more_degenerate": more_degenerate(original.get("degenerate"), result.get("degenerate")),
        "nodes_before": original.get("nodes"),
        "nodes_after": result.get("nodes"),
    }


def same_place(original: dict, result: dict) -> str:
    if result["line"] is None:
        return "no"
    if not original["traceback"] and not result["traceback"]:
        return "n/a"
    if original["traceback"] != result["traceback"]:
        return "no"
    if original["library_frame"] != result["library_frame"]:
        moved = original.get("library_source") is not None and result["library_frame"] is None
        if moved and result["innermost_in_program"] and result["program_source"] == original["library_source"]:
            return "yes (inlined)"  # the user's module is in the program now; the raising statement is the same
        return "no"
    if original["innermost_in_program"] != result["innermost_in_program"]:
        return "no"
    return "yes"


def more_degenerate(original: dict | None, result: dict | None) -> dict:
    """Kinds the result has more of than the original, with how many more."""
    if original is None or result is None:
        return {}
    return {kind: count - original.get(kind, 0) for kind, count in result.items() if count > original.get(kind, 0)}


# --- filling a benchmark's results -------------------------------------------------------


def original_failure(source: Path, message: str, timeout: float, env: dict, test: str = "") -> dict:
    return run_alone(source, message, timeout, env, in_place=True, test=test)


def tool_fidelity(original: dict, output: Path, message: str, timeout: float, env: dict, test: str = "") -> dict:
    """The `fidelity` entry of a tool's record: its result's failure and the comparison."""
    result = run_alone(output, message, timeout, env, test=test)
    return {"failure": result, **compare(original, result)}


def output_of(folder: Path, kept_name: str, record: dict) -> Path | None:
    """A tool's kept output (`kept_name`: `Case.kept_name`): under `folder` first (results copied
    elsewhere keep working), else where the record says it was written."""
    for candidate in (folder / "outputs" / kept_name, record.get("output")):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def refresh(results: dict, folder: Path, cases_by_name: dict, timeout_of, env: dict, missing_modules) -> None:
    """Recompute the fidelity of every case and tool in `results` that can be run here."""
    for name, case_result in results["cases"].items():
        case = cases_by_name.get(name)
        if case is not None and case.flags:
            continue  # a failure without a message: no message line to compare
        if case is None or missing_modules(case):
            print(f"fidelity: skipping {name} (unknown case or missing modules)")
            continue
        records = {tool: record for tool, record in case_result["tools"].items()
                   if output_of(folder, case.kept_name(tool), record) is not None}
        if not records:
            continue
        print(f"fidelity: {name} ...", flush=True)
        with tempfile.TemporaryDirectory(prefix=f"autodd-fidelity-{name}-") as tmp:
            source = case.materialize(Path(tmp) / "original")
            original = original_failure(source, case_result["err_msg"], timeout_of(case), env, case.test)
        case_result["original"]["failure"] = original
        for tool, record in records.items():
            output = output_of(folder, case.kept_name(tool), record)
            if output is None:  # kept only the records with an output (above)
                continue
            record["fidelity"] = tool_fidelity(original, output, case_result["err_msg"], timeout_of(case), env,
                                               case.test)


# --- tables ------------------------------------------------------------------------------

SUMMARY_COLUMNS = ["case", "tool", "failure line", "same place", "more degenerate", "AST nodes"]
CASE_COLUMNS = ["program", "failure line", "line", "same place", "innermost frame outside the program",
                "innermost program frame", "more degenerate", "AST nodes"]


def summary_rows(results: dict) -> list[list[str]]:
    rows = []
    for name, case_result in results["cases"].items():
        for tool, record in sorted(case_result["tools"].items()):
            fidelity = record.get("fidelity")
            if not fidelity:
                continue
            rows.append([name, tool, fidelity["line"], fidelity["same_place"],
                         degenerate_label(fidelity["more_degenerate"]), nodes_label(fidelity)])
    return rows


def case_rows(case_result: dict) -> list[list[str]]:
    """Rows of one case's fidelity table: the original, then each tool with a result."""
    original = case_result["original"].get("failure")
    if not original:
        return []
    rows = [["original", _line_cell(original), "", "", _frame_cell(original["library_frame"]),
             _program_cell(original), "", _fmt(original["nodes"])]]
    for tool, record in sorted(case_result["tools"].items()):
        fidelity = record.get("fidelity")
        if not fidelity:
            continue
        result = fidelity["failure"]
        rows.append([tool, _line_cell(result), fidelity["line"], fidelity["same_place"],
                     _frame_cell(result["library_frame"]), _program_cell(result),
                     degenerate_label(fidelity["more_degenerate"]), _fmt(result["nodes"])])
    return rows


def degenerate_label(more: dict) -> str:
    return ", ".join(f"{kind} +{count}" for kind, count in sorted(more.items())) or "none"


def nodes_label(fidelity: dict) -> str:
    return f"{_fmt(fidelity['nodes_before'])} → {_fmt(fidelity['nodes_after'])}"


def _line_cell(failure: dict) -> str:
    if failure["line"] is None:
        return f"(message absent; exit {failure.get('exit', '?')})"
    return _clip((failure.get("shown") or failure["line"]).strip())


def _frame_cell(frame: str | None) -> str:
    return _short_path(frame) if frame else "-"


def _program_cell(failure: dict) -> str:
    if failure["program_frame"] is None:
        return "-"
    return f"line {failure['program_frame']}: {_clip(failure['program_source'] or '?')}"


def _short_path(path: str) -> str:
    """`tilelang/language/gemm_op.py:83` rather than the whole site-packages path."""
    marker = "site-packages" + os.sep
    if marker in path:
        return path.split(marker, 1)[1]
    prefix = sys.prefix + os.sep
    return path[len(prefix):] if path.startswith(prefix) else path


def _clip(text: str) -> str:
    return text if len(text) <= CELL_LIMIT else text[: CELL_LIMIT - 1] + "…"


def _fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else str(value)


def markdown_cell(text: str) -> str:
    """Text as a Markdown table cell: code spans for failure and source lines, pipes escaped."""
    return text.replace("|", "\\|")


def code(text: str) -> str:
    """`text` as an inline code span, with a fence longer than any backtick run inside it."""
    if text in ("", "-") or text.startswith("(message absent"):
        return text
    run = longest = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_summary(results: dict) -> list[str]:
    rows = summary_rows(results)
    if not rows:
        return []
    out = ["## Fidelity", "",
           "Is each result the same bug? (see docs/reference.md's fidelity columns; "
           "the per-case tables below show the lines and frames)", "",
           "| " + " | ".join(SUMMARY_COLUMNS) + " |", "|" + "|".join("---" for _ in SUMMARY_COLUMNS) + "|"]
    out += ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in rows]
    out.append("")
    return out


def render_case(case_result: dict) -> list[str]:
    rows = case_rows(case_result)
    if not rows:
        return []
    out = ["Fidelity (each program run alone):", "",
           "| " + " | ".join(CASE_COLUMNS) + " |", "|" + "|".join("---" for _ in CASE_COLUMNS) + "|"]
    for row in rows:
        cells = list(row)
        cells[1] = code(cells[1])
        cells[5] = _code_after_label(cells[5])
        out.append("| " + " | ".join(markdown_cell(cell) for cell in cells) + " |")
    out.append("")
    return out


def _code_after_label(cell: str) -> str:
    label, sep, source = cell.partition(": ")
    return f"{label}: {code(source)}" if sep else cell
