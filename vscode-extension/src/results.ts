// Finished runs stay reachable after their message has gone: code lenses on the
// first line of the reproducer (the `<stem>.min.py`, or the source after an
// in-place run) offer Open diff, Copy bug report, Write regression test and Run
// again; a failed run leaves one lens on its source (the error and Run again)
// until the next run of that file clears it. One record per source file: the
// last run. The records live as long as the window (the server, too, keeps only
// the last finished run of each document for writeReport / writeTest).

import * as vscode from 'vscode';
import { editorWording, NO_FINISHED_RUN, resultLensTitle } from './format';
import { logger } from './log';
import { ClientCommand, FailureArguments, MinimizeResult } from './protocol';

export interface RunRecord {
  source: vscode.Uri;
  /** The reproducer, when the run produced one. */
  output?: vscode.Uri;
  /** Snapshot of the original as the run started (for "Open diff"). */
  original: vscode.Uri;
  /** The failure the run kept (the `autodd.minimize` arguments: errMsg, crash…). */
  failure: FailureArguments;
  /** The pytest test reduced (a node id in the file), when the run reduced one. */
  test?: string;
  /** The program arguments the run was given ("Minimize with arguments…"), if not the setting's. */
  args?: string[];
  result: MinimizeResult;
}

export class RunResults implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly bySource = new Map<string, RunRecord>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly registration = vscode.languages.registerCodeLensProvider(
    { scheme: 'file', language: 'python' },
    this,
  );

  record(record: RunRecord): void {
    this.bySource.set(record.source.toString(), record);
    this.changed.fire();
  }

  /** Drops the record of a failed run of `source` (a new run of it starts). */
  forgetFailure(source: vscode.Uri): void {
    const record = this.bySource.get(source.toString());
    if (record && record.result.status === 'failed') {
      this.bySource.delete(source.toString());
      this.changed.fire();
    }
  }

  /** The record whose source or reproducer is `uri`. */
  find(uri: vscode.Uri | string | undefined): RunRecord | undefined {
    const key = typeof uri === 'string' ? vscode.Uri.parse(uri).toString() : uri?.toString();
    if (!key) return undefined;
    const direct = this.bySource.get(key);
    if (direct) return direct;
    return [...this.bySource.values()].find((r) => r.output?.toString() === key);
  }

  /** The lenses' titles on a document (for the tests and the logs). */
  titles(uri: vscode.Uri): string[] {
    return this.lenses(uri).map((l) => l.command?.title ?? '');
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return this.lenses(document.uri);
  }

  private lenses(uri: vscode.Uri): vscode.CodeLens[] {
    const key = uri.toString();
    const top = new vscode.Range(0, 0, 0, 0);
    const lens = (title: string, command: string, tooltip?: string) =>
      new vscode.CodeLens(top, { title, command, tooltip, arguments: [key] });
    for (const record of this.bySource.values()) {
      const { status, message } = record.result;
      if (status === 'failed') {
        if (record.source.toString() !== key) continue;
        return [
          lens(`${resultLensTitle(record.result)}: ${oneLine(editorWording(message))}`, ClientCommand.showLogs, message),
          lens('Run again', ClientCommand.runAgain),
        ];
      }
      if (record.output?.toString() !== key) continue;
      const out = [lens(resultLensTitle(record.result), ClientCommand.openDiff, message), lens('Open diff', ClientCommand.openDiff)];
      // writeReport / writeTest describe the last *finished* run only
      if (status === 'done') {
        out.push(lens('Copy bug report', ClientCommand.copyReport), lens('Write regression test', ClientCommand.writeTest));
      }
      out.push(lens('Run again', ClientCommand.runAgain));
      return out;
    }
    return [];
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

function oneLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Resolves the argument of a lens command (a uri string) or the active editor to its run. */
export function recordFor(results: RunResults, arg: unknown): RunRecord | undefined {
  const uri = typeof arg === 'string' || arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const record = results.find(uri);
  if (!record) {
    logger().warn(`No finished AutoDD run for ${String(uri)}`);
    void vscode.window.showInformationMessage(NO_FINISHED_RUN);
  }
  return record;
}
