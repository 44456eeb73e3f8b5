// The "Minimize this failure" flow in the editor (`MinimizeFlow`; the server's
// `Minimizer` is the other end: it runs the reduction). Pick the failure signature
// (pick.ts: any kind the server offers), start `autodd.minimize` (it replies at once with a runId), render the
// run from the server's structured `autodd/progress` in a cancellable
// notification, and on `autodd/finished` settle the streamed result document
// (settle.ts), show the outcome (outcome.ts: the size reduction, or a failure's
// line with Show output / Run again…), and keep the run reachable through code
// lenses on the reproducer (results.ts): Open diff (against a snapshot of the
// original, snapshots.ts), Copy bug report, Write regression test, Run again.
// The server's answers are normalized first (replies.ts); what the command is given
// (a file, a notebook or its cell, the program's arguments) is resolved in target.ts.
// The trial run and the run get the same arguments and options. A trial run that lacked one of the program's imports is the interpreter's fault:
// its message comes with "Choose interpreter", not with the failure quick pick.

import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { failureSummary } from './choices';
import { describeProgress, errorText, NO_FINISHED_RUN, progressIncrement } from './format';
import { logger } from './log';
import { basename, RunMessages, showDiff } from './outcome';
import { pickFailure } from './pick';
import { chooseInterpreter } from './python';
import {
  ArtifactResult,
  EnvironmentProblem,
  FailureArguments,
  FinishedParams,
  MinimizeArgs,
  MinimizeResult,
  ServerCommand,
  SuggestErrMsgResult,
} from './protocol';
import { normalizeArtifact, normalizeReply, normalizeSuggestions, suggestionError } from './replies';
import { RunRecord, RunResults } from './results';
import { AutoddServer, readRunOptions, readSettings } from './server';
import { askProgramArgs, MinimizeTarget, resolveTarget, saved } from './target';
import { settleDocument } from './settle';
import { OriginalSnapshots } from './snapshots';

interface Run {
  source: vscode.Uri;
  lspUri: string;
  /** Known once the server has replied. */
  runId?: string;
  outputUri?: vscode.Uri;
  cancelRequested: boolean;
}

/** The runs this window started, from the command to the finished run's actions. */
export class MinimizeFlow implements vscode.Disposable {
  private readonly runs = new Map<string, Run>();
  private probes = 0;
  private readonly snapshots = new OriginalSnapshots();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** `autodd/finished` by runId (it may come before the code waiting for it). */
  private readonly finished = new Map<string, FinishedParams>();
  private readonly finishedWaiters = new Map<string, (params: FinishedParams) => void>();
  /** The messages of the runs' ends (outcome.ts). */
  private readonly messages = new RunMessages();

  constructor(
    private readonly server: AutoddServer,
    private readonly results: RunResults,
  ) {
    this.subscriptions.push(
      this.snapshots,
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

  /**
   * "Minimize with arguments…": asks for the program's arguments (one line, split as a
   * shell would; prefilled from `autodd.args`) unless `target` gives them, then the flow.
   */
  async minimizeWithArguments(target?: MinimizeTarget): Promise<MinimizeResult | undefined> {
    const resolved = resolveTarget(target);
    if (resolved.args || !resolved.uri) return this.minimize(target);
    const words = await askProgramArgs(resolved.uri);
    if (!words) return undefined;
    return this.minimize({ uri: resolved.uri, failure: resolved.failure, test: resolved.test, args: words });
  }

  /** The whole flow; resolves with the run's end (undefined if the user stopped early). */
  async minimize(target?: MinimizeTarget): Promise<MinimizeResult | undefined> {
    const { uri, failure: givenFailure, test, args } = resolveTarget(target);
    if (!uri) {
      void vscode.window.showErrorMessage('AutoDD: open a Python file or a notebook to minimize.');
      return undefined;
    }
    if (uri.scheme !== 'file') {
      void vscode.window.showErrorMessage('AutoDD: only files on disk can be minimized.');
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
    const text = await saved(uri);
    if (text === undefined) return undefined;
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    this.clearPreviousError(uri);

    let failure = givenFailure;
    if (!failure) {
      const suggested = await this.suggest(client, uri, client.code2ProtocolConverter.asUri(uri), test, args);
      if (!suggested) return undefined;
      if (suggested.environment) return this.environmentProblem(suggested.environment);
      failure = await pickFailure(suggested, basename(uri));
      if (!failure) return undefined;
    }
    return this.run(client, uri, text, failure, test, args);
  }

  /** The trial run lacked one of the program's imports: say so, with "Choose interpreter". */
  private environmentProblem(environment: EnvironmentProblem): MinimizeResult {
    logger().error(`The interpreter ${environment.python} lacks ${environment.module}: ${environment.message}`);
    void vscode.window
      .showErrorMessage(`AutoDD: ${environment.message}`, 'Choose interpreter')
      .then((choice) => choice && chooseInterpreter());
    return { status: 'failed', message: environment.message, refused: true, environment };
  }

  /** "Run again" on a finished run: the same file, failure and current settings. */
  async runAgain(record: RunRecord): Promise<MinimizeResult | undefined> {
    if (this.runs.has(record.source.toString())) {
      void vscode.window.showInformationMessage(`AutoDD is already minimizing ${basename(record.source)}.`);
      return undefined;
    }
    const text = await saved(record.source);
    if (text === undefined) return undefined;
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    this.clearPreviousError(record.source);
    return this.run(client, record.source, text, record.failure, record.test, record.args);
  }

  /** A new run hides the previous run's error: its toast and its code lens. */
  private clearPreviousError(source: vscode.Uri): void {
    this.results.forgetFailure(source);
    this.messages.hidePreviousError();
  }

  private async run(
    client: LanguageClient,
    uri: vscode.Uri,
    text: string,
    failure: FailureArguments,
    test?: string,
    programArgs?: string[],
  ): Promise<MinimizeResult> {
    const key = uri.toString();
    const settings = await readSettings(uri);
    const run: Run = { source: uri, lspUri: client.code2ProtocolConverter.asUri(uri), cancelRequested: false };
    this.runs.set(key, run);
    const original = this.snapshots.add(uri, text);
    const token = `autodd-vscode-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const args: MinimizeArgs = {
      ...failure,
      uri: run.lspUri,
      ...(test ? { test } : {}),
      interpreter: settings.interpreter,
      ...readRunOptions(uri),
      ...(programArgs ? { args: programArgs } : {}),
      // Our own token: the server's $/progress goes there and is not rendered a
      // second time by vscode-languageclient; this notification renders autodd/progress.
      progressToken: token,
    };
    logger().info(`Minimizing ${uri.fsPath} keeping ${failureSummary(failure)} (${JSON.stringify(args)})`);

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

    const streamed = result.outputUri ? vscode.Uri.parse(result.outputUri) : undefined;
    if (streamed) await settleDocument(streamed);
    // a failed run has no result of its own: the file there may be an earlier run's
    const output = result.status === 'failed' ? undefined : streamed;
    this.results.record({ source: uri, output, original, failure, test, args: programArgs, result });
    this.messages.report(result, uri, original, output);
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
        return { status: 'failed', message: reply.message, refused: true };
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
    test?: string,
    programArgs?: string[],
  ): Promise<SuggestErrMsgResult | undefined> {
    // the same run options as the run itself: the program's arguments, its input…
    const request = {
      uri: lspUri,
      ...(test ? { test } : {}),
      ...readRunOptions(uri),
      ...(programArgs ? { args: programArgs } : {}),
    };
    this.probes++;
    try {
      const raw: unknown = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `AutoDD: running ${basename(uri)} to see how it fails…`,
          cancellable: true,
        },
        (_progress, cancellation) =>
          client.sendRequest(
            ExecuteCommandRequest.type,
            { command: ServerCommand.suggestErrMsg, arguments: [request] },
            cancellation,
          ),
      );
      const error = suggestionError(raw);
      const result = normalizeSuggestions(raw);
      if (result.environment) {
        // shown by environmentProblem, with its button; the server's own line is logged only
        if (error) this.server.expectEcho(`AutoDD: ${error}`);
        return result;
      }
      if (error) {
        logger().error(`autodd.suggestErrMsg: ${error}`);
        // the server shows the same line to every client: once is enough
        this.server.expectEcho(`AutoDD: ${error}`);
        this.messages.showRefusal(error, uri);
        return undefined;
      }
      logger().info(
        `${uri.fsPath} exited with ${result.returncode}; suggestions ${JSON.stringify(result.suggestions)}; ` +
          `output tail:\n${result.outputTail}`,
      );
      return result;
    } catch (err) {
      if (isCancellation(err)) return undefined;
      logger().error(`autodd.suggestErrMsg failed: ${errorText(err)}`);
      this.messages.showError(`AutoDD: could not run ${basename(uri)}: ${errorText(err)}`);
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
    if (record.output) await showDiff(record.original, record.output);
    else void vscode.window.showInformationMessage(NO_FINISHED_RUN);
  }

  /**
   * "Copy bug report" / "Write regression test": the server writes the file beside
   * the source (`autodd.writeReport` / `autodd.writeTest`); the report is then copied
   * to the clipboard, the test opened. A refusal is shown by the server itself.
   */
  async writeArtifact(record: RunRecord, what: 'report' | 'test'): Promise<string | undefined> {
    // the server describes the last *finished* run only (a stopped or failed one does not count)
    if (record.result.status !== 'done') {
      void vscode.window.showInformationMessage(NO_FINISHED_RUN);
      return undefined;
    }
    const client = await this.server.ensureRunning();
    if (!client) return undefined;
    const command = what === 'report' ? ServerCommand.writeReport : ServerCommand.writeTest;
    let answer: ArtifactResult | undefined;
    try {
      answer = normalizeArtifact(
        await client.sendRequest(ExecuteCommandRequest.type, {
          command,
          arguments: [{ uri: client.code2ProtocolConverter.asUri(record.source) }],
        }),
      );
    } catch (err) {
      this.messages.showError(`AutoDD: ${command} failed: ${errorText(err)}`);
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

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}

function isCancellation(err: unknown): boolean {
  return (
    err instanceof vscode.CancellationError ||
    (typeof err === 'object' && err !== null && (err as { code?: number }).code === -32800)
  );
}
