"""One minimization run of one document, in the background: `MinimizeRun`.

A run is one unit that depends only on what it is given: the server (to talk
LSP), the parsed request, the source, the validated `MinimizeSettings`, and
`in_thread` (where blocking work goes). `autodd.minimize` has already been
answered `{status: "started", runId}` when `execute()` begins; from then on the
run speaks only through notifications: work-done progress and `autodd/progress`,
`autodd/notice` for the engine's notices, the failure question
(`window/showMessageRequest`, when no failure was given), streamed edits of the
output document, and at the end `autodd/finished` (plus a `window/showMessage`
for clients that did not bring their own progress token). A person's edit of
the reproducer beside the source is offered to the engine (server/person_lsp.py). All the reduction
logic lives in `autodd_lsp.engine`; `sessions.Minimizer` keeps the runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from autodd_lsp.engine import (
    Accepted,
    Event,
    FailureSpec,
    Notice,
    NotReproducible,
    PassStarted,
    Progress,
    ReduceOptions,
    Reduction,
    Size,
    Started,
    Stats,
    Summary,
    UsageError,
    ask_failure,
    output_tail,
)
from autodd_lsp.files import atomic_write, beside_output_path
from autodd_lsp.kinds import one_of
from autodd_lsp.notebook import NotebookProgram
from autodd_lsp.server.data_message import data_message
from autodd_lsp.server.person_lsp import edited_line, line_diagnostic, lost_message
from autodd_lsp.server.progress import (
    RunProgress,
    describe_progress,
    reduction_percentage,
    size_dict,
    structured_progress,
)
from autodd_lsp.server.request import (
    MinimizeRequest,
    MinimizeSettings,
    RunError,
    failure_fields,
)
from autodd_lsp.server.stream import DocumentStream

logger = logging.getLogger(__name__)

DOCUMENT_EDITED = "stopped: the document was edited"
FINISHED_NOTIFICATION = "autodd/finished"
NOTICE_NOTIFICATION = "autodd/notice"
OUTCOME_MESSAGE_TYPE = {
    "done": types.MessageType.Info,
    "cancelled": types.MessageType.Warning,
    "failed": types.MessageType.Error,
}


@dataclass(frozen=True)
class FinishedRun:
    """What a run that finished (not stopped) leaves for a report or a test."""

    summary: Summary
    source_path: str
    output_path: str
    options: ReduceOptions
    reduction: Reduction | None = None  # what the run learned (hover) and its oracle ("Try without this line")


@dataclass
class SourceFile:
    uri: str
    path: str
    text: str  # the editor's text when the document is open, else the file's
    saved: bool = True  # whether `text` is what the file on disk holds
    notebook: NotebookProgram | None = None  # a notebook's code cells as one program (`text`)

    def explain(self, output: str) -> str:
        """`output` with a notebook's traceback lines placed in its cells."""
        return self.notebook.explain(output) if self.notebook is not None else output


T = TypeVar("T")


class InThread(Protocol):
    """Runs a blocking function in a worker thread; awaits its result (`Sessions.in_thread`)."""

    def __call__(self, function: Callable[[], T], /) -> Awaitable[T]: ...


class MinimizeRun:
    """One minimization of one document."""

    def __init__(self, server, request: MinimizeRequest, source: SourceFile, options: MinimizeSettings,
                 in_thread: InThread) -> None:
        self.server = server
        self.request = request
        self.source = source
        self.options = options
        self.in_thread = in_thread
        self.run_id = f"autodd-run-{uuid.uuid4().hex[:12]}"
        if options.in_place:
            self.output_path, self.output_uri = source.path, source.uri
        else:
            self.output_path = beside_output_path(source.path)
            self.output_uri = from_fs_path(self.output_path)
        self.progress = RunProgress(
            server, f"AutoDD: minimizing {os.path.basename(source.path)}", request.progress_token,
            identity={"runId": self.run_id, "uri": source.uri, "outputUri": self.output_uri},
        )
        # A client that made its own progress token shows the outcome itself (from
        # autodd/finished); a window/showMessage from us would say it twice.
        self.client_shows_outcome = request.progress_token is not None
        self.finished: FinishedRun | None = None  # set when the run finished (not stopped)
        self.stream: DocumentStream | None = None
        self.reduction: Reduction | None = None
        self.cancel_event = threading.Event()  # stops the trial run
        self.stop_reason: str | None = None
        self._original: Size | None = None
        self._size: Size | None = None
        self._stats: Stats | None = None
        self._newest_text: str | None = None
        self._offers_pending = 0  # a person's edits the engine is judging: nothing is streamed meanwhile
        self._ended = False
        self._output_ready: asyncio.Task | None = None
        self._lock = threading.Lock()
        self._loop = asyncio.get_running_loop()
        self._cancelled = asyncio.Event()  # set (in the loop) by cancel()

    def started(self) -> dict:
        """The immediate answer to autodd.minimize."""
        return {"status": "started", "runId": self.run_id, "uri": self.source.uri, "outputUri": self.output_uri}

    # -- cancellation (any thread) -------------------------------------------------

    def cancel(self, reason: str | None = None) -> None:
        with self._lock:
            if self.stop_reason is None:
                self.stop_reason = reason or "cancelled"
            self.cancel_event.set()
            reduction = self.reduction
        if reduction is not None:
            reduction.cancel()
        try:
            self._loop.call_soon_threadsafe(self._cancelled.set)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    @property
    def cancelled(self) -> bool:
        return self.stop_reason is not None

    # -- the run -----------------------------------------------------------------

    async def execute(self) -> dict:
        """Run to the end; send autodd/finished (and the message); return what it said."""
        result = {"status": "failed", "message": "internal error"}
        try:
            result = await self._execute()
        except RunError as error:
            result = self._fail(str(error))
        except (UsageError, NotReproducible) as error:
            result = self._fail(self.source.explain(self._describe_engine_error(error)))
        except Exception as error:  # a bug: say so in one line, log the details
            logger.exception("minimize %s", self.source.uri)
            result = self._fail(f"internal error: {type(error).__name__}: {error}")
        finally:
            if self.stream is not None:
                self.stream.stop()
            self._ended = True  # the run's notes (an edit that lost the failure) end with it
            self.server.publisher.note(self.output_uri, [])
            self.progress.end(result["message"].splitlines()[0])
        self.server.protocol.notify(FINISHED_NOTIFICATION, {"runId": self.run_id, "uri": self.source.uri, **result})
        if not self.client_shows_outcome:
            message = result["message"]
            if result["status"] == "done":
                message += f" Result: {os.path.basename(self.output_path)}"
            self.server.window_show_message(
                types.ShowMessageParams(type=OUTCOME_MESSAGE_TYPE[result["status"]], message=f"AutoDD: {message}")
            )
        return result

    async def _execute(self) -> dict:
        if self.options.in_place:
            self._open_stream(self.source.text)  # from now on, an edit by the person stops the run
        await self.progress.begin("checking that the program fails", self.cancel)
        failure = self.request.failure
        if failure is None:
            failure = await self._ask_for_failure()
            if failure is None:
                return self._result("cancelled", self.stop_reason or "no failure chosen: nothing was minimized")
        if self.cancelled:
            return self._result("cancelled", self.stop_reason or "cancelled")
        reduce_options = self.options.with_failure(failure)
        summary = await self._reduce(reduce_options)
        return await self._finish(summary, reduce_options)

    async def _ask_for_failure(self) -> FailureSpec | None:
        self.progress.report("running the program once to see how it fails")
        text = None if self.source.saved else self.source.text
        options = self.options.trial_options()
        question = await self.in_thread(
            lambda: ask_failure(self.source.path, options, text=text, cancel=self.cancel_event)
        )
        if self.cancelled:
            return None
        run = question.run
        if question.not_run is not None:
            raise RunError(question.not_run)
        if question.environment is not None:  # the environment, not a bug: nothing to offer (engine/asking/environment.py)
            raise RunError(question.environment.message())
        # A choice's title is what the person sees: the message itself, or the failure without one in words.
        choices: dict[str, FailureSpec] = {}
        for choice in question.choices:
            choices.setdefault(choice.title, choice.spec)
        if not choices:
            raise RunError(
                f"the program did not fail (exit code {run.returncode}); "
                f"give the failure to keep ({one_of(failure_fields())}). Its output ends with:\n"
                + output_tail(self.source.explain(run.output), max_lines=10)
            )
        self.progress.report("waiting for the failure to keep")
        # A request of its own, answered whenever the person answers: nothing waits on autodd.minimize.
        question = self.server.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Info,
                message=f"AutoDD: which failure of {os.path.basename(self.source.path)} should the reduced program keep?",
                actions=[types.MessageActionItem(title=title) for title in choices],
            )
        )
        choice = await self._unless_cancelled(question)
        return choices.get(choice.title) if choice is not None else None

    async def _unless_cancelled(self, awaitable):
        """The result of `awaitable`, or None as soon as the run is cancelled."""
        answer = asyncio.ensure_future(awaitable)
        stop = asyncio.ensure_future(self._cancelled.wait())
        await asyncio.wait([answer, stop], return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not answer.done():
            answer.cancel()
            return None
        return answer.result()

    async def _reduce(self, options: ReduceOptions) -> Summary:
        loop = asyncio.get_running_loop()

        def listener(event: Event) -> None:
            try:
                loop.call_soon_threadsafe(self._on_event, event)
            except RuntimeError:  # the loop is gone: the server is exiting
                self.cancel("the server is shutting down")

        def build_and_run() -> Summary:
            reduction = Reduction(self.source.text, self.source.path, options, listener)
            with self._lock:
                self.reduction = reduction
                cancelled = self.cancelled
            if cancelled:
                reduction.cancel()
            return reduction.run()

        return await self.in_thread(build_and_run)

    # -- engine events (event loop thread) ----------------------------------------

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Started):
            self._original = self._size = event.original
            self.progress.report(f"checking that the program fails · {event.original.nodes} nodes", 0)
            return
        if isinstance(event, Notice):
            self._notice(event)
            return
        if isinstance(event, (PassStarted, Progress, Accepted)) and self._output_ready is None:
            # The original failed as it should: from now on there is a result to show.
            self._output_ready = asyncio.create_task(self._prepare_output())
        if isinstance(event, (PassStarted, Progress)):
            self._stats = event.stats
            self._size = getattr(event, "size", self._size)
            self._report_progress()
        elif isinstance(event, Accepted):
            self._size, self._stats, self._newest_text = event.size, event.stats, event.text
            if self.stream is not None and not self._offers_pending:
                self.stream.push(event.text)
            self._report_progress()

    def _notice(self, notice: Notice) -> None:
        level = getattr(notice, "level", "warning")
        self.server.protocol.notify(
            NOTICE_NOTIFICATION, {"runId": self.run_id, "uri": self.source.uri, "level": level, "message": notice.message}
        )
        self.server.window_log_message(types.LogMessageParams(
            type=types.MessageType.Info if level == "info" else types.MessageType.Warning,
            message=f"AutoDD: {notice.message}",
        ))

    def _report_progress(self) -> None:
        if self._original is None or self._size is None:
            return
        self.progress.report(
            describe_progress(self._original, self._size, self._stats),
            reduction_percentage(self._original, self._size),
            structured_progress(self._original, self._size, self._stats),
        )

    # -- output ------------------------------------------------------------------

    async def _prepare_output(self) -> None:
        """The original fails as it should: write it beside the source, show it, stream into it."""
        self.server.publisher.note(self.output_uri, [])  # an earlier run's notes on it are stale
        if not self.options.in_place:
            atomic_write(self.output_path, self.source.text)
            await self._show_output()
            # A result of an earlier run may be open: its edits start from what the editor holds.
            shown = self.server.workspace.text_documents.get(self.output_uri)
            self._open_stream(shown.source if shown is not None else self.source.text)
        if self.stream is not None:  # opened above, or at the start of an in-place run
            self.stream.start()

    def _open_stream(self, client_text: str) -> None:
        self.stream = DocumentStream(
            self.server,
            self.output_uri,
            client_text,
            resync_on_divergence=not self.options.in_place,
            on_diverged=lambda reason: self.cancel(DOCUMENT_EDITED),
            on_person_edit=None if self.options.in_place else self._person_edited,
        )
        self.stream.push(self._newest_text or self.source.text)

    # -- the person's edits of the reproducer (server/person_lsp.py) --------------------------

    def _person_edited(self, text: str) -> None:
        """Offer the person's text to the engine; stream nothing until it is judged."""
        reduction = self.reduction
        if reduction is None or self.cancelled:
            return
        best = self._newest_text or self.source.text
        self._offers_pending += 1
        self.server.publisher.note(self.output_uri, [])
        future = reduction.offer(text)

        def judged(done) -> None:
            try:
                self._loop.call_soon_threadsafe(self._offer_judged, best, text, done.result())
            except RuntimeError:  # the loop is gone: the server is exiting
                pass

        future.add_done_callback(judged)

    def _offer_judged(self, best: str, text: str, verdict) -> None:
        self._offers_pending -= 1
        if self._ended:  # judged after the run ended: its note would outlive the run
            return
        if not verdict.interesting:
            message = lost_message(verdict.outcome)
            self.server.publisher.note(self.output_uri, [line_diagnostic(
                best, edited_line(best, text), message, types.DiagnosticSeverity.Warning, self.server.position_encoding,
            )])
            self._notice(Notice(message.removeprefix("AutoDD: ")))
        elif not verdict.adopted:
            self._notice(Notice("the edit keeps the failure, but the run was ending: its result stands"))
        if self.stream is not None and not self._offers_pending:
            self.stream.push(self._newest_text or self.source.text)

    async def _show_output(self) -> None:
        window = self.server.client_capabilities.window
        if not (window and window.show_document and window.show_document.support):
            return
        try:
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=self.output_uri, take_focus=False)
            )
        except Exception as error:  # noqa: BLE001 - the client's refusal, whatever its form
            logger.info("showDocument %s: %s", self.output_uri, error)

    async def _finish(self, summary: Summary, options: ReduceOptions) -> dict:
        await asyncio.sleep(0)  # let events the engine sent last be handled first
        if self._output_ready is not None:
            await self._output_ready
        edited = self.stop_reason == DOCUMENT_EDITED
        if self.stream is not None and not edited:
            self.stream.push(summary.text)
            await self.stream.close()
        if edited:
            return self._result("cancelled", DOCUMENT_EDITED, summary, with_output=False)
        atomic_write(self.output_path, summary.text)
        message = summary.describe()
        if summary.data and not summary.cancelled:  # the files it reads, cut with it (notes/data.md)
            message += data_message(summary, self.output_path)
        if self.stream is not None and self.stream.failure and self.stream.failure != "stopped":
            message += f" The editor did not show every step ({self.stream.failure}); the file on disk is complete."
        if not summary.cancelled:  # the failure kept is options.spec, for a report or a test
            self.finished = FinishedRun(summary, self.source.path, self.output_path, options, self.reduction)
        return self._result("cancelled" if summary.cancelled else "done", message, summary)

    # -- results -----------------------------------------------------------------

    def _result(self, status: str, message: str, summary: Summary | None = None, with_output: bool = True) -> dict:
        result: dict = {"status": status, "message": message}
        if summary is not None:
            if with_output:
                result["outputUri"] = self.output_uri
            result["original"] = size_dict(summary.original)
            result["final"] = size_dict(summary.final)
        return result

    def _fail(self, message: str) -> dict:
        if self.cancelled and self.stop_reason != DOCUMENT_EDITED:
            return self._result("cancelled", self.stop_reason or "cancelled")
        return self._result("failed", message)

    @staticmethod
    def _describe_engine_error(error: Exception) -> str:
        message = str(error)
        tail = getattr(error, "output_tail", "")
        if tail:
            message += "\nThe program's output ends with:\n" + output_tail(tail, max_lines=10)
        return message
