// The status bar item: the language server's state (starting, ready, running a
// reduction with its size, failed) and its interpreter; a click opens a small menu
// (show the output, choose the interpreter, restart the server, cancel a run).
// The text is pure (format.ts statusBarText); this module only follows the events.

import * as vscode from 'vscode';
import { statusBarText, ServerStatus } from './format';
import { ClientCommand, ProgressParams } from './protocol';
import { AutoddServer } from './server';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('autodd.status', vscode.StatusBarAlignment.Left, 0);
  /** The runs under way, by runId: the newest progress of each. */
  private readonly runs = new Map<string, ProgressParams>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly server: AutoddServer) {
    this.item.name = 'AutoDD';
    this.item.command = ClientCommand.statusMenu;
    this.subscriptions.push(
      this.item,
      server.onDidChangeStatus(() => this.render()),
      server.onProgress((p) => {
        this.runs.set(p.runId, p);
        this.render();
      }),
      server.onFinished((p) => {
        this.runs.delete(p.runId);
        this.render();
      }),
      server.onDidChangeState((state) => {
        if (state === 'stopped') this.runs.clear();
        this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  /** What the item shows now (for the tests). */
  get shown(): { text: string; tooltip: string } {
    return { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '' };
  }

  private current(): ServerStatus {
    const run = [...this.runs.values()].pop();
    if (run && this.server.status.state === 'ready') {
      return { state: 'running', file: run.uri.split('/').pop() ?? run.uri, size: run.size, original: run.original };
    }
    return this.server.status;
  }

  private render(): void {
    const status = this.current();
    const shown = statusBarText(status, this.server.lastInterpreter);
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.backgroundColor =
      status.state === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  /** The menu behind the item. */
  async menu(): Promise<void> {
    type Entry = vscode.QuickPickItem & { run: () => unknown };
    const entries: Entry[] = [
      { label: '$(output) Show the AutoDD output', run: () => vscode.commands.executeCommand(ClientCommand.showLogs) },
      {
        label: '$(settings-gear) Choose the interpreter…',
        description: this.server.lastInterpreter,
        detail: 'The autodd.interpreter setting (empty: the Python extension\'s environment, else python3)',
        run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'autodd.interpreter'),
      },
      { label: '$(debug-restart) Restart the server', run: () => vscode.commands.executeCommand(ClientCommand.restart) },
    ];
    if (this.runs.size) {
      entries.push({ label: '$(stop) Cancel minimization', run: () => vscode.commands.executeCommand(ClientCommand.cancel) });
    }
    const picked = await vscode.window.showQuickPick(entries, { title: this.shown.tooltip.split('\n')[0], placeHolder: 'AutoDD' });
    if (picked) await picked.run();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
