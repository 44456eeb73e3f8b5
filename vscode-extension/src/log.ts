// The "AutoDD" log output channel, shared by the extension and the language client.

import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export function logger(): vscode.LogOutputChannel {
  if (!channel) channel = vscode.window.createOutputChannel('AutoDD', { log: true });
  return channel;
}

export function disposeLogger(): void {
  channel?.dispose();
  channel = undefined;
}
