"""A Jupyter notebook as one Python program, and back: the one home of AutoDD's notebook rules.

    program = notebook_program("analysis.ipynb")    # NotebookError (one line) for a bad one
    program.text                      # the code cells, in order, as one script
    program.where(17)                 # "cell 3, line 2": a program line, as the person sees it
    program.explain(output)           # tracebacks' `File "analysis.ipynb", line 17` -> `cell 3, line 2`
    notebook_text(reduced)            # a reduced program as an nbformat-4 notebook (`-o x.ipynb`)

Used by the CLI and the language server alike; the engine never sees a notebook:
it reduces `program.text` under the notebook's own path (candidates are
`.autodd-<pid>-jobN-analysis.ipynb`, which Python runs as any script), so the
tracebacks name the notebook, and `explain` maps their lines to cells.

**Cells.** nbformat 4 (read with the `nbformat` library, which also upgrades
older versions). Code cells run in notebook order as one program, as "Run All"
in a fresh kernel would; markdown and raw cells are dropped. Each code cell
starts with a `# %% [cell N]` line (VS Code's, Jupytext's and Spyder's cell
marker; N counts every cell, 1-based, as the person scrolls), which the
comment pass never removes, so `notebook_text` can split the result back
into cells. A cell's last expression is evaluated but, unlike in a kernel,
not displayed.

**IPython syntax** (a line that starts, after its indentation, with `%` or `!`):

* display-only line magics (`%matplotlib`, `%config`, `%load_ext`/`%reload_ext`,
  `%autoreload`, `%precision`, `%pprint`, `%xmode`, `%who`...) are dropped: the line
  becomes a comment (`pass` with a comment where a block needs a statement);
* `%time STMT` / `%timeit [-n N -r R] STMT` become STMT; a cell starting with
  `%%time` or `%%timeit` becomes its body (what they time still runs once);
* `%env NAME=VALUE` (or `%env NAME VALUE`) becomes `os.environ[NAME] = VALUE`;
* cells of `%%html`, `%%markdown`, `%%latex`, `%%javascript`, `%%svg` show
  text and run no Python: dropped;
* anything else (`!pip install`, `%run`, `%cd`, `%pip`, `%%bash`, `%%writefile`,
  `x = !ls`, ...) changes what the program does in a way a script cannot
  reproduce faithfully: `NotebookError` naming its cell and line.

A line is taken for IPython syntax by its first character alone (a `%` at the
start of a line inside a multi-line string would be taken too).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

MARKER = re.compile(r"^# %% \[cell (\d+)\]$")
_DISPLAY_ONLY = {
    "matplotlib", "config", "load_ext", "reload_ext", "autoreload", "aimport", "precision", "pprint", "xmode",
    "colors", "who", "whos", "who_ls", "lsmagic", "magic", "quickref", "page", "pinfo", "pinfo2", "pdoc",
    "psource", "pdef", "pfile", "history", "hist", "notebook", "doctest_mode", "pylab",
}
_UNWRAPPED = {"time", "timeit"}
_SHOW_ONLY_CELLS = {"html", "markdown", "latex", "javascript", "js", "svg"}
_TIMEIT_OPTION = re.compile(r"^(?:-[nr]\s*\d+|-[qo]|-p\s*\d+|-c)\s+")
_ASSIGNED_SHELL = re.compile(r"^\s*[\w.,\s\[\]()]+=\s*[!%]")


class NotebookError(ValueError):
    """A notebook AutoDD cannot run as a script; one line for the person."""


def is_notebook(path: str) -> bool:
    return path.lower().endswith(".ipynb")


@dataclass(frozen=True)
class Origin:
    cell: int  # 1-based, counting every cell
    line: int  # 1-based within the cell's source

    def __str__(self) -> str:
        return f"cell {self.cell}, line {self.line}"


@dataclass(frozen=True)
class NotebookProgram:
    path: str
    text: str
    origins: tuple[Origin | None, ...]  # per program line (0-based index); None: a marker line

    def where(self, line: int) -> str:
        """A 1-based program line as "cell N, line M" ("line K" if it is none of a cell's)."""
        origin = self.origins[line - 1] if 1 <= line <= len(self.origins) else None
        return str(origin) if origin is not None else f"line {line}"

    def explain(self, output: str) -> str:
        """`output` with each traceback frame of the notebook placed in its cell."""
        name = re.escape(self.path.rsplit("/", 1)[-1])
        frame = re.compile(rf'(File "[^"]*{name}", )line (\d+)')
        return frame.sub(lambda match: match.group(1) + self.where(int(match.group(2))), output)


def notebook_program(path: str) -> NotebookProgram:
    """The notebook at `path` as one program (see the module docstring); NotebookError, OSError."""
    import nbformat  # only notebooks need it

    try:
        with open(path, encoding="utf-8") as handle:
            notebook = nbformat.read(handle, as_version=4)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise NotebookError(f"{path}: not a notebook (its JSON does not parse: {error})") from None
    except nbformat.reader.NotJSONError:
        raise NotebookError(f"{path}: not a notebook (not JSON)") from None
    except (nbformat.ValidationError, KeyError, AttributeError, TypeError) as error:
        raise NotebookError(f"{path}: not an nbformat-4 notebook ({str(error).splitlines()[0]})") from None
    lines: list[str] = []
    origins: list[Origin | None] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        converted = _cell_lines(source if isinstance(source, str) else "".join(source), number)
        if converted is None:
            continue
        lines.append(f"# %% [cell {number}]")
        origins.append(None)
        for line_number, line in converted:
            lines.append(line)
            origins.append(Origin(number, line_number))
    return NotebookProgram(path, "\n".join(lines) + "\n" if lines else "", tuple(origins))


def _cell_lines(source: str, cell: int) -> list[tuple[int, str]] | None:
    """A code cell's lines with IPython syntax resolved; None for a cell that runs no Python."""
    lines = source.splitlines()
    numbered = list(enumerate(lines, start=1))
    if lines and lines[0].lstrip().startswith("%%"):
        name = lines[0].lstrip()[2:].split(maxsplit=1)[0] if lines[0].lstrip()[2:].strip() else ""
        if name in _SHOW_ONLY_CELLS:
            return None
        if name not in _UNWRAPPED:
            raise NotebookError(f"cell {cell}, line 1: the cell magic %%{name} cannot run as Python; "
                                "remove it (or run what it does in Python) and save the notebook")
        numbered = numbered[1:]  # %%time / %%timeit: its body runs once
    return [(number, _line(line, cell, number)) for number, line in numbered]


def _line(line: str, cell: int, number: int) -> str:
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    where = f"cell {cell}, line {number}"
    if stripped.startswith("!") or _ASSIGNED_SHELL.match(line):
        raise NotebookError(f"{where}: {stripped!r} is IPython syntax a script cannot run; remove it (do what "
                            "it does before running AutoDD, or in Python) and save the notebook")
    if not stripped.startswith("%"):
        return line
    name, _, rest = stripped[1:].partition(" ")
    rest = rest.strip()
    if name in _DISPLAY_ONLY:
        return f"{indent}pass  # {stripped}" if indent else f"# {stripped}"
    if name == "time" and rest:
        return indent + rest
    if name == "timeit" and rest:
        while _TIMEIT_OPTION.match(rest):
            rest = _TIMEIT_OPTION.sub("", rest, count=1)
        return indent + rest
    if name == "env":
        assignment = _env_assignment(rest)
        if assignment is not None:
            return indent + assignment
    raise NotebookError(f"{where}: the magic %{name} changes what the program does and cannot run as Python; "
                        "remove it (or do it in Python) and save the notebook")


def _env_assignment(rest: str) -> str | None:
    """`%env A=B` / `%env A B` as Python (IPython's own two forms); None for another form."""
    if "=" in rest:
        name, _, value = rest.partition("=")
    else:
        parts = rest.split(maxsplit=1)
        if len(parts) != 2:
            return None
        name, value = parts
    name = name.strip()
    if not name.isidentifier():
        return None
    value = value.strip()
    try:
        words = shlex.split(value) if value else [""]
    except ValueError:
        words = [value]
    return f"__import__('os').environ[{name!r}] = {' '.join(words)!r}"


def notebook_text(program: str) -> str:
    """A (reduced) program as an nbformat-4 notebook: one code cell per `# %% [cell N]` part."""
    import nbformat

    cells: list[list[str]] = []
    for line in program.splitlines():
        if MARKER.match(line) or not cells:
            cells.append([])
        if not MARKER.match(line):
            cells[-1].append(line)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("\n".join(lines).strip("\n")) for lines in cells
                      if "\n".join(lines).strip()]
    return nbformat.writes(notebook)
