// "Minimize this failure": pick the failure signature, start `autodd.minimize`
// (it replies at once with a runId), render the run from the server's structured
// `autodd/progress` in a cancellable notification, and on `autodd/finished`
// settle the streamed result document, report the size reduction, and keep the
// run reachable through code lenses on the reproducer (results.ts): Open diff,
// Copy bug report, Write regression test, Run again.

import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import {
  describeProgress,
  formatResultMessage,
  progressIncrement,
  SuggestionItem,
  suggestionItems,
  suggestionPlaceholder,
  validateErrMsg,
} from './format';
import { logger } from './log';
import {
  ArtifactResult,
  FinishedParams,
  MinimizeArgs,
  MinimizeReply,
  MinimizeResult,
  ServerCommand,
  SuggestErrMsgResult,
} from './protocol';
import { RunRecord, RunResults } from './results';
import { AutoddServer, readRunOptions, readSettings } from './server';

/** Snapshots of the original programs, for "Open diff" (also after an in-place run). */
export const ORIGINAL_SCHEME = 'autodd-original';

class OriginalSnapshots implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  add(source: vscode.Uri, text: string): vscode.Uri {
    const id = String(++this.counter);
    this.texts.set(id, text);
    while (this.texts.size > 20) this.texts.delete(this.texts.keys().next().value as string);
    return source.with({ scheme: ORIGINAL_SCHEME, query: id });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }
}

interface Run {
  source: vscode.Uri;
  lspUri: string;
  /** Known once the server has replied. */
  runId?: string;
  outputUri?: vscode.Uri;
  cancelRequested: boolean;
}

/** Arguments accepted by `autodd-vscode.minimize` (the editor passes a Uri; tests may pass errMsg). */
export type MinimizeTarget = vscode.Uri | string | { uri: vscode.Uri | string; errMsg?: string } | undefined;

const EDIT_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('edit'),
  tooltip: 'Edit this message before using it',
};

export class Minimizer implements vscode.Disposable {
  private readonly runs = new Map<string, Run>();
  private probes = 0;
  private readonly snapshots = new OriginalSnapshots();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** `autodd/finished` by runId (it may come before the code waiting for it). */
  private readonly finished = new Map<string, FinishedParams>();
  private readonly finishedWaiters = new Map<string, (params: FinishedParams) => void>();
  /** Whether an error message of an earlier run may still be on screen. */
  private errorShown = false;

  constructor(
    private readonly server: AutoddServer,
    private readonly results: RunResults,
  ) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this.snapshots),
      server.onFinished((params) => {
        const waiter = this.finishedWaiters.get(params.runId);
        if (waiter) waiter(params);
        else {
          this.finished.set(params.runId, params);
          while (this.finished.size > 20) this.finished.delete(this.finished.keys().next().value as string);
        }
      }),
    );
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  /** Whether a run or probe of this extension is in flight (its end may still be announced). */
  get busy(): boolean {
    return this.runs.size > 0 || this.probes > 0;
  }

  /** The whole flow; resolves with the run's end (undefined if the user stopped early). */
  async minimize(target?: MinimizeTarget): Promise<MinimizeResult | undefined> {
    const { uri, errMsg: givenErrMsg } = resolveTarget(target);
    if (!uri) {
      void vscode.window.showErrorMessage('AutoDD: open a Python file to minimize.');
      return undefined;
    }
    if (uri.scheme !== 'file') {
      void vscode.window.showErrorMessage('AutoDD: only files on disk can be minimized.');
      return undefined;
    }
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== 'python') {
      void vscode.window.showErrorMessage(`AutoDD: ${basename(uri)} is not a Python file.`);
      return undefined;
    }
    if (this.runs.has(uri.toString())) {
      const choice = await vscode.window.showInformationMessage(
        `AutoDD is already minimizing ${basename(uri)}.`,
        'Cancel it',
      );
      if (choice) await this.cancel(uri);
      return undefined;
    }
    // Candidates and the first run read the program from disk.
    if (!(await saveFirst(document))) return undefined;
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    this.clearPreviousError(uri);

    let errMsg = givenErrMsg;
    if (!errMsg) {
      const suggested = await this.suggest(client, uri, client.code2ProtocolConverter.asUri(uri));
      if (!suggested) return undefined;
      errMsg = await pickErrMsg(suggested);
      if (!errMsg) return undefined;
    }
    return this.run(client, document, errMsg);
  }

  /** "Run again" on a finished run: the same file, failure and current settings. */
  async runAgain(record: RunRecord): Promise<MinimizeResult | undefined> {
    const document = await vscode.workspace.openTextDocument(record.source);
    if (this.runs.has(record.source.toString())) {
      void vscode.window.showInformationMessage(`AutoDD is already minimizing ${basename(record.source)}.`);
      return undefined;
    }
    if (!(await saveFirst(document))) return undefined;
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    this.clearPreviousError(record.source);
    return this.run(client, document, record.errMsg);
  }

  /** A new run hides the previous run's error: its toast and its code lens. */
  private clearPreviousError(source: vscode.Uri): void {
    this.results.forgetFailure(source);
    if (this.errorShown) {
      this.errorShown = false;
      // The API gives no handle on a message; hide the toasts (they stay in the
      // notification center).
      void vscode.commands.executeCommand('notifications.hideToasts');
    }
  }

  private async run(client: LanguageClient, document: vscode.TextDocument, errMsg: string): Promise<MinimizeResult> {
    const uri = document.uri;
    const key = uri.toString();
    const settings = await readSettings(uri);
    const run: Run = { source: uri, lspUri: client.code2ProtocolConverter.asUri(uri), cancelRequested: false };
    this.runs.set(key, run);
    const original = this.snapshots.add(uri, document.getText());
    const token = `autodd-vscode-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const args: MinimizeArgs = {
      uri: run.lspUri,
      errMsg,
      interpreter: settings.interpreter,
      ...readRunOptions(uri),
      // Our own token: the server's $/progress goes there and is not rendered a
      // second time by vscode-languageclient; this notification renders autodd/progress.
      progressToken: token,
    };
    logger().info(`Minimizing ${uri.fsPath} keeping ${JSON.stringify(errMsg)} (${JSON.stringify(args)})`);

    let result: MinimizeResult;
    try {
      result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `AutoDD: minimizing ${basename(uri)}`,
          cancellable: true,
        },
        (progress, cancellation) => this.follow(client, run, args, progress, cancellation),
      );
    } catch (err) {
      result = { status: 'failed', message: errorText(err) };
    } finally {
      this.runs.delete(key);
    }
    logger().info(`Minimization of ${uri.fsPath} ended: ${JSON.stringify(result)}`);

    const output = result.outputUri ? vscode.Uri.parse(result.outputUri) : undefined;
    if (output) await settleDocument(output);
    this.results.record({ source: uri, output, original, errMsg, result });
    this.report(result, original, output);
    return result;
  }

  /** Starts the run and follows it to its `autodd/finished`. */
  private async follow(
    client: LanguageClient,
    run: Run,
    args: MinimizeArgs,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    cancellation: vscode.CancellationToken,
  ): Promise<MinimizeResult> {
    let total = 0;
    const sub = this.server.onProgress((p) => {
      if (run.cancelRequested || p.uri !== run.lspUri || (run.runId && p.runId !== run.runId)) return;
      const step = progressIncrement(total, p.percentage);
      total = step.total;
      progress.report({ message: describeProgress(p), increment: step.increment });
    });
    const onCancel = cancellation.onCancellationRequested(() => {
      if (run.cancelRequested) return;
      run.cancelRequested = true;
      progress.report({ message: 'cancelling… (keeping the best result so far)' });
      void this.sendCancel(client, run.runId ? { runId: run.runId } : { uri: run.lspUri });
    });
    try {
      progress.report({ message: 'checking that the failure reproduces…' });
      const reply = normalizeReply(
        await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommand.minimize, arguments: [args] }),
      );
      if (reply.status !== 'started') {
        // The server shows its verdict too ("AutoDD: <message>"); ours has the buttons.
        this.server.expectEcho(`AutoDD: ${reply.message}`);
        return { status: 'failed', message: reply.message };
      }
      run.runId = reply.runId;
      run.outputUri = vscode.Uri.parse(reply.outputUri);
      if (run.cancelRequested) void this.sendCancel(client, { runId: reply.runId });
      const end = await this.waitFinished(reply.runId);
      this.server.expectEcho(end.message);
      return {
        status: end.status,
        message: end.message,
        runId: end.runId,
        outputUri: end.outputUri ?? reply.outputUri,
        original: end.original,
        final: end.final,
      };
    } finally {
      sub.dispose();
      onCancel.dispose();
    }
  }

  private waitFinished(runId: string): Promise<FinishedParams> {
    const early = this.finished.get(runId);
    if (early) {
      this.finished.delete(runId);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => {
      this.finishedWaiters.set(runId, (params) => {
        this.finishedWaiters.delete(runId);
        resolve(params);
      });
      // The server is gone: no autodd/finished will come.
      const stop = this.server.onDidChangeState((state) => {
        if (state !== 'stopped' || !this.finishedWaiters.has(runId)) return;
        stop.dispose();
        this.finishedWaiters.get(runId)?.({
          runId,
          uri: '',
          status: 'failed',
          message: 'the language server stopped during the run (see "AutoDD: Show logs")',
        });
      });
    });
  }

  /** Runs the program once (server side) for failure-signature suggestions. */
  private async suggest(
    client: LanguageClient,
    uri: vscode.Uri,
    lspUri: string,
  ): Promise<SuggestErrMsgResult | undefined> {
    this.probes++;
    try {
      const raw = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `AutoDD: running ${basename(uri)} to see how it fails…`,
          cancellable: true,
        },
        (_progress, cancellation) =>
          client.sendRequest(
            ExecuteCommandRequest.type,
            { command: ServerCommand.suggestErrMsg, arguments: [{ uri: lspUri }] },
            cancellation,
          ),
      );
      const error = (raw as { error?: unknown } | null)?.error;
      if (typeof error === 'string' && error) {
        logger().error(`autodd.suggestErrMsg: ${error}`);
        // the server shows the same line to every client: once is enough
        this.server.expectEcho(`AutoDD: ${error}`);
        this.showError(`AutoDD: ${error}`);
        return undefined;
      }
      const result = normalizeSuggestions(raw);
      logger().info(
        `${uri.fsPath} exited with ${result.returncode}; suggestions ${JSON.stringify(result.suggestions)}; ` +
          `output tail:\n${result.outputTail}`,
      );
      return result;
    } catch (err) {
      if (isCancellation(err)) return undefined;
      logger().error(`autodd.suggestErrMsg failed: ${errorText(err)}`);
      this.showError(`AutoDD: could not run ${basename(uri)}: ${errorText(err)}`);
      return undefined;
    } finally {
      this.probes--;
    }
  }

  /** Cancels the run for `target` (a source or its result), or every run. */
  async cancel(target?: vscode.Uri): Promise<void> {
    const client = this.server.running;
    if (!client) {
      void vscode.window.showInformationMessage('AutoDD: no minimization is running.');
      return;
    }
    const uri = target ?? vscode.window.activeTextEditor?.document.uri;
    const run = uri
      ? [...this.runs.values()].find(
          (r) => r.source.toString() === uri.toString() || r.outputUri?.toString() === uri.toString(),
        )
      : undefined;
    if (run) {
      run.cancelRequested = true;
      await this.sendCancel(client, run.runId ? { runId: run.runId } : { uri: run.lspUri });
    } else {
      // Not one of ours (or no editor): cancel everything the server runs.
      await this.sendCancel(client, {});
    }
  }

  private async sendCancel(client: LanguageClient, which: { runId?: string; uri?: string }): Promise<void> {
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommand.cancel, arguments: [which] });
      logger().info(`Cancel sent for ${JSON.stringify(which)}`);
    } catch (err) {
      logger().error(`autodd.cancel failed: ${errorText(err)}`);
    }
  }

  /** "Open diff": the original (as it was when the run started) beside the result. */
  async openDiff(record: RunRecord): Promise<void> {
    if (!record.output) return;
    await vscode.commands.executeCommand(
      'vscode.diff',
      record.original,
      record.output,
      `${basename(record.source)} ↔ ${basename(record.output)} (AutoDD)`,
    );
  }

  /**
   * "Copy bug report" / "Write regression test": the server writes the file beside
   * the source (`autodd.writeReport` / `autodd.writeTest`); the report is then copied
   * to the clipboard, the test opened. A refusal is shown by the server itself.
   */
  async writeArtifact(record: RunRecord, what: 'report' | 'test'): Promise<string | undefined> {
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    const command = what === 'report' ? ServerCommand.writeReport : ServerCommand.writeTest;
    let answer: ArtifactResult;
    try {
      answer = (await client.sendRequest(ExecuteCommandRequest.type, {
        command,
        arguments: [{ uri: client.code2ProtocolConverter.asUri(record.source) }],
      })) as ArtifactResult;
    } catch (err) {
      this.showError(`AutoDD: ${command} failed: ${errorText(err)}`);
      return undefined;
    }
    if (!answer || !answer.ok) {
      logger().warn(`${command}: ${answer ? answer.message : 'no answer'}`);
      return undefined;
    }
    const file = vscode.Uri.parse(answer.uri);
    if (what === 'test') {
      await vscode.window.showTextDocument(file, { preview: false });
      return answer.path;
    }
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    await vscode.env.clipboard.writeText(text);
    void vscode.window
      .showInformationMessage(`AutoDD: bug report copied to the clipboard (also in ${basename(file)}).`, 'Open')
      .then((choice) => choice && vscode.window.showTextDocument(file, { preview: false }));
    return answer.path;
  }

  private showError(text: string, ...buttons: string[]): Thenable<string | undefined> {
    this.errorShown = true;
    return vscode.window.showErrorMessage(text, ...buttons);
  }

  private report(result: MinimizeResult, original: vscode.Uri, output: vscode.Uri | undefined): void {
    const message = formatResultMessage(result);
    const buttons: string[] = [];
    if (message.canDiff && output) buttons.push('Open diff');
    if (message.severity === 'error') buttons.push('Show logs');
    const shown =
      message.severity === 'info'
        ? vscode.window.showInformationMessage(message.text, ...buttons)
        : message.severity === 'warning'
          ? vscode.window.showWarningMessage(message.text, ...buttons)
          : this.showError(message.text, ...buttons);
    void shown.then((choice) => {
      if (choice === 'Open diff' && output) {
        void vscode.commands.executeCommand(
          'vscode.diff',
          original,
          output,
          `${basename(original)} ↔ ${basename(output)} (AutoDD)`,
        );
      } else if (choice === 'Show logs') {
        logger().show();
      }
    });
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
  }
}

async function saveFirst(document: vscode.TextDocument): Promise<boolean> {
  if (document.isDirty && !(await document.save())) {
    void vscode.window.showErrorMessage(`AutoDD: could not save ${basename(document.uri)} before running it.`);
    return false;
  }
  return true;
}

/** Quick pick of the suggestions plus "Type a message…"; an edit button opens an input box. */
async function pickErrMsg(suggested: SuggestErrMsgResult): Promise<string | undefined> {
  const items = suggestionItems(suggested.suggestions);
  const custom = items[items.length - 1];
  if (items.length === 1) return askErrMsg(custom.value);

  type Item = vscode.QuickPickItem & { item: SuggestionItem };
  const quickPick = vscode.window.createQuickPick<Item>();
  quickPick.title = 'AutoDD: the failure to preserve';
  quickPick.placeholder = suggestionPlaceholder(suggested.returncode, items.length - 1);
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  quickPick.items = items.map((item) => ({
    label: item.label,
    description: item.description,
    buttons: item.kind === 'suggestion' ? [EDIT_BUTTON] : [],
    alwaysShow: item.kind === 'custom',
    item,
  }));
  const choice = await new Promise<{ item: SuggestionItem; edit: boolean } | undefined>((resolve) => {
    quickPick.onDidAccept(() => {
      const selected = quickPick.selectedItems[0] ?? quickPick.activeItems[0];
      resolve(selected ? { item: selected.item, edit: selected.item.kind === 'custom' } : undefined);
      quickPick.hide();
    });
    quickPick.onDidTriggerItemButton((e) => {
      resolve({ item: e.item.item, edit: true });
      quickPick.hide();
    });
    quickPick.onDidHide(() => resolve(undefined));
    quickPick.show();
  });
  quickPick.dispose();
  if (!choice) return undefined;
  return choice.edit ? askErrMsg(choice.item.value) : choice.item.value;
}

function askErrMsg(initial: string): Promise<string | undefined> {
  return Promise.resolve(
    vscode.window.showInputBox({
      title: 'AutoDD: the failure to preserve',
      prompt: 'Text that the output of the failing program must contain (e.g. the exception line)',
      value: initial,
      ignoreFocusOut: true,
      validateInput: validateErrMsg,
    }),
  ).then((text) => (text === undefined ? undefined : text.trim()));
}

/**
 * Makes the result document match what the server wrote to disk: its buffer is
 * dirty after the streamed edits, and saving it would raise a "file is newer"
 * conflict, so revert it (the disk has the final text).
 */
async function settleDocument(uri: vscode.Uri): Promise<void> {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (!document || !document.isDirty) return;
  // The server writes the file before answering; allow a moment for slow disks.
  for (let i = 0; i < 20; i++) {
    try {
      const disk = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      if (disk === document.getText()) break;
    } catch {
      // not there yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const previous = vscode.window.activeTextEditor;
  const shown = vscode.window.visibleTextEditors.find((e) => e.document === document);
  try {
    await vscode.window.showTextDocument(document, {
      viewColumn: shown?.viewColumn,
      preserveFocus: false,
      preview: false,
    });
    await vscode.commands.executeCommand('workbench.action.files.revert');
  } catch (err) {
    logger().warn(`Could not revert ${uri.fsPath}: ${errorText(err)}`);
  }
  if (previous && previous.document !== document) {
    await vscode.window.showTextDocument(previous.document, {
      viewColumn: previous.viewColumn,
      preserveFocus: false,
      preview: false,
    });
  }
}

function resolveTarget(target: MinimizeTarget): { uri?: vscode.Uri; errMsg?: string } {
  if (target instanceof vscode.Uri) return { uri: target };
  if (typeof target === 'string') return { uri: vscode.Uri.parse(target) };
  if (target && typeof target === 'object' && 'uri' in target) {
    const uri = typeof target.uri === 'string' ? vscode.Uri.parse(target.uri) : target.uri;
    return { uri, errMsg: target.errMsg };
  }
  return { uri: vscode.window.activeTextEditor?.document.uri };
}

function normalizeReply(raw: unknown): MinimizeReply {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (r.status === 'started' && typeof r.runId === 'string' && typeof r.outputUri === 'string') {
    return { status: 'started', runId: r.runId, uri: String(r.uri ?? ''), outputUri: r.outputUri };
  }
  const message = typeof r.message === 'string' && r.message ? r.message : `unexpected answer ${JSON.stringify(raw)}`;
  return { status: 'failed', message };
}

function normalizeSuggestions(raw: unknown): SuggestErrMsgResult {
  const r = (raw ?? {}) as Partial<SuggestErrMsgResult>;
  return {
    suggestions: Array.isArray(r.suggestions) ? r.suggestions.filter((s) => typeof s === 'string') : [],
    outputTail: typeof r.outputTail === 'string' ? r.outputTail : '',
    returncode: typeof r.returncode === 'number' ? r.returncode : null,
  };
}

function isCancellation(err: unknown): boolean {
  return (
    err instanceof vscode.CancellationError ||
    (typeof err === 'object' && err !== null && (err as { code?: number }).code === -32800)
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function basename(uri: vscode.Uri): string {
  return uri.path.split('/').pop() ?? uri.path;
}
