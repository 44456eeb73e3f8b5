// Starting, stopping and restarting the AutoDD language server
// (`<interpreter> bundled/tool/autodd_server.py`, stdio) with vscode-languageclient.

import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  State,
} from 'vscode-languageclient/node';
import { FrozenRegionDecorations } from './decorations';
import { EchoFilter } from './echo';
import { noticeMessage, ServerStatus, stderrLevel } from './format';
import { checkInterpreter } from './interpreter';
import { logger } from './log';
import {
  ClientCommand,
  FinishedNotification,
  FinishedParams,
  FrozenRegionsNotification,
  FrozenRegionsParams,
  NoticeNotification,
  NoticeParams,
  ProgressNotification,
  ProgressParams,
  RunOptions,
  ServerCommand,
} from './protocol';
import { pythonExtensionInterpreter } from './python';
import { interpreterProblemMessage, resolveSettings, runOptions, Settings } from './settings';

/** The server's entry script inside the extension (puts bundled/libs on sys.path). */
export const ENTRY_SCRIPT = 'bundled/tool/autodd_server.py';

export const CLIENT_ID = 'autodd';
const CLIENT_NAME = 'AutoDD';

/** Reads the `autodd.*` settings for a resource and resolves the interpreter. */
export async function readSettings(resource?: vscode.Uri): Promise<Settings> {
  const config = vscode.workspace.getConfiguration('autodd', resource);
  const folder =
    (resource && vscode.workspace.getWorkspaceFolder(resource)) ?? vscode.workspace.workspaceFolders?.[0];
  const raw = { interpreter: config.get('interpreter') };
  const fromPython =
    typeof raw.interpreter === 'string' && raw.interpreter.trim()
      ? undefined
      : await pythonExtensionInterpreter(resource ?? folder?.uri);
  return resolveSettings(raw, {
    workspaceFolder: folder?.uri.fsPath,
    pythonExtensionInterpreter: fromPython,
  });
}

/** The run settings the user set for `resource` (only those, unvalidated: the server checks them). */
export function readRunOptions(resource?: vscode.Uri): RunOptions {
  const config = vscode.workspace.getConfiguration('autodd', resource);
  const folder =
    (resource && vscode.workspace.getWorkspaceFolder(resource)) ?? vscode.workspace.workspaceFolders?.[0];
  return runOptions((key) => config.inspect(key), folder?.uri.fsPath);
}

export class AutoddServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private interpreter: string | undefined;
  /** Serializes start/stop/restart so that they never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Messages this extension shows itself: the server's identical showMessage is logged only. */
  private readonly echoes = new EchoFilter();
  private readonly stateEmitter = new vscode.EventEmitter<'running' | 'stopped'>();
  readonly onDidChangeState = this.stateEmitter.event;
  private serverStatus: ServerStatus = { state: 'stopped' };
  private readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  /** starting / ready / failed (why) / stopped, for the status bar item. */
  readonly onDidChangeStatus = this.statusEmitter.event;
  private readonly progressEmitter = new vscode.EventEmitter<ProgressParams>();
  /** `autodd/progress` of any run. */
  readonly onProgress = this.progressEmitter.event;
  private readonly finishedEmitter = new vscode.EventEmitter<FinishedParams>();
  /** `autodd/finished` of any run. */
  readonly onFinished = this.finishedEmitter.event;
  private readonly noticeEmitter = new vscode.EventEmitter<NoticeParams>();
  /** `autodd/notice` of any run (already shown to the user). */
  readonly onNotice = this.noticeEmitter.event;

  constructor(
    private readonly decorations: FrozenRegionDecorations,
    private readonly extensionPath: string,
    /** Whether a run of this extension may still announce its end (echoes may be on their way). */
    private readonly runsInFlight: () => boolean = () => false,
  ) {}

  /** The running client, or undefined. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  get currentInterpreter(): string | undefined {
    return this.interpreter;
  }

  /** The interpreter of the last start attempt (also when it failed), for the status bar. */
  lastInterpreter: string | undefined;

  get status(): ServerStatus {
    return this.serverStatus;
  }

  private setStatus(status: ServerStatus): void {
    this.serverStatus = status;
    this.statusEmitter.fire(status);
  }

  start(): Promise<boolean> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<boolean> {
    return this.enqueue(async () => {
      await this.doStop();
      return this.doStart();
    });
  }

  /** Returns the running client, starting the server first if needed; undefined if it cannot start. */
  async ensureRunning(): Promise<LanguageClient | undefined> {
    if (this.running) return this.running;
    await this.start();
    return this.running;
  }

  /** A message this extension shows itself; the server's identical showMessage is then not shown twice. */
  expectEcho(text: string): void {
    this.echoes.expect(text, Date.now());
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<boolean> {
    if (this.client) return this.client.state === State.Running;
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = await readSettings(folder?.uri);
    const interpreter = settings.interpreter;
    this.lastInterpreter = interpreter;
    this.setStatus({ state: 'starting' });
    logger().info(`Using interpreter ${interpreter} (from ${settings.interpreterSource})`);

    const entry = path.join(this.extensionPath, ENTRY_SCRIPT);
    const check = await checkInterpreter(interpreter, entry, folder?.uri.fsPath);
    if (check.description) logger().info(check.description);
    const problem = check.problem;
    if (problem) {
      const message = interpreterProblemMessage(interpreter, problem);
      logger().error(`${message} [${problem.detail}]`);
      this.setStatus({ state: 'failed', reason: message });
      void vscode.window
        .showErrorMessage(message, 'Open Settings', 'Show Logs')
        .then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'autodd.interpreter');
          } else if (choice === 'Show Logs') {
            logger().show();
          }
        });
      return false;
    }

    const serverOptions: ServerOptions = {
      command: interpreter,
      args: [entry],
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'python' }],
      outputChannel: logger(),
      traceOutputChannel: logger(),
      // The server's stderr: its start-up report and log lines at their own level
      // (the default logs every line as an error).
      stdioOptions: {
        stdout: (input, channel) => readLines(input, (line) => channel.info(line)),
        stderr: (input, channel) => readLines(input, (line) => channel[stderrLevel(line)](line)),
      },
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        workspace: {
          // The server reads `autodd.*` with workspace/configuration; give it the
          // resolved interpreter rather than an empty setting.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return Promise.all(
              result.map(async (value: unknown, i) => {
                const item = params.items[i];
                if (item?.section !== 'autodd' || typeof value !== 'object' || value === null) {
                  return value;
                }
                const resource = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                const resolved = await readSettings(resource);
                return { ...value, interpreter: resolved.interpreter };
              }),
            );
          },
        },
        window: {
          // Open the streamed `<stem>.min.py` beside the source instead of over it.
          showDocument: async (params, token, next) => {
            if (params.external) return next(params, token);
            const uri = vscode.Uri.parse(params.uri);
            const active = vscode.window.activeTextEditor;
            const visible = vscode.window.visibleTextEditors.find(
              (e) => e.document.uri.toString() === uri.toString(),
            );
            try {
              await vscode.window.showTextDocument(uri, {
                viewColumn: visible?.viewColumn ?? (active ? vscode.ViewColumn.Beside : undefined),
                preserveFocus: !params.takeFocus,
                preview: false,
                selection: params.selection
                  ? new vscode.Range(
                      params.selection.start.line,
                      params.selection.start.character,
                      params.selection.end.line,
                      params.selection.end.character,
                    )
                  : undefined,
              });
              return { success: true };
            } catch (err) {
              logger().warn(`showDocument ${params.uri} failed: ${String(err)}`);
              return { success: false };
            }
          },
        },
        // The server's "Minimize this failure" code action runs the generic flow
        // (questions through window/showMessageRequest); route it to the richer
        // VS Code flow with a quick pick and a cancellable notification instead.
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          if (!actions) return actions;
          for (const action of actions) {
            const command = action instanceof vscode.CodeAction ? action.command : action;
            if (command && command.command === ServerCommand.minimize) {
              // "Minimize this failing test (name)" names the test: keep it
              const test = (command.arguments?.[0] as { test?: unknown } | undefined)?.test;
              command.command = ClientCommand.minimize;
              command.arguments = [typeof test === 'string' && test ? { uri: document.uri, test } : document.uri];
            }
          }
          return actions;
        },
      },
    };

    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.client = client;
    this.interpreter = interpreter;
    client.onNotification(FrozenRegionsNotification, (params: FrozenRegionsParams) => {
      this.decorations.set(
        params.uri,
        params.ranges.map((r) => client.protocol2CodeConverter.asRange(r)),
      );
    });
    client.onNotification(ProgressNotification, (params: ProgressParams) => this.progressEmitter.fire(params));
    client.onNotification(NoticeNotification, (params: NoticeParams) => {
      const shown = noticeMessage(params);
      logger()[shown.severity === 'warning' ? 'warn' : 'info'](`notice (${params.runId}): ${params.message}`);
      void (shown.severity === 'warning'
        ? vscode.window.showWarningMessage(shown.text)
        : vscode.window.showInformationMessage(shown.text));
      this.noticeEmitter.fire(params);
    });
    client.onNotification(FinishedNotification, (params: FinishedParams) => {
      logger().info(`run ${params.runId} finished: ${JSON.stringify(params)}`);
      this.finishedEmitter.fire(params);
    });
    // Replaces the client's default window/showMessage handler (registered first).
    // Every server message is shown, except the exact repeat of one this extension
    // shows itself (a run's end, a refused request); a repeat may arrive just
    // before the notification it repeats, so while a run is in flight it waits a moment.
    client.onNotification(ShowMessageNotification.type, (params: ShowMessageParams) => {
      const handle = (waited: boolean) => {
        if (this.echoes.isEcho(params.message, Date.now())) {
          logger().info(`(server, shown by the extension) ${params.message}`);
        } else if (!waited && this.runsInFlight()) {
          setTimeout(() => handle(true), 1000);
        } else {
          const show =
            params.type === MessageType.Error
              ? vscode.window.showErrorMessage
              : params.type === MessageType.Warning
                ? vscode.window.showWarningMessage
                : vscode.window.showInformationMessage;
          void show(params.message);
        }
      };
      handle(false);
    });
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) this.stateEmitter.fire('running');
      else if (e.newState === State.Stopped) {
        this.stateEmitter.fire('stopped');
        // a stop we did not ask for (doStop forgets the client first): the server went away
        if (this.client === client && this.serverStatus.state === 'ready') {
          this.setStatus({ state: 'failed', reason: 'the server stopped (see "AutoDD: Show logs")' });
        }
      }
    });
    try {
      await client.start();
      logger().info(`AutoDD language server started (${interpreter} ${entry})`);
      this.setStatus({ state: 'ready' });
      return true;
    } catch (err) {
      logger().error(`AutoDD language server failed to start: ${String(err)}`);
      this.setStatus({ state: 'failed', reason: String(err) });
      void vscode.window
        .showErrorMessage(`AutoDD: the language server failed to start: ${String(err)}`, 'Show Logs')
        .then((choice) => choice && logger().show());
      this.client = undefined;
      this.interpreter = undefined;
      try {
        await client.dispose(2000);
      } catch {
        // already gone
      }
      return false;
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.interpreter = undefined;
    this.decorations.clear();
    this.setStatus({ state: 'stopped' });
    if (!client) return;
    try {
      await client.dispose(5000);
    } catch (err) {
      logger().warn(`Stopping the AutoDD language server: ${String(err)}`);
    }
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.statusEmitter.dispose();
    this.progressEmitter.dispose();
    this.finishedEmitter.dispose();
    this.noticeEmitter.dispose();
  }
}

function readLines(input: Readable, each: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', each);
}
