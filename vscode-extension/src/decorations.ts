// Subtle marking of frozen regions, fed by the server's `autodd/frozenRegions`.

import * as vscode from 'vscode';

export class FrozenRegionDecorations implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('autodd.frozenRegionBackground'),
    overviewRulerColor: new vscode.ThemeColor('autodd.frozenRegionRuler'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    borderColor: new vscode.ThemeColor('autodd.frozenRegionRuler'),
    borderStyle: 'solid',
    borderWidth: '0 0 0 2px',
  });
  private readonly regions = new Map<string, vscode.Range[]>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.subscriptions.push(
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.apply(e))),
      vscode.workspace.onDidCloseTextDocument((doc) => this.regions.delete(doc.uri.toString())),
    );
  }

  /** Replaces the frozen regions of one document and redraws its editors. */
  set(uri: string, ranges: vscode.Range[]): void {
    const key = vscode.Uri.parse(uri).toString();
    this.regions.set(key, ranges);
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === key) this.apply(editor);
    }
  }

  get(uri: vscode.Uri): readonly vscode.Range[] {
    return this.regions.get(uri.toString()) ?? [];
  }

  clear(): void {
    this.regions.clear();
    for (const editor of vscode.window.visibleTextEditors) editor.setDecorations(this.type, []);
  }

  private apply(editor: vscode.TextEditor): void {
    const ranges = this.regions.get(editor.document.uri.toString()) ?? [];
    editor.setDecorations(
      this.type,
      ranges.map((range) => ({ range, hoverMessage: 'Frozen: AutoDD keeps this code while minimizing' })),
    );
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.type.dispose();
  }
}
