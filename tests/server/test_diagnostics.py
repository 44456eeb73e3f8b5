"""Freeze diagnostics and autodd/frozenRegions, through the real server over stdio."""


import pytest
from lsprotocol import types

from tests.support import server_harness as h
from tests.support.server_harness import EditorClient

GOOD = "import os\n# autodd: freeze-start\nx = 1\ny = 2\n# autodd: end-freeze\nprint(x)\n"
BAD = "import os\nx = 1\n# autodd: end-freeze\nprint(x)\n"


pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module



async def test_bad_marker_is_an_error_at_its_line_and_fixing_clears_it(client: EditorClient, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(BAD)
    uri = h.open_document(client, path)
    await h.wait_until(lambda: uri in client.diagnostics and uri in client.frozen_regions)
    diagnostics = client.diagnostics[uri]
    assert len(diagnostics) >= 1
    first = diagnostics[0]
    assert first.source == "autodd"
    assert first.severity == types.DiagnosticSeverity.Error
    assert first.range.start.line == 2  # 0-based: the end-freeze line

    h.change_document(client, uri, GOOD)
    await h.wait_until(lambda: len(client.diagnostics[uri]) == 0)
    await h.wait_until(lambda: len(client.frozen_regions[uri]) > 0)
    frozen_lines = {line for r in client.frozen_regions[uri] for line in range(r.start.line, r.end.line + 1)}
    assert {2, 3} <= frozen_lines and 5 not in frozen_lines  # x = 1, y = 2; not print(x)


async def test_a_syntax_error_is_not_our_diagnostic(client: EditorClient, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(:\n    pass\n")
    uri = h.open_document(client, path)
    await h.wait_until(lambda: uri in client.diagnostics)
    assert len(client.diagnostics[uri]) == 0


async def test_columns_count_utf16_code_units(client: EditorClient, tmp_path):
    path = tmp_path / "emoji.py"
    text = 's = "\U0001F600"  # autodd: end-freeze\n'
    path.write_text(text)
    uri = h.open_document(client, path)
    await h.wait_until(lambda: client.diagnostics.get(uri))
    found = client.diagnostics[uri][0].range
    # One astral character before the comment: two UTF-16 code units, one code point.
    assert found.start.character == text.index("#") + 1
    assert found.end.character == len(text.rstrip("\n")) + 1


async def test_a_warning_stays_a_warning(client: EditorClient, tmp_path):
    path = tmp_path / "typo.py"
    path.write_text("x = 1  # autodd: freez\n")
    uri = h.open_document(client, path)
    await h.wait_until(lambda: client.diagnostics.get(uri))
    assert client.diagnostics[uri][0].severity == types.DiagnosticSeverity.Warning
