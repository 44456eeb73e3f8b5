"""All the server's minimization runs and trial runs, by document (at most one minimization per document).

`minimize` parses the request, reads the settings, refuses what cannot start
(a bad argument, a run already going for the document, freeze-annotation
errors) and otherwise starts a `MinimizeRun` and answers at once with its
`runId`; the run reports the rest through notifications (minimize.py).

It also keeps the last finished run of each document, for `autodd.writeReport`
and `autodd.writeTest` (the text comes from `autodd_lsp.report`; only the path
and the writing are the server's), and for the reproducer's hover and
"Try without this line" (server/person_lsp.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from autodd_lsp.engine import (
    CancelEvent,
    FailureQuestion,
    UsageError,
    ask_failure,
    output_tail,
    without_line,
)
from autodd_lsp.files import atomic_write, read_python_source, writable_problem
from autodd_lsp.notebook import NotebookError, is_notebook, notebook_program
from autodd_lsp.report import (
    bug_report,
    default_report_path,
    default_test_path,
    regression_test,
)
from autodd_lsp.server.minimize import FinishedRun, MinimizeRun, SourceFile
from autodd_lsp.server.person_lsp import line_diagnostic, without_message
from autodd_lsp.server.request import (
    SECTION,
    MinimizeRequest,
    MinimizeSettings,
    RunError,
    annotation_problem,
    as_argument,
)
from autodd_lsp.server.stream import same_text

logger = logging.getLogger(__name__)

ALREADY_RUNNING = "already minimizing this file"
NO_FINISHED_RUN = 'no finished run of this file yet: run "AutoDD: Minimize this failure" to the end first'
# command -> (what it writes, the default path beside the source, the text)
T = TypeVar("T")
ARTIFACTS: dict[str, tuple[str, Callable[..., str], Callable[..., str]]] = {
    "autodd.writeReport": ("report", default_report_path, bug_report),
    "autodd.writeTest": ("regression test", default_test_path, regression_test),
}
CONFIGURATION_TIMEOUT_S = 5.0


class Minimizer:
    """The server's runs and trial runs, by document."""

    def __init__(self, server) -> None:
        self.server = server
        self.runs: dict[str, MinimizeRun] = {}  # source uri -> its run under way
        self.finished: dict[str, FinishedRun] = {}  # uri -> its last run that finished
        # What stops each one-off run under way (a trial run, "Try without this line").
        self.one_off_runs: set[threading.Event | CancelEvent] = set()
        self.executor = ThreadPoolExecutor(thread_name_prefix="autodd-run")
        self._working: set[concurrent.futures.Future] = set()
        self._run_tasks: set[asyncio.Future] = set()

    # -- commands ------------------------------------------------------------------

    async def minimize(self, args: tuple) -> dict:
        """Start a run and answer at once: {status: "started", runId, uri, outputUri} or {status: "failed"}."""
        try:
            request = MinimizeRequest.parse(args)
            source = self.source_file(request.uri)
            if source.uri in self.runs:
                raise RunError(ALREADY_RUNNING)
            options = request.options(await self._configuration(source.uri), self.working_folder(source.path))
            if source.notebook is not None and options.in_place:  # a script never overwrites the notebook
                options = replace(options, output="beside")
            self._refuse_annotation_errors(source)
            if source.uri in self.runs:  # started while we read the settings
                raise RunError(ALREADY_RUNNING)
        except RunError as error:
            return self._refuse(str(error))
        run = MinimizeRun(self.server, request, source, options, self.in_thread)
        self.runs[source.uri] = run
        task = asyncio.ensure_future(run.execute())
        self._run_tasks.add(task)
        task.add_done_callback(lambda _: self._ended(run, task))
        return run.started()

    def _ended(self, run: MinimizeRun, task: asyncio.Future) -> None:
        self._run_tasks.discard(task)
        if self.runs.get(run.source.uri) is run:
            del self.runs[run.source.uri]
        if run.finished is not None:
            self.finished[run.source.uri] = run.finished

    async def suggest_err_msg(self, args: tuple) -> dict:
        try:
            source = self.source_file(as_argument(args).get("uri"))
            request = MinimizeRequest.parse(args)  # the same options as autodd.minimize's
            self._refuse_annotation_errors(source)  # as autodd.minimize would: before anything runs
            options = request.options(await self._configuration(source.uri), self.working_folder(source.path))
            question = await self.trial_question(source, options, threading.Event())
        except (RunError, UsageError) as error:
            self._show_error(str(error))
            return {"suggestions": [], "failures": [], "outputTail": "", "returncode": None, "error": str(error)}
        return suggestions_reply(question, source.explain)

    async def write_artifact(self, command: str, args: tuple) -> dict:
        """autodd.writeReport / autodd.writeTest {uri, path?}: describe the document's last finished run."""
        what, default_path, make = ARTIFACTS[command]
        try:
            arguments = as_argument(args)
            uri = arguments.get("uri")
            if not isinstance(uri, str) or not uri:
                raise RunError("expected a document uri (\"uri\": \"file:///...\")")
            run = self.finished.get(uri)
            if run is None:
                raise RunError(NO_FINISHED_RUN)
            path = self._artifact_path(arguments.get("path"), run, default_path)
            text = await self.in_thread(
                lambda: make(run.summary, run.source_path, run.output_path, "", run.options)
            )
            await self.in_thread(lambda: atomic_write(path, text))
        except RunError as error:
            self._show_error(f"{what}: {error}")
            return {"ok": False, "message": str(error)}
        except OSError as error:
            message = f"cannot write the {what}: {error.strerror or error}"
            self._show_error(message)
            return {"ok": False, "message": message}
        return {"ok": True, "path": path, "uri": from_fs_path(path)}

    def _artifact_path(self, given, run: FinishedRun, default_path) -> str:
        """The path asked for (a file path or uri; relative to the source's folder), or the default."""
        if given is None or given == "":
            path = default_path(run.source_path)
        elif not isinstance(given, str):
            raise RunError("path must be a string")
        else:
            path = to_fs_path(given) if given.startswith("file:") else given
            if not path:
                raise RunError(f"not a file path: {given}")
            path = os.path.join(os.path.dirname(run.source_path), os.path.expanduser(path))
        path = os.path.abspath(path)
        for name, other in (("the source", run.source_path), ("the minimized file", run.output_path)):
            if path == os.path.abspath(other):
                raise RunError(f"{path} is {name}: choose another path")
        problem = writable_problem(path)
        if problem:
            raise RunError(f"cannot write {path}: {problem}")
        return path

    def result_shown(self, uri: str) -> FinishedRun | None:
        """The finished run whose result the document `uri` shows, unchanged (else None)."""
        document = self.server.workspace.text_documents.get(uri)
        if document is None or any(run.output_uri == uri for run in self.runs.values()):
            return None
        for run in self.finished.values():
            if from_fs_path(run.output_path) == uri and run.reduction is not None:
                return run if same_text(document.source, run.summary.text) else None
        return None

    async def try_without(self, args: tuple) -> dict:
        """autodd.tryWithout {uri, line}: the finished result without the statement on that (0-based) line,
        judged by that run's oracle: {interesting, outcome} (plus a message and a note on the line)."""
        try:
            arguments = as_argument(args)
            uri, line = arguments.get("uri"), arguments.get("line")
            if not isinstance(line, int) or isinstance(line, bool) or line < 0:
                raise RunError("line must be a 0-based line number")
            run = self.result_shown(uri) if isinstance(uri, str) else None
            reduction = run.reduction if run is not None else None  # result_shown keeps only runs with one
            if run is None or reduction is None:
                raise RunError("this document is not the unchanged result of a finished minimization")
            candidate = without_line(run.summary.text, line + 1)
            if candidate is None:
                raise RunError(f"no statement starts on line {line + 1}")
        except RunError as error:
            self._show_error(str(error))
            return {"ok": False, "message": str(error)}
        cancel = CancelEvent()
        self.one_off_runs.add(cancel)
        try:
            verdict = await self.in_thread(lambda: reduction.try_text(candidate, cancel))
        except UsageError as error:
            self._show_error(str(error))
            return {"ok": False, "message": str(error)}
        finally:
            self.one_off_runs.discard(cancel)
        message = without_message(verdict.outcome, verdict.interesting)
        self.server.publisher.note(uri, [line_diagnostic(
            run.summary.text, line, message, types.DiagnosticSeverity.Information, self.server.position_encoding,
        )])
        self.server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Info if verdict.interesting else types.MessageType.Warning,
            message=f"{message} (line {line + 1})",
        ))
        return {"ok": True, "interesting": verdict.interesting, "outcome": verdict.outcome}

    def cancel(self, args: tuple) -> dict:
        """autodd.cancel [{uri}] or [{runId}]: that run; without either, every run (and one-off run)."""
        wanted = args[0] if args and isinstance(args[0], dict) else {}
        uri, run_id = wanted.get("uri"), wanted.get("runId")
        cancelled = [
            u for u, run in list(self.runs.items())
            if (uri is None or u == uri) and (run_id is None or run.run_id == run_id)
        ]
        for u in cancelled:
            self.runs[u].cancel("cancelled")
        if uri is None and run_id is None:
            for event in list(self.one_off_runs):
                event.set()
        return {"cancelled": cancelled}

    # -- lifetime ------------------------------------------------------------------

    def cancel_all(self, reason: str = "the server is shutting down") -> None:
        for run in list(self.runs.values()):
            run.cancel(reason)
        for event in list(self.one_off_runs):
            event.set()

    async def wait_all(self, timeout: float) -> None:
        if self._run_tasks:
            await asyncio.wait(list(self._run_tasks), timeout=timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Cancel everything and wait (at most `timeout` s) for the engine threads to return.

        A cancelled engine closes its backend, which kills its candidates: once
        the threads are back, no process of ours is left.
        """
        self.cancel_all()
        self.executor.shutdown(wait=False, cancel_futures=True)
        concurrent.futures.wait(list(self._working), timeout)

    async def in_thread(self, function: Callable[[], T]) -> T:
        """Run the blocking `function` in a worker thread that close() waits for."""
        future = self.executor.submit(function)
        self._working.add(future)
        future.add_done_callback(self._working.discard)
        return await asyncio.wrap_future(future)

    def document_changed(self, uri: str) -> None:
        for run in list(self.runs.values()):
            if run.stream is not None and run.stream.uri == uri:
                run.stream.document_changed()

    # -- shared pieces ---------------------------------------------------------------

    def source_file(self, uri) -> SourceFile:
        if not isinstance(uri, str) or not uri:
            raise RunError("expected a document uri (\"uri\": \"file:///...\")")
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            raise RunError(f"not a file on disk: {uri} (save it to a file first)")
        if not os.path.isfile(path):
            raise RunError(f"file not found: {path}")
        if is_notebook(path):  # its code cells on disk, as one program (autodd_lsp/notebook.py)
            try:
                program = notebook_program(path)
            except (NotebookError, OSError) as error:
                raise RunError(str(error)) from None
            return SourceFile(uri, path, program.text, saved=False, notebook=program)
        try:
            text = read_python_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError) as error:
            raise RunError(f"cannot read {path}: {error}") from None
        document = self.server.workspace.text_documents.get(uri)
        if document is not None and document.source != text:
            return SourceFile(uri, path, document.source, saved=False)
        return SourceFile(uri, path, text)

    @staticmethod
    def _refuse_annotation_errors(source: SourceFile) -> None:
        """RunError naming every freeze-annotation problem that stops a run, with its place (`prog.py: line 3, column 1: …`)."""
        problem = annotation_problem(source.text)
        if problem:
            raise RunError(f"{os.path.basename(source.path)}: {problem}")

    async def _configuration(self, uri: str) -> dict:
        workspace = self.server.client_capabilities.workspace
        if not (workspace and workspace.configuration):
            return {}
        params = types.ConfigurationParams(items=[types.ConfigurationItem(scope_uri=uri, section=SECTION)])
        try:
            values = await asyncio.wait_for(self.server.workspace_configuration_async(params), CONFIGURATION_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - the client's refusal, whatever its form
            logger.info("workspace/configuration: %s", error)
            return {}
        first = values[0] if values else None
        return first if isinstance(first, dict) else {}

    async def trial_question(self, source: SourceFile, options: MinimizeSettings, cancel: threading.Event
                          ) -> FailureQuestion:
        """The failure question of a trial run of `source` (its editor text when unsaved); `cancel` stops it."""
        run_options = options.trial_options()
        text = None if source.saved else source.text
        self.one_off_runs.add(cancel)
        try:
            return await self.in_thread(lambda: ask_failure(source.path, run_options, text=text, cancel=cancel))
        finally:
            self.one_off_runs.discard(cancel)

    def working_folder(self, path: str) -> str:
        """Where candidates run: the workspace folder holding the file (as an editor's Run does), else its folder."""
        folders = [to_fs_path(f.uri) for f in self.server.workspace.folders.values()]
        folders.append(self.server.workspace.root_path)
        for folder in folders:
            if folder and os.path.commonpath([os.path.abspath(folder), path]) == os.path.abspath(folder):
                return folder
        return os.path.dirname(path)

    def _refuse(self, message: str) -> dict:
        self._show_error(message)
        return {"status": "failed", "message": message}

    def _show_error(self, message: str) -> None:
        self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"AutoDD: {message}"))


def suggestions_reply(question: FailureQuestion, explain: Callable[[str], str] = str) -> dict:
    """autodd.suggestErrMsg's reply (notes/server.md): the messages, the failures without one with the
    autodd.minimize arguments that keep each, and the end of the trial run's output (`explain`: a
    notebook's tracebacks placed in its cells). A missing top-level import (the environment, not a
    bug) offers nothing and says why in `error` and `environment`."""
    reply = {
        "suggestions": question.messages,
        "failures": [{"title": choice.title, "arguments": choice.spec.arguments()} for choice in question.others],
        "outputTail": output_tail(explain(question.run.output)),
        "returncode": question.run.returncode,
    }
    if question.environment is not None:
        reply.update(error=question.environment.message(), environment=question.environment.fields())
    return reply
