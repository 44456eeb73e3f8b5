// Entry point: wires the language server, the commands and the decorations.

import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { FrozenRegionDecorations } from './decorations';
import { errorText } from './format';
import { disposeLogger, logger } from './log';
import { MinimizeFlow } from './minimize';
import { ClientCommand, NoticeParams, ProgressParams, ServerCommand } from './protocol';
import { onPythonInterpreterChanged } from './python';
import { recordFor, RunResults } from './results';
import { AutoddServer, readSettings } from './server';
import { StatusItem } from './status';
import type { MinimizeTarget } from './target';

/** What `activate` returns: used by the end-to-end tests, harmless otherwise. */
export interface AutoddApi {
  /** Resolves once the first start attempt is over: true if the server runs. */
  ready: Promise<boolean>;
  isServerRunning(): boolean;
  frozenRegions(uri: vscode.Uri): readonly vscode.Range[];
  activeRuns(): number;
  /** Titles of the AutoDD code lenses on a document (a finished run's actions). */
  codeLensTitles(uri: vscode.Uri): string[];
  /** The `autodd/progress` and `autodd/notice` of a run (the last 20 runs). */
  runEvents(runId: string): { progress: ProgressParams[]; notices: NoticeParams[] };
  /** The status bar item's text and tooltip. */
  statusBar(): { text: string; tooltip: string };
}

let server: AutoddServer | undefined;

export function activate(context: vscode.ExtensionContext): AutoddApi {
  const log = logger();
  const { version } = context.extension.packageJSON as { version: string };
  log.info(`AutoDD extension ${version} activating`);
  const decorations = new FrozenRegionDecorations();
  // The server asks whether a run is in flight; the flow needs the server: set just below.
  let flow: MinimizeFlow | undefined;
  server = new AutoddServer(decorations, context.extensionPath, () => flow?.busy ?? false);
  const results = new RunResults();
  const runs = new MinimizeFlow(server, results);
  flow = runs;
  const srv = server;
  const status = new StatusItem(srv);
  context.subscriptions.push(decorations, srv, results, runs, status);

  const freezeCommand = (serverCommand: string) => async (): Promise<boolean> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'python') {
      void vscode.window.showErrorMessage('AutoDD: open a Python file first.');
      return false;
    }
    const client = await srv.ensureRunning();
    if (!client) return false;
    try {
      const result = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: serverCommand,
        arguments: [
          {
            uri: client.code2ProtocolConverter.asUri(editor.document.uri),
            range: client.code2ProtocolConverter.asRange(editor.selection),
          },
        ],
      })) as { applied?: boolean; message?: string } | null;
      if (result && result.applied === false) {
        void vscode.window.showInformationMessage(`AutoDD: ${result.message ?? 'nothing changed'}`);
        return false;
      }
      return true;
    } catch (err) {
      const text = errorText(err);
      log.error(`${serverCommand} failed: ${text}`);
      void vscode.window.showErrorMessage(`AutoDD: ${text}`);
      return false;
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(ClientCommand.minimize, (target?: MinimizeTarget) => runs.minimize(target)),
    vscode.commands.registerCommand(ClientCommand.minimizeWithArguments, (target?: MinimizeTarget) =>
      runs.minimizeWithArguments(target),
    ),
    vscode.commands.registerCommand(ClientCommand.cancel, (target?: vscode.Uri) =>
      runs.cancel(target instanceof vscode.Uri ? target : undefined),
    ),
    vscode.commands.registerCommand(ClientCommand.openDiff, (arg?: unknown) => {
      const record = recordFor(results, arg);
      return record && runs.openDiff(record);
    }),
    vscode.commands.registerCommand(ClientCommand.copyReport, (arg?: unknown) => {
      const record = recordFor(results, arg);
      return record && runs.writeArtifact(record, 'report');
    }),
    vscode.commands.registerCommand(ClientCommand.writeTest, (arg?: unknown) => {
      const record = recordFor(results, arg);
      return record && runs.writeArtifact(record, 'test');
    }),
    vscode.commands.registerCommand(ClientCommand.runAgain, (arg?: unknown) => {
      const record = recordFor(results, arg);
      return record && runs.runAgain(record);
    }),
    vscode.commands.registerCommand(ClientCommand.freeze, freezeCommand(ServerCommand.freeze)),
    vscode.commands.registerCommand(ClientCommand.unfreeze, freezeCommand(ServerCommand.unfreeze)),
    vscode.commands.registerCommand(ClientCommand.showLogs, () => log.show()),
    vscode.commands.registerCommand(ClientCommand.statusMenu, () => status.menu()),
    vscode.commands.registerCommand(ClientCommand.restart, async () => {
      log.info('Restarting the AutoDD language server');
      return srv.restart();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('autodd.interpreter')) {
        log.info('autodd.interpreter changed: restarting the server');
        void srv.restart();
      }
    }),
  );

  // The Python extension's selection matters only while autodd.interpreter is empty.
  const followPythonSelection = async (): Promise<void> => {
    const settings = await readSettings(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (settings.interpreterSource !== 'setting' && settings.interpreter !== srv.currentInterpreter) {
      log.info(`Python environment changed to ${settings.interpreter}: restarting the server`);
      await srv.restart();
    }
  };
  void onPythonInterpreterChanged(() => void followPythonSelection()).then((d) => d && context.subscriptions.push(d));

  const events = new Map<string, { progress: ProgressParams[]; notices: NoticeParams[] }>();
  const eventsOf = (runId: string) => {
    let e = events.get(runId);
    if (!e) {
      e = { progress: [], notices: [] };
      events.set(runId, e);
      while (events.size > 20) events.delete(events.keys().next().value as string);
    }
    return e;
  };
  context.subscriptions.push(
    srv.onProgress((p) => eventsOf(p.runId).progress.push(p)),
    srv.onNotice((n) => eventsOf(n.runId).notices.push(n)),
  );

  const ready = srv.start();
  return {
    ready,
    isServerRunning: () => srv.running !== undefined,
    frozenRegions: (uri) => decorations.get(uri),
    activeRuns: () => runs.activeRuns,
    codeLensTitles: (uri) => results.titles(uri),
    runEvents: (runId) => events.get(runId) ?? { progress: [], notices: [] },
    statusBar: () => status.shown,
  };
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
  disposeLogger();
}
