"""A small data file written into the program where it opened it: one file, not a folder.

Pure: no run, no judge. Given a program's text, the places where its own code opened
each data file (`Site`s, from the reads probe, `execution/reads_hook.py`: the span of
the call its innermost frame in the program was running) and the files' bytes,
`written_in` returns the text with the chosen files written in, and the same edits for
its shadow (`syntax/origin.py`), or None when one of them cannot be.

A file can be written in when it is small (`SMALL_BYTES`, `SMALL_LINES`: a few lines a
maintainer reads in the report) and text (UTF-8, no NUL, in its declared encoding), and
every place the program opened it is a call the program's own reading code keeps:

  open(...) / io.open(...)      the call becomes io.StringIO(<the text>) in a text
                                mode (read() gives what open's read() gave: newlines
                                translated unless `newline` was given), io.BytesIO(<the
                                bytes>) in a binary one ("rb"); nothing else is written;
  <x>.read_csv(path, ...) and   the path argument becomes io.StringIO(<the text>): the
  read_table, read_json,        reading call stays as it was (pandas' and NumPy's
  read_fwf, loadtxt, genfromtxt readers take a file object where they take a path).

What reads the file object (`csv.reader(f)`, `json.load(f)`, `with ... as f`, `for
line in f`) is unchanged. A place that opened two files (a loop over names), a file
opened in two places, a call opened for writing: not written in. `import io` is added
after the module's docstring and `from __future__` imports, unless the module imports
io already; a program that binds the name `io` to anything else is not changed.
"""

from __future__ import annotations

import ast
import codecs
from dataclasses import dataclass

SMALL_BYTES = 2048  # a file of at most this many bytes ...
SMALL_LINES = 40  # ... and lines is small enough to write into the program
READERS = frozenset({"read_csv", "read_table", "read_json", "read_fwf", "loadtxt", "genfromtxt"})
_PATH_KEYWORDS = frozenset({"filepath_or_buffer", "path_or_buf", "fname"})


@dataclass(frozen=True)
class Site:
    """Where the program's code opened a file: the call's span as `ast` gives it (line 1-based,
    UTF-8 columns), or only its line (`col` None) where the interpreter gave no columns."""

    line: int
    end_line: int | None = None
    col: int | None = None
    end_col: int | None = None

    @staticmethod
    def parse(words: str) -> Site | None:
        """"LINE END_LINE COL END_COL" or "LINE" (the probe's words); None for ""."""
        parts = [int(word) for word in words.split()] if words.strip() else []
        if len(parts) == 4:
            return Site(parts[0], parts[1], parts[2], parts[3])
        return Site(parts[0]) if len(parts) == 1 else None


@dataclass(frozen=True)
class WrittenIn:
    """The program with files written in (`text`, `shadow`: the same edits on the shadow, None when
    it had none or its lines did not line up) and which files (`names`)."""

    text: str
    shadow: str | None
    names: tuple[str, ...]


def is_small(data: bytes) -> bool:
    """Whether a file is small enough, and text enough, to write into the program."""
    return len(data) <= SMALL_BYTES and data.count(b"\n") <= SMALL_LINES and b"\0" not in data


def written_in(text: str, shadow: str | None, sites: dict[str, list[Site]],
               files: dict[str, bytes]) -> WrittenIn | None:
    """`text` with every file of `files` written in where `sites` says it was opened; None if one of
    them cannot be (see the module docstring)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if _binds_io(tree) or not files:
        return None
    offsets = _Offsets(text)
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    owners: dict[Site, set[str]] = {}
    for name, places in sites.items():
        for site in places:
            owners.setdefault(site, set()).add(name)
    edits: list[tuple[int, int, str]] = []
    for name, data in files.items():
        places = sites.get(name, [])
        if len(places) != 1 or not is_small(data) or owners[places[0]] != {name}:
            return None
        call = _call_at(calls, places[0])
        edit = _edit(call, data, offsets) if call is not None else None
        if edit is None:
            return None
        edits.append(edit)
    if not _imports_io(tree):
        at = _import_place(tree, offsets)
        if at is None:
            return None
        edits.append((at, at, "import io\n"))
    new_text = _apply(text, edits)
    new_shadow = _apply(shadow, edits) if shadow is not None and len(shadow) == len(text) else None
    return WrittenIn(new_text, new_shadow, tuple(files))


def literal(value: str | bytes) -> str:
    """A Python literal of `value`: triple-quoted, its lines as they are, when it can be; else repr."""
    if isinstance(value, bytes):
        try:
            shown = literal(value.decode("ascii"))
        except UnicodeDecodeError:
            return repr(value)
        return "b" + shown if shown.startswith('"""') else repr(value)
    plain = (
        all(ch in "\n\t" or ch.isprintable() for ch in value)
        and "\\" not in value
        and '"""' not in value
        and not value.endswith('"')
    )
    return '"""\\\n' + value + '"""' if plain else repr(value)


def _edit(call: ast.Call, data: bytes, offsets: _Offsets) -> tuple[int, int, str] | None:
    """The edit that writes `data` in at `call`; None when the call is not one kept (module docstring)."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    is_open = name == "open" and (isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and _is_name(func, "io")))
    if is_open:
        mode = _argument(call, 1, "mode", "r")
        encoding = _argument(call, 3, "encoding", None) or "utf-8"
        newline = _argument(call, 5, "newline", None)
        if not isinstance(mode, str) or not isinstance(encoding, str) or newline is _MISSING \
                or any(c in mode for c in "wax+"):
            return None
        if "b" in mode:
            return (*offsets.span(call), f"io.BytesIO({literal(data)})")
        value = _decoded(data, encoding)
        if value is None:
            return None
        if newline is None:  # universal newlines, as open's read() gives them
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        return (*offsets.span(call), f"io.StringIO({literal(value)})")
    if name not in READERS:
        return None
    path = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg in _PATH_KEYWORDS), None)
    value = _decoded(data, "utf-8")
    if path is None or value is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return (*offsets.span(path), f"io.StringIO({literal(value)})")


_MISSING = object()


def _argument(call: ast.Call, index: int, keyword: str, default: object) -> object:
    """A constant argument of `call` (by position or keyword), `default` when not given, `_MISSING`
    when given as something else than a constant."""
    node = call.args[index] if index < len(call.args) else next(
        (k.value for k in call.keywords if k.arg == keyword), None)
    if node is None:
        return default
    return node.value if isinstance(node, ast.Constant) else _MISSING


def _decoded(data: bytes, encoding: str) -> str | None:
    if b"\0" in data:
        return None
    try:
        codecs.lookup(encoding)
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return None


def _is_name(func: ast.Attribute, module: str) -> bool:
    return isinstance(func.value, ast.Name) and func.value.id == module


def _call_at(calls: list[ast.Call], site: Site) -> ast.Call | None:
    """The call at `site`: its exact span, or the one open/reader call of its line."""
    if site.col is not None:
        for call in calls:
            if (call.lineno, call.end_lineno, call.col_offset, call.end_col_offset) == (
                    site.line, site.end_line, site.col, site.end_col):
                return call
        return None
    on_line = [c for c in calls if c.lineno == site.line and _called(c) in READERS | {"open"}]
    return on_line[0] if len(on_line) == 1 else None


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _binds_io(tree: ast.Module) -> bool:
    """Whether the name `io` means anything but the io module somewhere in the program."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "io" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.arg) and node.arg == "io":
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "io":
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == "io" and not (isinstance(node, ast.Import) and alias.name == "io"):
                    return True
    return False


def _imports_io(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Import) and any(a.name == "io" and a.asname in (None, "io") for a in node.names)
               for node in tree.body)


def _import_place(tree: ast.Module, offsets: _Offsets) -> int | None:
    """Where `import io` goes: the start of the line of the first statement after the docstring and
    the `from __future__` imports (None when that line holds the end of another statement)."""
    body = list(tree.body)
    previous: ast.stmt | None = None
    while body and (
        (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
         and isinstance(body[0].value.value, str) and previous is None)
        or (isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__")
    ):
        previous = body.pop(0)
    if not body:
        return None
    first = body[0]
    if previous is not None and previous.end_lineno == first.lineno:
        return None
    return offsets.line_start(first.lineno)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


class _Offsets:
    """`ast` positions (line, UTF-8 column) as offsets into the text."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line) + 1)
        self.size = len(text)

    def line_start(self, line: int) -> int:
        return min(self._starts[line - 1], self.size)

    def at(self, line: int, col: int) -> int:
        return self._starts[line - 1] + len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.at(node.lineno, node.col_offset), self.at(node.end_lineno, node.end_col_offset)
