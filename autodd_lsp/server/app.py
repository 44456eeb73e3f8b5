"""The LanguageServer instance and its features; each handler is a line or two of glue."""

from __future__ import annotations

import os

from lsprotocol import converters, types
from pygls.lsp.server import LanguageServer

from autodd_lsp import __version__
from autodd_lsp.server import code_actions, person_lsp
from autodd_lsp.server.diagnostics import DiagnosticsPublisher, is_python_document
from autodd_lsp.server.positions import UTF16
from autodd_lsp.server.request import RunError, as_argument
from autodd_lsp.server.sessions import Minimizer
from autodd_lsp.syntax.lines import split_lines

SHUTDOWN_WAIT_S = 5.0
CONVERTER = converters.get_converter()  # lsprotocol's, for LSP structures inside our commands' arguments


class AutoddServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("autodd-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.minimizer = Minimizer(self)
        self.publisher = DiagnosticsPublisher(self)
        self.exit_at_once = False  # set when serving over TCP
        self.shutdown_requested = False  # a `shutdown` request came before `exit`

    @property
    def position_encoding(self) -> str:
        encoding = self.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or UTF16)

    def shutdown(self) -> None:
        """The connection is over (exit, end of input, signal): stop every run, then pygls' own cleanup."""
        self.minimizer.close()
        super().shutdown()


def create_server() -> AutoddServer:
    server = AutoddServer()
    register_documents(server)
    register_code_actions(server)
    register_hover(server)
    register_commands(server)
    register_lifetime(server)
    return server


def register_documents(server: AutoddServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AutoddServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publisher.update(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AutoddServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.minimizer.document_changed(params.text_document.uri)
        ls.publisher.update(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AutoddServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.publisher.clear(params.text_document.uri)


def register_code_actions(server: AutoddServer) -> None:
    options = types.CodeActionOptions(code_action_kinds=[*code_actions.PROVIDED_KINDS, person_lsp.TRY_KIND])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    def code_action(ls: AutoddServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        document = ls.workspace.text_documents.get(params.text_document.uri)
        if document is None or not is_python_document(document.uri, document.language_id):
            return []
        running = document.uri in ls.minimizer.runs
        actions = code_actions.code_actions(document.uri, document.source, params, ls.position_encoding, running)
        only = [str(getattr(kind, "value", kind)) for kind in (params.context.only or [])]
        if code_actions.wanted(person_lsp.TRY_KIND, only) and ls.minimizer.result_shown(document.uri) is not None:
            tried = person_lsp.try_action(document.uri, document.source, params.range.start.line)
            actions += [tried] if tried is not None else []
        return actions


def register_hover(server: AutoddServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: AutoddServer, params: types.HoverParams) -> types.Hover | None:
        run = ls.minimizer.result_shown(params.text_document.uri)
        kept = run.reduction.why_kept(params.position.line + 1) if run is not None and run.reduction is not None else None
        if kept is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=person_lsp.hover_text(kept)))


def register_commands(server: AutoddServer) -> None:
    @server.command("autodd.minimize")
    async def minimize(ls: AutoddServer, *args):
        return await ls.minimizer.minimize(args)

    @server.command("autodd.suggestErrMsg")
    async def suggest_err_msg(ls: AutoddServer, *args):
        return await ls.minimizer.suggest_err_msg(args)

    @server.command("autodd.cancel")
    def cancel(ls: AutoddServer, *args):
        return ls.minimizer.cancel(args)

    @server.command("autodd.writeReport")
    async def write_report(ls: AutoddServer, *args):
        return await ls.minimizer.write_artifact("autodd.writeReport", args)

    @server.command("autodd.writeTest")
    async def write_test(ls: AutoddServer, *args):
        return await ls.minimizer.write_artifact("autodd.writeTest", args)

    @server.command(person_lsp.TRY_COMMAND)
    async def try_without(ls: AutoddServer, *args):
        return await ls.minimizer.try_without(args)

    @server.command("autodd.freeze")
    async def freeze(ls: AutoddServer, *args):
        return await apply_freeze(ls, "freeze", args)

    @server.command("autodd.unfreeze")
    async def unfreeze(ls: AutoddServer, *args):
        return await apply_freeze(ls, "unfreeze", args)


async def apply_freeze(ls: AutoddServer, action: str, args: tuple) -> dict:
    """Freeze or unfreeze the lines of {uri, range} through workspace/applyEdit."""
    try:
        arguments = as_argument(args)
        uri = arguments.get("uri")
        document = ls.workspace.text_documents.get(uri) if isinstance(uri, str) else None
        if document is None or not isinstance(uri, str):
            raise RunError(f"{action}: the document is not open: {uri}")
        selection = CONVERTER.structure(arguments.get("range"), types.Range)
    except RunError as error:
        return refuse(ls, str(error))
    except Exception:  # noqa: BLE001 - malformed arguments: cattrs raises many kinds
        return refuse(ls, f"{action}: expected {{uri, range}} with an LSP range")
    lines = split_lines(document.source)
    start, end = code_actions.selected_lines(lines, selection, ls.position_encoding)
    edits = code_actions.freeze_or_unfreeze(action, document.source, start, end)
    if not edits:
        return {"applied": False, "message": f"nothing to {action} there"}
    edit = code_actions.workspace_edit(uri, document.source, edits, ls.position_encoding)
    result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=f"AutoDD: {action}"))
    return {"applied": bool(result and result.applied)}


def refuse(ls: AutoddServer, message: str) -> dict:
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"AutoDD: {message}"))
    return {"applied": False, "message": message}


def register_lifetime(server: AutoddServer) -> None:
    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AutoddServer, *args) -> None:
        ls.shutdown_requested = True
        ls.minimizer.cancel_all()
        await ls.minimizer.wait_all(SHUTDOWN_WAIT_S)

    @server.feature(types.EXIT)
    def exit_(ls: AutoddServer, *args) -> None:
        ls.minimizer.cancel_all()
        if ls.exit_at_once:  # over TCP, pygls would raise SystemExit inside a callback: exit cleanly instead
            ls.minimizer.close(timeout=5.0)
            os._exit(0 if ls.shutdown_requested else 1)
