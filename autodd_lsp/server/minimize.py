"""One minimization run of one document, in the background.

A run is glue over the engine: it picks the options, runs `Reduction.run()` in
a thread, turns the engine's events into progress reports and streamed edits,
writes the result to disk, and answers the command with a status. All the
reduction logic lives in `autodd_lsp.engine`; `sessions.Minimizer` keeps the
runs of all documents, and the last finished run of each (`FinishedRun`), which
`autodd.writeReport` and `autodd.writeTest` describe.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import threading
from dataclasses import dataclass

from lsprotocol import types
from pygls.uris import from_fs_path

from autodd_lsp.engine import (
    Accepted,
    Event,
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
)
from autodd_lsp.engine.failure_spec import FailureSpec
from autodd_lsp.engine.signature import output_tail, suggest_err_msgs, suggest_kinds
from autodd_lsp.files import atomic_write, beside_output_path
from autodd_lsp.server import settings as run_settings
from autodd_lsp.server.progress import RunProgress, describe_progress, reduction_percentage
from autodd_lsp.server.stream import DocumentStream

logger = logging.getLogger(__name__)

TITLE = "AutoDD: minimizing"
DOCUMENT_EDITED = "stopped: the document was edited"


class RunError(Exception):
    """A run cannot start or go on; the message is for the person."""


@dataclass(frozen=True)
class FinishedRun:
    """What a run that finished (not stopped) leaves for a report or a test."""

    summary: Summary
    source_path: str
    output_path: str
    err_msg: str
    options: ReduceOptions


@dataclass
class SourceFile:
    uri: str
    path: str
    text: str  # the editor's text when the document is open, else the file's
    saved: bool = True  # whether `text` is what the file on disk holds


# ---------------------------------------------------------------- small helpers

def size_dict(size: Size) -> dict:
    return {"lines": size.lines, "nodes": size.nodes}


def interpreter_exists(interpreter: str) -> bool:
    return os.path.isfile(interpreter) or shutil.which(interpreter) is not None


# autodd.minimize's arguments that name the failure to keep, as the CLI's flags do.
FAILURE_ARGUMENTS = ("errMsg", "errRegex", "crash", "exitCode", "hang")


def failure_from_arguments(args: dict) -> FailureSpec | None:
    """The failure `args` ask to keep (at most one of FAILURE_ARGUMENTS); None: ask the person.

    errMsg / errRegex: a string; crash: true (any signal) or a signal's name ("SIGSEGV");
    exitCode: a whole number; hang: true. An absent, null, false or "" one is not given.
    """
    given = [name for name in FAILURE_ARGUMENTS if args.get(name) not in (None, False, "")]
    if len(given) > 1:
        raise RunError(f"give one failure to keep ({', '.join(FAILURE_ARGUMENTS)}), not {' and '.join(given)}")
    if not given:
        return None
    name, value = given[0], args[given[0]]
    if name in ("errMsg", "errRegex"):
        if not isinstance(value, str):
            raise RunError(f"{name} must be a string")
        spec = FailureSpec.message(value) if name == "errMsg" else FailureSpec.regex(value)
    elif name == "crash":
        if value is True:
            spec = FailureSpec.crash()
        elif isinstance(value, str):
            spec = FailureSpec.crash(None if value.lower() == "any" else value)
        else:
            raise RunError("crash must be true (any signal) or a signal's name such as \"SIGSEGV\"")
    elif name == "exitCode":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise RunError(f"exitCode must be a whole number, got {value!r}")
        spec = FailureSpec.exit_code(int(value))
    else:
        if value is not True:
            raise RunError("hang must be true")
        spec = FailureSpec.hang()
    try:
        spec.validate()
    except UsageError as error:
        raise RunError(str(error).replace("--err-regex", "errRegex").replace("--crash", "crash")
                       .replace("--exit-code", "exitCode")) from None
    return spec


def failure_arguments(spec: FailureSpec) -> dict:
    """The autodd.minimize arguments that ask for `spec` (the inverse of failure_from_arguments)."""
    if spec.kind == "message":
        return {"errMsg": spec.value}
    if spec.kind == "regex":
        return {"errRegex": spec.value}
    if spec.kind == "crash":
        return {"crash": True if spec.value is None else str(spec.value)}
    if spec.kind == "exit-code":
        return {"exitCode": spec.value}
    return {"hang": True}


def as_arguments(args: tuple) -> dict:
    """The one object argument of our commands."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise RunError("expected one argument: an object such as {\"uri\": \"file:///...\"}")
    return args[0]


# ---------------------------------------------------------------- one run

@dataclass
class RunState:
    """What the engine has told us so far."""

    original: Size | None = None
    size: Size | None = None
    stats: Stats | None = None
    newest_text: str | None = None


class MinimizeRun:
    """One minimization of one document."""

    def __init__(self, server, minimizer, source: SourceFile, args: dict) -> None:
        self.server = server
        self.minimizer = minimizer
        self.source = source
        self.args = args
        self.state = RunState()
        self.progress = RunProgress(server, TITLE, args.get("progressToken"))
        # A client that made its own progress token shows the outcome itself (from
        # the command's result); messages from us would say it twice.
        self.client_shows_outcome = bool(args.get("progressToken"))
        self.stream: DocumentStream | None = None
        self.output_path = source.path
        self.output_uri = source.uri
        self.in_place = False
        self.reduction: Reduction | None = None
        self.cancel_event = threading.Event()  # stops a probe
        self.stop_reason: str | None = None
        self._output_ready: asyncio.Task | None = None
        self._lock = threading.Lock()
        self._loop = asyncio.get_running_loop()
        self._cancelled = asyncio.Event()  # set (in the loop) by cancel()

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
        result = {"status": "failed", "message": "internal error"}
        try:
            result = await self._execute()
        except RunError as error:
            result = self._fail(str(error))
        except (UsageError, NotReproducible) as error:
            result = self._fail(self._describe_engine_error(error))
        except Exception as error:  # a bug: say so in one line, log the details
            logger.exception("minimize %s", self.source.uri)
            result = self._fail(f"internal error: {type(error).__name__}: {error}")
        finally:
            if self.stream is not None:
                self.stream.stop()
            self.progress.end(result["message"].splitlines()[0])
        return result

    async def _execute(self) -> dict:
        options = await self.minimizer.settings_for(self.source.uri, self.args)
        self.in_place = options.output == "inPlace"
        if self.in_place:
            self._open_stream(self.source.text)  # from now on, an edit by the person stops the run
        else:
            self.output_path = beside_output_path(self.source.path)
            self.output_uri = from_fs_path(self.output_path)
        await self.progress.begin("checking that the program fails", self.cancel)
        failure = failure_from_arguments(self.args)
        if failure is None:
            failure = await self._ask_for_failure(options)
            if failure is None:
                return self._result("cancelled", "no failure chosen: nothing was minimized")
        if self.cancelled:
            return self._result("cancelled", self.stop_reason)
        reduce_options = ReduceOptions(
            failure=failure,
            backend=options.backend,
            timeout=options.timeout,
            jobs=options.jobs,
            python=options.interpreter,
            cwd=self.minimizer.working_folder(self.source.path),
            match=options.match,
            inline_modules=not options.keep_imports,
            repeat=options.repeat,
        )
        summary = await self._reduce(reduce_options)
        return await self._finish(summary, reduce_options)

    async def _ask_for_failure(self, options: run_settings.RunSettings) -> FailureSpec | None:
        self.progress.report("running the program once to see how it fails")
        result = await self.minimizer.run_probe(self.source, options, self.cancel_event)
        if self.cancelled:
            return None
        messages = suggest_err_msgs(result.output, result.returncode)
        # A choice's title is what the person sees: the message itself, or the failure without one in words.
        choices = {message: FailureSpec.message(message) for message in messages}
        for spec in suggest_kinds(result, with_messages=bool(messages)):
            choices.setdefault(spec.describe(options.timeout), spec)
        if not choices:
            raise RunError(
                f"the program did not fail (exit code {result.returncode}); "
                "give the failure to keep (errMsg, errRegex, crash, exitCode or hang). Its output ends with:\n"
                + output_tail(result.output, max_lines=10)
            )
        self.progress.report("waiting for the failure to keep")
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

        return await self.minimizer.in_thread(build_and_run)

    # -- engine events (event loop thread) ----------------------------------------

    def _on_event(self, event: Event) -> None:
        state = self.state
        if isinstance(event, Started):
            state.original = state.size = event.original
            self.progress.report(f"checking that the program fails · {event.original.nodes} nodes", 0)
            return
        if isinstance(event, Notice):
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=f"AutoDD: {event.message}")
            )
            return
        if isinstance(event, (PassStarted, Progress, Accepted)) and self._output_ready is None:
            # The original failed as it should: from now on there is a result to show.
            self._output_ready = asyncio.create_task(self._prepare_output())
        if isinstance(event, (PassStarted, Progress)):
            state.stats = event.stats
            state.size = getattr(event, "size", state.size)
            self._report_progress()
        elif isinstance(event, Accepted):
            state.size, state.stats, state.newest_text = event.size, event.stats, event.text
            if self.stream is not None:
                self.stream.push(event.text)
            self._report_progress()

    def _report_progress(self) -> None:
        state = self.state
        self.progress.report(
            describe_progress(state.original, state.size, state.stats),
            reduction_percentage(state.original, state.size),
        )

    # -- output ------------------------------------------------------------------

    async def _prepare_output(self) -> None:
        """The original fails as it should: write it beside the source, show it, stream into it."""
        if not self.in_place:
            atomic_write(self.output_path, self.source.text)
            await self._show_output()
            # A result of an earlier run may be open: its edits start from what the editor holds.
            shown = self.server.workspace.text_documents.get(self.output_uri)
            self._open_stream(shown.source if shown is not None else self.source.text)
        self.stream.start()

    def _open_stream(self, client_text: str) -> None:
        self.stream = DocumentStream(
            self.server,
            self.output_uri,
            client_text,
            resync_on_divergence=not self.in_place,
            on_diverged=lambda reason: self.cancel(DOCUMENT_EDITED),
        )
        self.minimizer.streams[self.output_uri] = self.stream
        self.stream.push(self.state.newest_text or self.source.text)

    async def _show_output(self) -> None:
        window = self.server.client_capabilities.window
        if not (window and window.show_document and window.show_document.support):
            return
        try:
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=self.output_uri, take_focus=False)
            )
        except Exception as error:
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
            self._notify(types.MessageType.Warning, f"AutoDD: {DOCUMENT_EDITED}; the file was left as you edited it.")
            return self._result("cancelled", DOCUMENT_EDITED, summary, with_output=False)
        atomic_write(self.output_path, summary.text)
        message = summary.describe()
        if self.stream is not None and self.stream.failure and self.stream.failure != "stopped":
            message += f" The editor did not show every step ({self.stream.failure}); the file on disk is complete."
        status = "cancelled" if summary.cancelled else "done"
        if not summary.cancelled:
            spec = options.spec
            self.minimizer.finished[self.source.uri] = FinishedRun(
                summary, self.source.path, self.output_path, spec.value if spec.kind == "message" else "", options
            )
        self._notify(types.MessageType.Info, f"AutoDD: {message} Result: {os.path.basename(self.output_path)}")
        return self._result(status, message, summary)

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
            return self._result("cancelled", self.stop_reason)
        self._notify(types.MessageType.Error, f"AutoDD: {message}")
        return self._result("failed", message)

    def _describe_engine_error(self, error: Exception) -> str:
        message = str(error)
        tail = getattr(error, "output_tail", "")
        if tail:
            message += "\nThe program's output ends with:\n" + output_tail(tail, max_lines=10)
        return message

    def _notify(self, kind: types.MessageType, message: str) -> None:
        if not self.client_shows_outcome:
            self.server.window_show_message(types.ShowMessageParams(type=kind, message=message))
