"""Freeze diagnostics and the `autodd/frozenRegions` notification.

Both come from `parse_freeze`, which only reads the text: no user code runs.
A run's own notes on a document (server/person_lsp.py: an edit that lost the failure,
a tried line) are published with them, so neither wipes the other.
"""

from __future__ import annotations

from lsprotocol import types

from autodd_lsp.freeze import FreezeInfo, parse_freeze
from autodd_lsp.server.person_lsp import RunNotes
from autodd_lsp.server.positions import to_range
from autodd_lsp.syntax.lines import split_lines

SOURCE = "autodd"
FROZEN_REGIONS = "autodd/frozenRegions"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def is_python_document(uri: str, language_id: str | None) -> bool:
    if language_id:
        return language_id == "python"
    return uri.endswith((".py", ".pyi", ".pyw"))


def to_diagnostics(info: FreezeInfo, lines: list[str], encoding: str) -> list[types.Diagnostic]:
    return [
        types.Diagnostic(
            range=to_range(lines, p.line, p.start_col, p.line, p.end_col, encoding),
            message=p.message,
            severity=_SEVERITY.get(p.severity, types.DiagnosticSeverity.Error),
            source=SOURCE,
        )
        for p in info.problems
    ]


def to_region_ranges(info: FreezeInfo, lines: list[str], encoding: str) -> list[types.Range]:
    return [
        to_range(lines, s.start_line, s.start_col, s.end_line, s.end_col, encoding)
        for s in (region.span for region in info.regions)
    ]


class DiagnosticsPublisher:
    """Publishes diagnostics and frozen regions of one server's Python documents.

    While a document does not parse (the user is typing), what was published
    last stays: Python tooling reports the syntax error, and highlights do not
    blink off and on at every keystroke.
    """

    def __init__(self, server) -> None:
        self.server = server
        self.published: set[str] = set()
        self.notes = RunNotes()
        self._last: dict[str, tuple[int | None, list[types.Diagnostic], list[types.Range]]] = {}

    def update(self, uri: str) -> None:
        document = self.server.workspace.text_documents.get(uri)
        if document is None or not is_python_document(uri, document.language_id):
            return
        try:
            info = parse_freeze(document.source)
        except Exception as error:  # noqa: BLE001 - a bug in the parser must not take the server down
            self.server.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=f"freeze parser: {error}")
            )
            return
        if info.syntax_error is not None and uri in self.published:
            return
        lines = split_lines(document.source)
        encoding = self.server.position_encoding
        self._last[uri] = (document.version, to_diagnostics(info, lines, encoding), to_region_ranges(info, lines, encoding))
        self.refresh(uri)

    def note(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        """Set a run's notes on `uri` (replacing its earlier ones) and publish."""
        if not diagnostics and not self.notes.get(uri):
            return
        self.notes.set(uri, diagnostics)
        self.refresh(uri)

    def refresh(self, uri: str) -> None:
        """Publish the freeze diagnostics last worked out, with the runs' notes."""
        version, diagnostics, ranges = self._last.get(uri, (None, [], []))
        self.send(uri, version, diagnostics + self.notes.get(uri), ranges)

    def clear(self, uri: str) -> None:
        self._last.pop(uri, None)
        self.notes.set(uri, [])
        self.send(uri, None, [], [])
        self.published.discard(uri)

    def send(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic],
             ranges: list[types.Range]) -> None:
        self.published.add(uri)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )
        # pygls serializes the LSP structures inside the dict (json.dumps' default hook).
        self.server.protocol.notify(FROZEN_REGIONS, {"uri": uri, "ranges": ranges})
