// "Minimize this failure": pick the failure signature, run `autodd.minimize`
// with a client-created progress token, show a cancellable notification, then
// settle the streamed result document and report the size reduction.

import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import {
  besideOutputPath,
  describeProgress,
  formatResultMessage,
  progressIncrement,
  SuggestionItem,
  suggestionItems,
  suggestionPlaceholder,
  validateErrMsg,
} from './format';
import { logger } from './log';
import { MinimizeArgs, MinimizeResult, ServerCommand, SuggestErrMsgResult } from './protocol';
import { AutoddServer, readSettings } from './server';

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
  private readonly snapshots = new OriginalSnapshots();
  private readonly registration: vscode.Disposable;

  constructor(private readonly server: AutoddServer) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(
      ORIGINAL_SCHEME,
      this.snapshots,
    );
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  /** The whole flow; resolves with the server's answer (undefined if the user stopped early). */
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
    const key = uri.toString();
    if (this.runs.has(key)) {
      const choice = await vscode.window.showInformationMessage(
        `AutoDD is already minimizing ${basename(uri)}.`,
        'Cancel it',
      );
      if (choice) await this.cancel(uri);
      return undefined;
    }
    // Candidates and the first run read the program from disk.
    if (document.isDirty && !(await document.save())) {
      void vscode.window.showErrorMessage(`AutoDD: could not save ${basename(uri)} before running it.`);
      return undefined;
    }
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    const lspUri = client.code2ProtocolConverter.asUri(uri);

    let errMsg = givenErrMsg;
    if (!errMsg) {
      const suggested = await this.suggest(client, uri, lspUri);
      if (!suggested) return undefined;
      errMsg = await pickErrMsg(suggested);
      if (!errMsg) return undefined;
    }

    const settings = await readSettings(uri);
    const run: Run = {
      source: uri,
      lspUri,
      outputUri: settings.output === 'beside' ? uri.with({ path: besideOutputPath(uri.path) }) : uri,
      cancelRequested: false,
    };
    this.runs.set(key, run);
    const original = this.snapshots.add(uri, document.getText());
    const token = `autodd-vscode-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const args: MinimizeArgs = {
      uri: lspUri,
      errMsg,
      backend: settings.backend,
      timeout: settings.timeout,
      jobs: settings.jobs,
      interpreter: settings.interpreter,
      output: settings.output,
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
        (progress, cancellation) =>
          this.server.quietly(() => this.runWithProgress(client, run, args, token, progress, cancellation)),
      );
    } catch (err) {
      result = { status: 'failed', message: errorText(err) };
    } finally {
      this.runs.delete(key);
    }
    logger().info(`Minimization of ${uri.fsPath} ended: ${JSON.stringify(result)}`);

    const output = result.outputUri ? vscode.Uri.parse(result.outputUri) : undefined;
    if (output) await settleDocument(output);
    this.report(result, original, output);
    return result;
  }

  private async runWithProgress(
    client: LanguageClient,
    run: Run,
    args: MinimizeArgs,
    token: string,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    cancellation: vscode.CancellationToken,
  ): Promise<MinimizeResult> {
    let total = 0;
    // Register for the token before the request, so no early report is lost.
    const sub = client.onProgress(
      WorkDoneProgress.type,
      token,
      (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
        if (value.kind === 'end') {
          if (value.message) progress.report({ message: value.message });
          return;
        }
        if (run.cancelRequested) return;
        const step = progressIncrement(total, value.percentage);
        total = step.total;
        progress.report({ message: describeProgress(value.message), increment: step.increment });
      },
    );
    const onCancel = cancellation.onCancellationRequested(() => {
      if (run.cancelRequested) return;
      run.cancelRequested = true;
      progress.report({ message: 'cancelling… (keeping the best result so far)' });
      void this.sendCancel(client, run.lspUri);
    });
    try {
      progress.report({ message: 'checking that the failure reproduces…' });
      const raw = await client.sendRequest(ExecuteCommandRequest.type, {
        command: ServerCommand.minimize,
        arguments: [args],
      });
      return normalizeResult(raw);
    } finally {
      sub.dispose();
      onCancel.dispose();
    }
  }

  /** Runs the program once (server side) for failure-signature suggestions. */
  private async suggest(
    client: LanguageClient,
    uri: vscode.Uri,
    lspUri: string,
  ): Promise<SuggestErrMsgResult | undefined> {
    try {
      const raw = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `AutoDD: running ${basename(uri)} to see how it fails…`,
          cancellable: true,
        },
        (_progress, cancellation) =>
          this.server.quietly(() =>
            client.sendRequest(
              ExecuteCommandRequest.type,
              { command: ServerCommand.suggestErrMsg, arguments: [{ uri: lspUri }] },
              cancellation,
            ),
          ),
      );
      const error = (raw as { error?: unknown } | null)?.error;
      if (typeof error === 'string' && error) {
        logger().error(`autodd.suggestErrMsg: ${error}`);
        void vscode.window.showErrorMessage(`AutoDD: ${error}`);
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
      void vscode.window.showErrorMessage(`AutoDD: could not run ${basename(uri)}: ${errorText(err)}`);
      return undefined;
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
      await this.sendCancel(client, run.lspUri);
    } else {
      // Not one of ours (or no editor): cancel everything the server runs.
      await this.sendCancel(client, undefined);
    }
  }

  private async sendCancel(client: LanguageClient, lspUri: string | undefined): Promise<void> {
    try {
      await client.sendRequest(ExecuteCommandRequest.type, {
        command: ServerCommand.cancel,
        arguments: [lspUri ? { uri: lspUri } : {}],
      });
      logger().info(`Cancel sent for ${lspUri ?? 'all runs'}`);
    } catch (err) {
      logger().error(`autodd.cancel failed: ${errorText(err)}`);
    }
  }

  private report(result: MinimizeResult, original: vscode.Uri, output: vscode.Uri | undefined): void {
    const message = formatResultMessage(result);
    const buttons: string[] = [];
    if (message.canDiff && output) buttons.push('Open diff');
    if (message.severity === 'error') buttons.push('Show logs');
    const show =
      message.severity === 'info'
        ? vscode.window.showInformationMessage
        : message.severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showErrorMessage;
    void show(message.text, ...buttons).then((choice) => {
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
    this.registration.dispose();
  }
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

function normalizeResult(raw: unknown): MinimizeResult {
  if (!raw || typeof raw !== 'object') {
    return { status: 'failed', message: 'the server returned no result' };
  }
  const r = raw as Partial<MinimizeResult>;
  const status = r.status === 'done' || r.status === 'cancelled' ? r.status : 'failed';
  return { ...r, status, message: typeof r.message === 'string' ? r.message : '' } as MinimizeResult;
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
