"""A Jupyter notebook as one Python program, and back: the one home of AutoDD's notebook rules.

    program = notebook_program("analysis.ipynb")    # NotebookError (one line) for a bad one
    program.text                      # the code cells, in order, as one script
    program.where(17)                 # "cell 3, line 2": a program line, as the person sees it
    program.explain(output)           # tracebacks' `File "analysis.ipynb", line 17` -> `cell 3, line 2`
    notebook_text(reduced, program)   # a reduced program as an nbformat-4 notebook (`-o x.ipynb`)

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
not displayed. Every line of a cell stays one line of the program (so
`where` is exact), IPython syntax included:

* shell lines run through the shell, as IPython runs them: `!cmd` (and
  `%system`) becomes `__import__('os').system('cmd')`; `x = !cmd`, `!!cmd`
  and `%sx` become `__import__('subprocess').getoutput('cmd').splitlines()`
  (IPython's list of output lines, stderr included); `{expr}` in the command
  is Python's (an f-string) when every brace holds an expression, as
  IPython's expansion does all or nothing; `$name` is left to the shell;
  `%pip ARGS` runs `sys.executable -m pip ARGS`; `%conda`/`%mamba` add
  `--yes` and `--prefix sys.prefix` where IPython does; `%cd DIR` changes
  directory;
* display-only line magics (`%matplotlib`, `%config`, `%load_ext`/`%reload_ext`,
  `%autoreload`, `%precision`, `%pprint`, `%xmode`, `%who`...) are dropped: the line
  becomes a comment (`pass` with a comment where a block needs a statement);
* `%time STMT` / `%timeit [-n N -r R] STMT` become STMT; a cell starting with
  `%%time`, `%%timeit`, `%%capture` or `%%prun` becomes its body (what they
  time or capture still runs once; a `%%capture NAME` leaves NAME unbound);
* `%env NAME=VALUE` (or `%env NAME VALUE`) becomes `os.environ[NAME] = VALUE`;
* a `%%bash`, `%%sh` or `%%script bash|sh` cell becomes one statement that runs
  its body with that shell and raises `CalledProcessError` on a non-zero exit
  (IPython 8's default; `--no-raise-error` does not); a `%%writefile [-a] FILE`
  cell writes (appends) its body to FILE. The body stays the cell's lines
  (a raw string: it opens on the magic's line for a shell, before the body's
  first line for a file; the call ends on a line of the magic's own), so the
  reduction drops lines of it as of any string;
* cells of `%%html`, `%%markdown`, `%%latex`, `%%javascript`, `%%svg` show
  text and run no Python: dropped;
* anything else (`%run`, `%%perl`, `x = %time f()`, a `%%bash` body holding
  `'''`, ...) changes what the program does in a way a script cannot
  reproduce faithfully: `NotebookError` naming its cell and line.

**Back to a notebook.** `notebook_text(reduced, program)` writes each surviving
cell back as the person wrote it: a translated line still exactly as translated
(and the only one of its text in its cell) is its IPython line again (`!pip
list`, `%matplotlib inline`), a cell magic's statement still exactly its
translation is the `%%bash` cell again (with the lines the reduction left), and
a `%%time`-like cell gets its first line back. A translated line the reduction
changed stays the Python it became: it still runs in a kernel.

A line is taken for IPython syntax by its first character (after its indentation),
unless it lies inside a multi-line string (`!important` in a docstring stays text).
"""

from __future__ import annotations

import io
import json
import re
import shlex
import tokenize
from dataclasses import dataclass, field

MARKER = re.compile(r"^# %% \[cell (\d+)\]$")
_DISPLAY_ONLY = {
    "matplotlib", "config", "load_ext", "reload_ext", "autoreload", "aimport", "precision", "pprint", "xmode",
    "colors", "who", "whos", "who_ls", "lsmagic", "magic", "quickref", "page", "pinfo", "pinfo2", "pdoc",
    "psource", "pdef", "pfile", "history", "hist", "notebook", "doctest_mode", "pylab", "pdb", "autosave",
}
_UNWRAPPED = {"time", "timeit", "capture", "prun"}
_SHOW_ONLY_CELLS = {"html", "markdown", "latex", "javascript", "js", "svg"}
_SHELL_CELLS = {"bash": "bash", "sh": "sh"}
_TIMEIT_OPTION = re.compile(r"^(?:-[nr]\s*\d+|-[qo]|-p\s*\d+|-c)\s+")
_ASSIGNED_SHELL = re.compile(r"^(\s*)([\w.,\s\[\]()]+?)\s*=\s*([!%].*)$")
_CAPTURED = re.compile(r"^(?:!!?|%sx\b|%system\b)")
_CONDA_YES = {"install", "remove", "uninstall", "update", "upgrade"}
_CONDA_PREFIX = _CONDA_YES | {"list"}
_BODY_END = "'''"
_STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


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
    # per cell: a translated line -> the IPython line it was (only texts found once in their cell)
    spelled: dict[int, dict[str, str]] = field(default_factory=dict)
    # per cell: the cell magic's first line (`%%time`, `%%bash`), the statement's opening and end, and
    # what its first body line starts with
    magics: dict[int, tuple[str, str, str, str]] = field(default_factory=dict)

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
    spelled: dict[int, dict[str, str]] = {}
    magics: dict[int, tuple[str, str, str, str]] = {}
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        converted = _Cell(source if isinstance(source, str) else "".join(source), number).convert()
        if converted is None:
            continue
        lines.append(f"# %% [cell {number}]")
        origins.append(None)
        for line_number, line, _ in converted.lines:
            lines.append(line)
            origins.append(Origin(number, line_number))
        texts = [line for _, line, _ in converted.lines]
        once = {line: original for _, line, original in converted.lines
                if original is not None and texts.count(line) == 1}
        if once:
            spelled[number] = once
        if converted.magic is not None:
            magics[number] = converted.magic
    text = "\n".join(lines) + "\n" if lines else ""
    return NotebookProgram(path, text, tuple(origins), spelled, magics)


@dataclass
class _Converted:
    lines: list[tuple[int, str, str | None]]  # (cell line, program line, the IPython line it was)
    magic: tuple[str, str, str, str] | None = None  # (cell magic line, opening, end, first body line's start)


@dataclass
class _Cell:
    source: str
    number: int

    def error(self, line: int, words: str) -> NotebookError:
        return NotebookError(f"cell {self.number}, line {line}: {words}")

    def convert(self) -> _Converted | None:
        """The cell's lines with IPython syntax resolved; None for a cell that runs no Python."""
        lines = self.source.splitlines()
        numbered = list(enumerate(lines, start=1))
        if not lines or not lines[0].lstrip().startswith("%%"):
            return self.converted(numbered)
        first = lines[0].strip()
        name, _, rest = first[2:].partition(" ")
        if name in _SHOW_ONLY_CELLS:
            return None
        if name in _UNWRAPPED:  # its body runs once; the magic line comes back with the cell
            converted = self.converted(numbered[1:])
            converted.magic = (first, "", "", "")
            return converted
        opening, end, prefix = self.statement(name, rest.strip())
        body = lines[1:] or ([""] if prefix else [])
        if any(_BODY_END in line for line in body):
            raise self.error(next(n for n, line in numbered[1:] if _BODY_END in line),
                             f"this %%{name} cell's text holds ''', which AutoDD cannot keep in a Python "
                             "string; change it and save the notebook")
        converted = _Converted([(1, opening, None)])
        converted.lines += [(number, (prefix if number == 2 else "") + line, None)
                            for number, line in enumerate(body, start=2)]
        converted.lines.append((1, end, None))
        converted.magic = (first, opening, end, prefix)
        return converted

    def converted(self, numbered: list[tuple[int, str]]) -> _Converted:
        """Python lines: each resolved, but those inside a multi-line string kept as they are."""
        quoted = _in_strings([line for _, line in numbered])
        return _Converted([(number, line, None) if index in quoted else (number, *_line(line, self, number))
                           for index, (number, line) in enumerate(numbered)])

    def statement(self, name: str, rest: str) -> tuple[str, str, str]:
        """A cell magic the program can run as one statement: its first line, its last, and what
        its body's first line starts with (a script's leading blank line changes nothing, so its
        string opens on the first line and every line of its body may go; a file's text starts
        on the body's first line)."""
        words = _words(rest)
        if name == "script" and words and words[0] in _SHELL_CELLS:
            name, words = words[0], words[1:]
        if name in _SHELL_CELLS:
            check = ", check=True"
            if words == ["--no-raise-error"]:
                check, words = "", []
            if not words:
                return (f"__import__('subprocess').run({_SHELL_CELLS[name]!r}, input=r{_BODY_END}",
                        f"{_BODY_END}, text=True{check})", "")
        if name == "writefile" and words:
            mode = "a" if words[0] in ("-a", "--append") else "w"
            target = words[1:] if mode == "a" else words
            if len(target) == 1:
                return f"open({target[0]!r}, {mode!r}).write(", f"{_BODY_END})", "r" + _BODY_END
        raise self.error(1, f"the cell magic %%{name}{' ' + rest if rest else ''} cannot run as Python; "
                            "remove it (or run what it does in Python) and save the notebook")


def _in_strings(lines: list[str]) -> set[int]:
    """The (0-based) lines that lie inside a multi-line string, not on its first line: text, not
    IPython syntax (IPython reads tokens too). The IPython lines are masked as `pass` first; a cell
    that does not tokenize even so has none."""
    masked = [line[: len(line) - len(line.lstrip())] + "pass" if _ipython_looking(line) else line
              for line in lines]
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(masked) + "\n").readline):
            if token.type in _STRING_TOKENS and token.end[0] > token.start[0]:
                inside.update(range(token.start[0], token.end[0]))  # 0-based: the lines after the first
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set()
    return inside


def _ipython_looking(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("!", "%")) or (_ASSIGNED_SHELL.match(line) is not None)


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _line(line: str, cell: _Cell, number: int) -> tuple[str, str | None]:
    """One line as Python, and the IPython line it was (None: plain Python, kept as it is)."""
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    assigned = _ASSIGNED_SHELL.match(line)
    if assigned and not stripped.startswith(("!", "%")):
        command = _captured_command(assigned.group(3))
        if command is None:
            raise cell.error(number, f"{stripped!r} assigns what a magic returns, which a script cannot "
                                     "run; remove it (or do it in Python) and save the notebook")
        return f"{indent}{assigned.group(2)} = {_shell(command, capture=True)}", line
    if stripped.startswith("!"):
        captured = stripped.startswith("!!")
        return indent + _shell(stripped[2 if captured else 1:].strip(), capture=captured), line
    if not stripped.startswith("%"):
        return line, None
    name, _, rest = stripped[1:].partition(" ")
    rest = rest.strip()
    if name in _DISPLAY_ONLY:
        return (f"{indent}pass  # {stripped}" if indent else f"# {stripped}"), line
    translated = _magic(name, rest)
    if translated is None:
        raise cell.error(number, f"the magic %{name} changes what the program does and cannot run as Python; "
                                 "remove it (or do it in Python) and save the notebook")
    return indent + translated, line


def _captured_command(value: str) -> str | None:
    """`!cmd`, `!!cmd`, `%sx cmd`, `%system cmd` as the right side of an assignment: the command."""
    matched = _CAPTURED.match(value)
    return value[matched.end():].strip() if matched else None


def _magic(name: str, rest: str) -> str | None:
    """A line magic that runs as one Python statement; None for one that cannot."""
    if name == "time" and rest:
        return rest
    if name == "timeit" and rest:
        while _TIMEIT_OPTION.match(rest):
            rest = _TIMEIT_OPTION.sub("", rest, count=1)
        return rest
    if name == "env":
        return _env_assignment(rest)
    if name in ("sx", "system") and rest:
        return _shell(rest, capture=True)
    if name == "pip" and rest:
        return f"__import__('os').system(__import__('sys').executable + {' -m pip ' + rest!r})"
    if name in ("conda", "mamba", "micromamba") and rest:
        command, _, args = rest.partition(" ")
        extra = " --yes" if command in _CONDA_YES else ""
        if command in _CONDA_PREFIX:
            return (f"__import__('os').system({f'{name} {command}{extra} --prefix '!r} + __import__('sys').prefix"
                    f" + {' ' + args.strip()!r})")
        return _shell(f"{name} {rest}", capture=False)
    if name == "cd" and rest and not rest.startswith("-"):
        words = _words(rest)
        if len(words) == 1:
            return f"__import__('os').chdir(__import__('os').path.expanduser({words[0]!r}))"
    return None


def _shell(command: str, capture: bool) -> str:
    """A shell command as IPython runs it, in one Python expression."""
    literal = _expanded(command) or repr(command)
    if capture:
        return f"__import__('subprocess').getoutput({literal}).splitlines()"
    return f"__import__('os').system({literal})"


def _expanded(command: str) -> str | None:
    """`command` as an f-string when it has `{expr}`s and every brace is one (IPython expands them
    all or none); None to run it as written."""
    pieces = re.split(r"(\{[^{}]*\})", command)
    expressions = pieces[1::2]
    if not expressions or "${" in command or any(c in "{}" for piece in pieces[::2] for c in piece):
        return None
    for expression in expressions:
        try:
            compile(expression[1:-1].strip() or "()", "<!>", "eval")
        except SyntaxError:
            return None
        if not expression[1:-1].strip() or "\\" in expression:
            return None
    quote = "'" if not any("'" in expression for expression in expressions) else '"'
    if any(quote in expression for expression in expressions):
        return None
    literal = [piece.replace("\\", "\\\\").replace(quote, "\\" + quote) for piece in pieces[::2]]
    body = "".join(part + (expressions[index] if index < len(expressions) else "")
                   for index, part in enumerate(literal))
    return f"f{quote}{body}{quote}"


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


def notebook_text(program: str, notebook: NotebookProgram | None = None) -> str:
    """A (reduced) program as an nbformat-4 notebook: one code cell per `# %% [cell N]` part,
    written back as the person wrote it where `notebook` (the original) says how."""
    import nbformat

    cells: list[tuple[int | None, list[str]]] = []
    for line in program.splitlines():
        marker = MARKER.match(line)
        if marker or not cells:
            cells.append((int(marker.group(1)) if marker else None, []))
        if not marker:
            cells[-1][1].append(line)
    sources = ["\n".join(_as_written(lines, number, notebook)).strip("\n") for number, lines in cells
               if "\n".join(lines).strip()]
    result = nbformat.v4.new_notebook()
    result.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return nbformat.writes(result)


def _as_written(lines: list[str], number: int | None, notebook: NotebookProgram | None) -> list[str]:
    """A cell's surviving lines with its IPython syntax back (see the module docstring)."""
    if notebook is None or number is None:
        return lines
    spelled = notebook.spelled.get(number, {})
    lines = [spelled.get(line, line) for line in lines]
    if number not in notebook.magics:
        return lines
    first, opening, end, prefix = notebook.magics[number]
    if not opening:
        return [first, *lines]
    code = [index for index, line in enumerate(lines) if line.strip()]
    if len(code) < 2 or lines[code[0]] != opening or lines[code[-1]] != end:
        return lines
    body = lines[code[0] + 1: code[-1]]
    if not prefix:
        return [first, *body]
    if body and body[0].startswith(prefix):
        return [first, body[0][len(prefix):], *body[1:]]
    return lines
