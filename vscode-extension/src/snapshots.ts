// Snapshots of the original programs, for "Open diff": the text of a source as a
// run started, served read-only under the `autodd-original:` scheme, so the diff
// shows what was minimized even after an in-place run or later edits. The last
// 20 are kept (a window's worth of runs; older diffs show an empty original).

import * as vscode from 'vscode';

export const ORIGINAL_SCHEME = 'autodd-original';

const KEPT = 20;

export class OriginalSnapshots implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private counter = 0;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this);

  /** Keeps `text` as the original of `source`; returns the uri that shows it. */
  add(source: vscode.Uri, text: string): vscode.Uri {
    const id = String(++this.counter);
    this.texts.set(id, text);
    while (this.texts.size > KEPT) this.texts.delete(this.texts.keys().next().value as string);
    return source.with({ scheme: ORIGINAL_SCHEME, query: id });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
  }
}
