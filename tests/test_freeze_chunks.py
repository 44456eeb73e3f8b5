"""Incremental parsing of the freeze grammar: the chunks must add up to the whole module."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from autodd_lsp.freeze import parse_freeze
from autodd_lsp.freeze.chunked_source import ChunkedSource, load_source, parse_python
from autodd_lsp.freeze.incremental import ChunkParser
from autodd_lsp.syntax.chunks import split_chunks
from autodd_lsp.syntax.lines import split_lines

TRICKY = {
    "docstring with column-0 lines": '"""Title.\n\nx = 1\nimport os\n"""\nimport sys\n',
    "closing brackets in column 0": "TABLE = {\n    1: 2,\n}\ncall(\n    3,\n)\ny = [\n]\n",
    "decorators": "@decorate\n@other(1)\ndef f():\n    pass\nclass C:\n    pass\n",
    "clauses in column 0": "if x:\n    pass\nelif y:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n"
    "    pass\nfinally:\n    pass\nz = 1\n",
    "column-0 lines inside a plain bracket": "values = [\n1,\nname,\n'text',\n]\nafter = 2\n",
    "backslash continuation": "total = 1 + \\\n2\nnext_one = 3\n",
    "quotes of the other kind inside": "a = '''say \"\"\" here\nb = 2\n'''\nc = \"\"\"it's '''\nd\n\"\"\"\ne = 5\n",
    "comment header": "#!/usr/bin/env python\n# coding: utf-8\n\nimport os\n",
    "byte-order mark": "\ufeffimport os\nx = 1\n",
    "crlf": "import os\r\nx = (1,\r\n2)\r\ny = 3\r\n",
    "match": "match point:\n    case (0, 0):\n        pass\n    case _:\n        pass\nafter = 1\n",
}


def loaded(text: str) -> ChunkedSource:
    """The text ready for analysis (these texts all parse)."""
    source = load_source(text)
    assert isinstance(source, ChunkedSource), source
    return source


def _whole(source: ChunkedSource) -> str:
    return ast.dump(ast.Module(body=source.whole_body(), type_ignores=[]), include_attributes=True)


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_chunks_add_up_to_the_module(text):
    source = loaded(text)
    expected = ast.parse(text.removeprefix("\ufeff"))
    assert _whole(source) == ast.dump(expected, include_attributes=True)


def test_standard_library_modules_parse_the_same_by_chunks():
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names = ["argparse", "dataclasses", "typing", "inspect", "textwrap", "json/decoder", "email/message"]
    chunked = 0
    for name in names:
        text = (stdlib / f"{name}.py").read_text(encoding="utf-8")
        source = loaded(text)
        assert _whole(source) == ast.dump(ast.parse(text), include_attributes=True), name
        chunked += source._chunks == split_chunks(split_lines(text))
    assert chunked == len(names)  # none of them needed the whole-text fallback


def test_an_edit_changes_only_its_own_chunk():
    lines = [f"def f{i}():\n    return {i}\n" for i in range(50)]
    parser = ChunkParser(parse_python)
    chunks = split_chunks(split_lines("".join(lines)))
    assert len(chunks) == 50
    assert all(parser.parses(chunk) for chunk in chunks)
    lines[20] = "def f20():\n    return 'edited'\n"
    edited = split_chunks(split_lines("".join(lines)))
    fresh = [chunk for chunk in edited if chunk not in chunks]
    assert [chunk.first for chunk in fresh] == [41]


def test_body_is_built_only_around_the_lines_asked_about():
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(30))
    source = loaded(text)
    assert source.tree.body == []
    body = source.body_for(11, 12)
    assert [getattr(stmt, "name", None) for stmt in body] == ["f5"]
    assert [getattr(stmt, "name", None) for stmt in source.whole_body()] == [f"f{i}" for i in range(30)]


def test_syntax_errors_found_by_chunks_point_at_the_right_line():
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(30)) + "x = (1,\n# autodd: freeze\n"
    info = parse_freeze(text)
    assert info.syntax_error is not None and info.syntax_error.line == 61


def test_a_fooled_quote_count_falls_back_to_parsing_the_rest_as_one():
    # The quick count takes the quotes in line 1's string for an opening and line 2's for a
    # closing, so it cuts inside line 2's string: that chunk fails, and the rest is parsed as one.
    text = 'first = 0\na = \'"""\'\nb = """\nx = 1  # autodd: freeze\n"""\nfrozen = 2  # autodd: freeze\n'
    source = loaded(text)
    assert [(chunk.first, chunk.last) for chunk in source._chunks] == [(1, 1), (2, 7)]
    assert _whole(source) == ast.dump(ast.parse(text), include_attributes=True)
    info = parse_freeze(text)
    assert info.syntax_error is None
    assert [(r.span.start_line, r.form) for r in info.regions] == [(6, "line")]
