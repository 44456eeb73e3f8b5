// Settling the result document at the end of a run. Its buffer is dirty after the
// streamed edits while the server has written the same final text to disk; saving
// it would raise a "file is newer" conflict, so the buffer is reverted to the
// disk. Revert works on the active editor only: the document is shown for a
// moment and the editor that had focus gets it back.

import * as vscode from 'vscode';
import { errorText } from './format';
import { logger } from './log';

/** Makes the open result document `uri` match what the server wrote to disk. */
export async function settleDocument(uri: vscode.Uri): Promise<void> {
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
