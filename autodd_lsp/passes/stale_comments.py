"""Remove comments about code that is gone.

A reduction keeps every comment of the surviving text, also those that describe
what it removed: `# parse_args reads the command line` above nothing, or a
23-line `# OUTPUT` block left around no statement. A comment *block* (standalone
comment lines, one after another, at one indentation) is stale when

(a) it names something the original program bound or used (a def or class,
    a variable, a parameter, an attribute) that no longer occurs anywhere in
    the current code, and names nothing of the original that still does (a
    plain word counts when the original named a function, class or parameter
    so); a function or class of the original gone everywhere is enough, whatever
    else the block names (`batchify arranges the dataset into columns` once
    `batchify` is gone, though `dataset` is still a name); or
(b) in the original it was glued to a statement (the line right after it was
    code), and now a blank line, a dedent or the end of the file follows it:
    the statement it described is gone; or other code follows it now that
    uses none of the names the block shared with its statement (`# idx and
    targets are (B,T)` above `b, t = idx.size()`, which is gone). Likewise a block glued below a
    statement (the line right before it was code, and nothing followed it)
    whose statement is gone, and a heading whose section is gone: now the
    end, a dedent, or a comment that in the original came after the code the
    heading introduced follows it (`# Formatting Help` stacked on
    `# Type classes`). Comment lines that were apart in the original and now
    touch are separate blocks. The file's own header (comments above the
    original's first code line) is never a heading; or
(d) it is a banner (every line a row of `#`, `-`, `=`...: the rows around a heading
    are a block of their own, the heading's words are judged by the rules above), or it
    follows the last code of the file (a closing note), or it is headed as a run's output
    (`# OUTPUT`, `# Sample output:`, wherever it sits): a reproducer has no sections and
    prints its own output; or
(c) every line of it is commented-out code (`# self.hidden2 = nn.Sequential(`,
    `# print(loss.item())`): it parses as a statement, unclosed brackets
    closed, that is more than a bare word or value -- a reproducer carries no
    dead alternatives.

Never removed: trailing comments (they stay with their line), AutoDD
annotations, the shebang and encoding lines, tool directives (`# type:`,
`# noqa`, `# fmt:`, a `# %%` cell marker (unless its cell is empty now)...), comments inside strings (tokenize tells them apart)
or in frozen regions, and a block still glued to the very statement it was
glued to in the original. One edit per block, weight = characters removed: the
oracle judges each like any other candidate.
"""

from __future__ import annotations

import ast
import difflib
import io
import keyword
import re
import textwrap
import tokenize
from dataclasses import dataclass
from functools import cached_property

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.format import crosses_guard
from autodd_lsp.syntax.bindings import BUILTIN_NAMES
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source

WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
OUTPUT_HEADING = re.compile(r"(?i)(sample |example |expected )?(output|result)s?( of [\w ]+)?\s*:?")
CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
DIRECTIVE = re.compile(
    r"#\s*(type:|noqa\b|fmt:|pylint:|pragma\b|isort:|mypy:|pyright:|ruff:|yapf:|nosec\b|flake8[:\s]|%%)", re.IGNORECASE
)
# Words that are identifiers in some program but, in a comment, almost always plain English.
_ENGLISH = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "it", "its", "we", "you", "he", "she", "they", "them", "our", "your", "my", "me", "us", "to", "of", "on", "at", "by", "up", "so", "do", "no", "yes", "all", "any", "one", "two", "some", "each", "every", "only", "also", "then", "than", "here", "there", "now", "new", "old", "see", "use", "used", "get", "set", "put", "run"]
)
_FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", -1)


@dataclass
class CommentBlock:
    first: int  # 1-based lines, inclusive
    last: int
    indent: int
    text: str  # the comments' text, '#' included


def names_of(text: str) -> set[str]:
    """Identifiers a program binds or uses: its NAME tokens, keywords aside."""
    names: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and not keyword.iskeyword(token.string):
                names.add(token.string)
    except (tokenize.TokenError, SyntaxError):
        pass
    return names


def code_words(text: str) -> set[str]:
    """Every word of the code: names, and words inside strings (a name quoted in a message
    still occurs); comments excluded."""
    words: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                words.add(token.string)
            elif token.type in (tokenize.STRING, _FSTRING_MIDDLE):
                words.update(WORD.findall(token.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return words


def defined_names(text: str) -> tuple[set[str], set[str]]:
    """Names of the functions and classes a program defines, and of their parameters (`self`,
    `cls` aside): a comment naming one of them speaks of code."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return set(), set()
    functions = {node.name for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return functions, {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg) and node.arg not in ("self", "cls")}


def _looks_like_code(text: str, match: re.Match) -> bool:
    word, start, end = match.group(), match.start(), match.end()
    if "_" in word or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]):
        return True
    before, after = text[start - 1 : start], text[end : end + 1]
    if after == "(" or "`" in (before, after) or before == ".":  # `run()`, `` `x` ``, `cfg.dtype`
        return True
    return after == "." and text[end + 1 : end + 2].isidentifier()  # `cfg.dtype`, not the end of a sentence


def comment_blocks(source: Source) -> list[CommentBlock]:
    """Runs of standalone comment lines at one indentation (a removable kind only)."""
    standalone: list[tuple[int, int, str]] = []  # (line, column, comment)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if token.type != tokenize.COMMENT:
                continue
            line, column = token.start
            if source.lines[line - 1][:column].strip():
                continue  # a trailing comment stays with its line
            standalone.append((line, column, token.string))
    except (tokenize.TokenError, SyntaxError):
        return []
    blocks: list[CommentBlock] = []
    for line, column, comment in standalone:
        if not _removable(line, comment):
            continue
        previous = blocks[-1] if blocks else None
        if previous is not None and previous.last == line - 1 and previous.indent == column:
            previous.last = line
            previous.text += "\n" + comment
        else:
            blocks.append(CommentBlock(line, line, column, comment))
    # A block next to an annotation or directive (left out above) belongs with it.
    kept_lines = {line for line, _, comment in standalone if not _removable(line, comment)}
    return [b for b in blocks if b.first - 1 not in kept_lines and b.last + 1 not in kept_lines]


def _removable(line: int, comment: str) -> bool:
    if "autodd" in comment.lower():
        return False  # an annotation, or about one
    if line == 1 and comment.startswith("#!"):
        return False
    if line <= 2 and CODING.match(comment):
        return False
    return not DIRECTIVE.match(comment)


def commented_out(block: CommentBlock) -> bool:
    """(c): the block is code (see the module docstring): as a whole (a statement over several
    lines), or line by line."""
    lines = [line.lstrip()[1:] for line in block.text.split("\n")]
    whole = textwrap.dedent("\n".join(line[1:] if line.startswith(" ") else line for line in lines)).strip()
    return _code_line(whole) or all(_code_line(line.strip()) for line in lines)


def _decoration(comment: str) -> bool:
    """A banner row: `#####`, `# ---------`, `#=====`."""
    body = comment.lstrip("#").strip()
    if not body:
        return len(comment.strip()) >= 3
    return len(body) >= 3 and all(char in "-=*#~_+.:/\\|<> " for char in body)


def _code_line(text: str) -> bool:
    if not text or (text.endswith((".", "!", "?")) and not text.endswith("...")):
        return False  # prose ends a sentence
    opened = sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
    closing = "".join(")" for _ in range(max(0, opened)))
    for candidate in (text + closing, text + closing + "\n    pass"):
        try:
            tree = parse(candidate)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            label = isinstance(node, ast.Expr) and isinstance(node.value, (ast.Name, ast.Constant))
            heading = isinstance(node, ast.AnnAssign) and node.value is None  # `TODO: fix`, `Note: x`
            if label or heading:
                return False
        return bool(tree.body)
    return False


class LineMap:
    """Which original line each current line is (lines compared without their indentation,
    so that a re-indented body still maps). A blank line anchors no match (it may extend one):
    matched on its own, a blank line the removals left next to a comment could take a blank
    line of the original far above it, and the comment, whose own line then came after in the
    original, mapped to nothing (`        # Else` above a `return` in TheAlgorithms'
    longest_increasing_subsequence.py, kept at its old indentation)."""

    def __init__(self, original: str, source: Source) -> None:
        self.old = original.splitlines()
        self.new = [line.rstrip("\r\n") for line in source.lines]
        self._of: dict[int, int] = {}
        matcher = difflib.SequenceMatcher(
            lambda line: not line, [line.strip() for line in self.old], [line.strip() for line in self.new],
            autojunk=False,
        )
        for i, j, size in matcher.get_matching_blocks():
            for k in range(size):
                self._of[j + k + 1] = i + k + 1

    def original_of(self, line: int) -> int | None:
        return self._of.get(line)

    @cached_property
    def kept(self) -> set[int]:
        """The original's lines that are still in the text."""
        return set(self._of.values())

    def original_line(self, number: int) -> str | None:
        return self.old[number - 1] if 1 <= number <= len(self.old) else None


def _is_code(line: str | None) -> bool:
    return line is not None and bool(line.strip()) and not line.lstrip().startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _ends_nothing(line: str | None, indent: int) -> bool:
    """What follows a comment block that describes no statement: a blank line, a dedent, the end."""
    return line is None or not line.strip() or (_is_code(line) and _indent(line) < indent)


class StaleComments:
    """The stale comment blocks of the current text, against the original."""

    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx
        self.source = ctx.source
        self.original_names = {n for n in names_of(ctx.original) if len(n) >= 2 and n.lower() not in _ENGLISH}
        self.functions, parameters = defined_names(ctx.original)
        self.defined = self.functions | parameters
        self.words_now = code_words(ctx.source.text)
        self.map = LineMap(ctx.original, ctx.source)

    def line(self, number: int) -> str | None:
        lines = self.source.lines
        return lines[number - 1].rstrip("\r\n") if 1 <= number <= len(lines) else None

    def names_gone(self, block: CommentBlock) -> bool:
        """(a): names something of the original that is gone, and nothing that is still there.

        A plain word (`errors`, `pattern`) is read as English unless the original defined
        a function or class of that name; a word that looks like code (`parse_args`,
        `GemmConfig`, `cfg.block_K`, `run()`, `` `x` ``) is read as a name. Words of the
        original still in the code (builtins too) make the block a comment on live code.
        """
        gone = live = function_gone = False
        for match in WORD.finditer(block.text):
            word = match.group()
            if word not in self.original_names:
                continue
            if word in self.words_now:
                live = True
            elif word not in BUILTIN_NAMES and (word in self.defined or _looks_like_code(block.text, match)):
                gone = True
                function_gone = function_gone or word in self.functions
        return gone and (function_gone or not live)

    def still_glued(self, block: CommentBlock) -> bool:
        """The block is followed by the very line that followed it in the original."""
        last = self.map.original_of(block.last)
        below = self.map.original_of(block.last + 1)
        return last is not None and below == last + 1 and _is_code(self.line(block.last + 1))

    def orphaned(self, block: CommentBlock) -> bool:
        """(b): glued to a statement in the original, followed by nothing now."""
        first, last = self.map.original_of(block.first), self.map.original_of(block.last)
        if first is None or last is None or last - first != block.last - block.first:
            return False  # not the original's block as it was
        if not _ends_nothing(self.line(block.last + 1), block.indent):
            return False
        below_then = self.map.original_line(last + 1)
        if below_then is not None and _is_code(below_then) and _indent(below_then) >= block.indent:
            return True  # glued above a statement that is gone
        if _is_code(self.map.original_line(first - 1)) and _ends_nothing(below_then, block.indent):
            # glued below a statement, ending its block: is that statement still right above?
            return self.map.original_of(block.first - 1) != first - 1
        return False

    def detached(self, block: CommentBlock) -> bool:
        """(b) for a block now above other code: in the original it was glued above a statement
        and named what that statement used (`# idx and targets are both (B,T) tensors` above
        `b, t = idx.size()`); that statement is gone and the code now below it uses none of those names."""
        first, last = self.map.original_of(block.first), self.map.original_of(block.last)
        if first is None or last is None or last - first != block.last - block.first:
            return False
        below_then, below_now = self.map.original_line(last + 1), self.line(block.last + 1)
        if not (_is_code(below_then) and _is_code(below_now)) or _indent(below_then or "") < block.indent:
            return False
        if last + 1 in self.map.kept:
            return False  # that statement is still there, elsewhere
        about = set(WORD.findall(block.text)) & names_of((below_then or "").strip()) & self.original_names
        return bool(about) and not about & names_of((below_now or "").strip())

    def section_gone(self, block: CommentBlock) -> bool:
        """(b) for a heading: a blank line apart from the code it introduced, in the original;
        now the next thing after it is the end, a dedent, or a comment that in the original
        came after that code (`# Formatting Help` stacked on `# Type classes`)."""
        first, last = self.map.original_of(block.first), self.map.original_of(block.last)
        if first is None or last is None or first < self.first_code_line:
            return False  # the file's own header stays
        code_then = last + 1
        while code_then <= len(self.map.old) and not _is_code(self.map.original_line(code_then)):
            code_then += 1
        below_then = self.map.original_line(code_then)
        if below_then is None or _indent(below_then) < block.indent:
            return False  # it introduced nothing below it
        below = block.last + 1
        while (text := self.line(below)) is not None and (not text.strip() or _decoration(text.strip())):
            below += 1  # blank lines and banner rows (a block of their own) say nothing of the section
        now = self.line(below)
        if now is None:
            return True
        if _is_code(now):
            return _indent(now) < block.indent
        later = self.map.original_of(below)
        return later is not None and later > code_then

    def banner(self, block: CommentBlock) -> bool:
        """(d): every line of the block is a banner row."""
        return all(_decoration(line.strip()) for line in block.text.split("\n"))

    @staticmethod
    def output_dump(block: CommentBlock) -> bool:
        """(d): the block is headed as a run's output (`# OUTPUT`, `# Sample output:`), wherever it sits."""
        return OUTPUT_HEADING.fullmatch(block.text.split("\n", 1)[0].strip().lstrip("#").strip()) is not None

    def after_the_code(self, block: CommentBlock) -> bool:
        """(d): code stands above the block, and none below it."""
        return 0 < self.last_code_line < block.first

    @cached_property
    def last_code_line(self) -> int:
        """The current text's last line of code (0: none)."""
        return next((number for number in range(len(self.source.lines), 0, -1) if _is_code(self.line(number))), 0)

    @cached_property
    def first_code_line(self) -> int:
        for number, line in enumerate(self.map.old, start=1):
            if _is_code(line):
                return number
        return len(self.map.old) + 1

    def units(self, block: CommentBlock) -> list[CommentBlock]:
        """The block split where it joins comments that were apart in the original, and where
        banner rows meet words."""
        lines = block.text.split("\n")
        units = [CommentBlock(block.first, block.first, block.indent, lines[0])]
        for number, comment in zip(range(block.first + 1, block.last + 1), lines[1:], strict=False):
            previous = self.map.original_of(number - 1)
            apart = _decoration(comment) != _decoration(units[-1].text.rsplit("\n", 1)[-1])
            if previous is not None and self.map.original_of(number) == previous + 1 and not apart:
                units[-1].last = number
                units[-1].text += "\n" + comment
            else:
                units.append(CommentBlock(number, number, block.indent, comment))
        return units

    def blocks(self) -> list[CommentBlock]:
        if not self.ctx.original:
            return []
        stale = []
        for block in (unit for found in comment_blocks(self.source) for unit in self.units(found)):
            if commented_out(block) or self.banner(block) or self.after_the_code(block) or self.output_dump(block):
                stale.append(block)  # dead code, a banner, a dump after the end: wherever it sits
            elif self.still_glued(block):
                continue  # a comment on surviving code
            elif self.names_gone(block) or self.orphaned(block) or self.detached(block) or self.section_gone(block):
                stale.append(block)
        return stale


@register
class RemoveStaleComments(ReductionPass):
    name = "remove stale comments"
    group = Group.TIDY
    order = -10  # first in its group: the blank lines it leaves are then tidied, then formatted

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        if "#" not in source.text:
            return []  # nothing to look at: spare reading the original
        edits = []
        for block in StaleComments(ctx).blocks():
            span = (source.line_start(block.first), source.line_end(block.last))
            patch = delete(*span)
            if ctx.touches_frozen(span) or crosses_guard(patch, ctx.guards):
                continue
            edits.append(Edit((patch,), self.name, weight=span[1] - span[0]))
        for line in empty_cells(source):
            span = (source.line_start(line), source.line_end(line))
            if not ctx.touches_frozen(span):
                edits.append(Edit((delete(*span),), self.name, weight=span[1] - span[0]))
        return edits


def empty_cells(source: Source) -> list[int]:
    """The `# %%` cell markers (a directive, kept above) whose cell is now empty: the next line
    with text is another marker, or there is none."""
    texts = [(number, line) for number, line in enumerate(source.lines, start=1) if line.strip()]
    markers = [index for index, (_, line) in enumerate(texts) if line.startswith("# %%")]
    return [texts[index][0] for index in markers
            if index + 1 == len(texts) or texts[index + 1][1].startswith("# %%")]
