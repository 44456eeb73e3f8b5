"""Size metrics for a program, and the standalone reproduction check."""

import ast
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# One definition of size for the product and the benchmark: AST nodes via
# ast.walk, tokens without layout, non-blank lines.
from autodd_lsp.syntax.metrics import count_lines, count_nodes, count_tokens


def count_ast_nodes(source: str) -> int | None:
    """AST nodes, or None for text that does not parse (e.g. a half-written file)."""
    try:
        return count_nodes(ast.parse(source))
    except (SyntaxError, ValueError):
        return None


def program_size(source: str) -> dict:
    nodes = count_ast_nodes(source)
    return {
        "lines": count_lines(source),
        "tokens": count_tokens(source) if nodes is not None else None,
        "nodes": nodes,
    }


def run_copy_alone(
    program: Path, timeout: float, env: dict | None, in_place: bool = False, test: str = "",
    args: tuple[str, ...] = (), check: str = "",
) -> tuple[subprocess.CompletedProcess | None, str]:
    """Run a copy of `program` with a fresh interpreter in an empty folder: the run
    (None: it timed out) and the path the copy ran as (gone by then).

    The empty folder makes sure the output doesn't lean on files next to the
    original (e.g. importing the unreduced program as a module). An original
    runs `in_place` instead: beside the data and modules it was given. A pytest case
    (`test`: the node id in the file) runs as `python -m pytest FILE::test --tb=native`.
    `args`: the program's own arguments. A notebook runs as the script of its code cells.
    `check`: the user's check (`--check CMD`) runs instead, in the program's own folder
    (beside the driver it names), `{}` being the program.
    """
    with tempfile.TemporaryDirectory(prefix="autodd-repro-") as scratch:
        folder, copy = scratch, Path(scratch) / program.name
        if in_place or check:
            folder, copy = str(program.parent), program
        else:
            shutil.copyfile(program, copy)
        run = copy.name
        if copy.suffix == ".ipynb":
            from autodd_lsp.notebook import notebook_program

            script = Path(scratch) / f"{copy.stem}.cells.py"
            script.write_text(notebook_program(str(copy)).text)
            run = str(script)
        try:
            command = [sys.executable, run, *args]
            if check:
                command = ["/bin/sh", "-c", check.replace("{}", shlex.quote(str(copy)))]
            if test:
                # The engine's output options (engine/spec/pytest_target.py): the exception is the last line
                # with the message (no short summary), the test's own output comes before it.
                command = [sys.executable, "-m", "pytest", f"{copy.name}::{test}", "--tb=native", "-q", "-rN",
                           "-s", "-p", "no:cacheprovider"]
            return subprocess.run(
                command,
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                stdin=subprocess.DEVNULL, check=False,
            ), str(copy)
        except subprocess.TimeoutExpired:
            return None, str(copy)


def reproduces_standalone(program: Path, err_msg: str, timeout: float, env: dict,
                          returncode: int | None = None, in_place: bool = False, test: str = "",
                          args: tuple[str, ...] = (), check: str = "") -> dict:
    """Run `program` alone (see run_copy_alone); look for err_msg, or, for a failure
    without a message, for its exit status `returncode` (negative: killed by that signal;
    with `check`, 0: the check's)."""
    proc, _ = run_copy_alone(program, timeout, env, in_place, test, args, check)
    if proc is None:
        return {"reproduces": False, "why": f"timed out after {timeout:g}s"}
    if returncode is not None:
        same = proc.returncode == returncode
        why = "" if same else f"exit {proc.returncode}, not {returncode}: {_last_line(proc.stderr)}"
        return {"reproduces": same, "strict": same, "why": why}
    found = err_msg in proc.stdout or err_msg in proc.stderr
    strict = err_msg in proc.stdout or err_msg in without_traceback_frames(proc.stderr)
    why = "" if found else f"exit {proc.returncode}, message absent: {_last_line(proc.stderr)}"
    return {"reproduces": found, "strict": strict, "why": why}


def without_traceback_frames(stderr: str) -> str:
    """Drop the indented lines of tracebacks (frame headers, quoted source, carets).

    Both tools accept a candidate when the message appears anywhere in the
    output, and a traceback quotes the failing source line, so a program like
    `raise f"<message>"` (a TypeError) "reproduces" by echoing its own source.
    What is left here is the exception line itself and anything printed
    unindented, which is where a genuine reproduction shows the message.
    """
    return "\n".join(line for line in stderr.splitlines() if not line.startswith((" ", "\t")))


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no stderr)"
