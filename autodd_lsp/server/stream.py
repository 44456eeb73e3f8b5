"""Streaming a run's newest text into one editor document with small workspace edits.

One `workspace/applyEdit` at a time, each awaited; texts that arrive while one
is in flight are coalesced (the next edit goes from what the client has to the
newest text).

Versions: an edit carries the version the client last reported (didOpen /
didChange) when that report shows the text our edits produced; when the client
has not reported our last edit back yet (Emacs' eglot reports them only when
the person next does something), the edit is unversioned (`version: null`), so
a client that checks versions strictly never sees a stale one. A reported text
that is neither what we last produced nor one we produced on the way there is
the person's edit; if it stands for EDIT_GRACE_S, `on_diverged` decides: give
up (in-place runs) or start again from the client's text. With `on_person_edit`
(a run's reproducer beside the source), the person's text is handed to it and
becomes the target: nothing is sent over it until the run pushes a text again
(server/person_lsp.py: the edit is offered to the engine first).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from lsprotocol import types

from autodd_lsp.server.positions import diff_edits

logger = logging.getLogger(__name__)

EDIT_GRACE_S = 0.3  # how long an unexpected change may stand before it counts as the person's
MAX_REJECTED = 3
MAX_UNREPORTED = 64  # texts of ours a slow client may still report


def same_text(a: str, b: str) -> bool:
    """Equal up to line endings (an editor may rewrite the line breaks we send)."""
    return a == b or _lf(a) == _lf(b)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class Diverged(Exception):
    """The document no longer holds the text our edits produced."""


class DocumentStream:
    def __init__(self, server, uri: str, client_text: str, *,
                 resync_on_divergence: bool, on_diverged: Callable[[str], None], label: str = "AutoDD",
                 on_person_edit: Callable[[str], None] | None = None) -> None:
        self.server = server
        self.uri = uri
        self.client_text = client_text  # what the client holds, as far as we know
        self.target = client_text
        self.resync_on_divergence = resync_on_divergence
        self.on_diverged = on_diverged
        self.label = label
        self.on_person_edit = on_person_edit
        self.failure: str | None = None  # set when streaming stopped for good
        self.edits_sent = 0
        # Texts our applied edits passed through that the client may still report
        # (it has not reported the newest yet): reports of these are ours, not the person's.
        self._unreported: list[str] = []
        self._in_flight: str | None = None
        self._applying = False
        self._closing = False
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._grace: asyncio.Task | None = None

    # -- what the session calls ------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    def push(self, text: str) -> None:
        self.target = text
        self._wake.set()

    async def close(self) -> None:
        """Send what is left, then stop."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
        if self._grace is not None:
            self._grace.cancel()

    def stop(self) -> None:
        """Send nothing more."""
        if self.failure is None:
            self.failure = "stopped"
        self._wake.set()

    @property
    def up_to_date(self) -> bool:
        return self.failure is None and self.client_text == self.target

    def document_changed(self) -> None:
        """didChange of our document: if it is not our edit, and stays so briefly, it is the person's."""
        if self.failure is not None or self._reported_state() != "theirs":
            return
        if self._grace is None or self._grace.done():
            self._grace = asyncio.create_task(self._check_after_grace())

    def _reported_state(self) -> str:
        """What the client last reported: "closed" (not open), "current" (our newest text),
        "behind" (a text of ours it has moved on from), or "theirs" (the person's edit)."""
        document = self.server.workspace.text_documents.get(self.uri)
        if document is None:
            return "closed"
        reported = document.source
        if same_text(reported, self.client_text):
            self._unreported.clear()
            return "current"
        ours = self._unreported + ([self._in_flight] if self._in_flight is not None else [])
        if any(same_text(reported, text) for text in ours):
            return "behind"
        return "theirs"

    # -- the loop -----------------------------------------------------------------

    async def _run(self) -> None:
        rejected = 0
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.failure is None and self.target != self.client_text:
                if self.on_person_edit is not None and self._reported_state() == "theirs":
                    self._take_person_edit(self.on_person_edit)
                    break
                try:
                    applied = await self._send(self.target)
                except Diverged as error:
                    self._diverged(str(error))
                    break
                rejected = 0 if applied else rejected + 1
                if rejected >= MAX_REJECTED:
                    self._give_up("the editor did not apply the edits")
            if self._closing or self.failure is not None:
                return

    async def _send(self, target: str) -> bool:
        version = self._version()
        edits = diff_edits(self.client_text, target, self.server.position_encoding)
        if not edits:
            self.client_text = target
            return True
        self._applying = True
        self._in_flight = target
        try:
            result = await self.server.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=self._workspace_edit(edits, version), label=self.label)
            )
        except Exception as error:  # noqa: BLE001 - e.g. the client went away
            self._give_up(f"workspace/applyEdit failed: {error}")
            return False
        finally:
            self._applying = False
            self._in_flight = None
        if result is not None and result.applied:
            self._unreported.append(self.client_text)
            del self._unreported[:-MAX_UNREPORTED]
            self.client_text = target
            self.edits_sent += 1
            self.document_changed()  # a change that came in while the edit was in flight
            return True
        reason = (result.failure_reason if result is not None else None) or "the editor did not apply the edit"
        if not self.resync_on_divergence:
            raise Diverged(reason)
        return False

    def _version(self) -> int | None:
        """The version to send with the next edit (None: unversioned); Diverged if the person edited."""
        state = self._reported_state()
        if state == "current":
            return self.server.workspace.text_documents.get(self.uri).version
        if state == "theirs":
            if not self.resync_on_divergence:
                raise Diverged("the document was edited")
            document = self.server.workspace.text_documents.get(self.uri)
            self.client_text = document.source
            self._unreported.clear()
            return document.version
        return None

    async def _check_after_grace(self) -> None:
        await asyncio.sleep(EDIT_GRACE_S)
        if self._applying or self.failure is not None or self._reported_state() != "theirs":
            return  # an edit in flight re-checks when it is answered
        if self.on_person_edit is not None:
            self._take_person_edit(self.on_person_edit)
        elif self.resync_on_divergence:
            self.client_text = self.server.workspace.text_documents.get(self.uri).source
            self._unreported.clear()
            self._wake.set()
        else:
            self._diverged("the document was edited")

    def _take_person_edit(self, on_person_edit: Callable[[str], None]) -> None:
        """The person's text is what the client holds and, until the run says otherwise, the target."""
        text = self.server.workspace.text_documents.get(self.uri).source
        self.client_text = self.target = text
        self._unreported.clear()
        on_person_edit(text)

    def _diverged(self, reason: str) -> None:
        self.failure = reason
        self.on_diverged(reason)

    def _give_up(self, reason: str) -> None:
        logger.warning("streaming into %s stopped: %s", self.uri, reason)
        self.failure = reason

    def _workspace_edit(self, edits: list[types.TextEdit], version: int | None) -> types.WorkspaceEdit:
        if self._client_supports_document_changes():
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=self.uri, version=version),
                        edits=edits,
                    )
                ]
            )
        return types.WorkspaceEdit(changes={self.uri: edits})

    def _client_supports_document_changes(self) -> bool:
        workspace = self.server.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        return bool(edit and edit.document_changes)
