// How the end of a run is shown, and a start the server refused: one line in a
// message with the buttons that fit (Open diff for a result; Show output and Run
// again… for a failure, whose output and traceback go to the "AutoDD" log), a
// refusal that names a place in the file taken there. The words are pure
// (format.ts formatResultMessage, editorWording, problemLocation).

import * as vscode from 'vscode';
import { editorWording, formatResultMessage, problemLocation } from './format';
import { logger } from './log';
import { ClientCommand, MinimizeResult } from './protocol';

export class RunMessages {
  /** Whether an error message of an earlier run may still be on screen. */
  private errorShown = false;

  /** Hides an earlier run's error (a new run starts). */
  hidePreviousError(): void {
    if (this.errorShown) {
      this.errorShown = false;
      // The API gives no handle on a message; hide the toasts (they stay in the
      // notification center).
      void vscode.commands.executeCommand('notifications.hideToasts');
    }
  }

  showError(text: string, ...buttons: string[]): Thenable<string | undefined> {
    this.errorShown = true;
    return vscode.window.showErrorMessage(text, ...buttons);
  }

  /**
   * A refusal before anything ran (a marker error, a bad setting): its line, and
   * where the server names a place in the file ("line 3, column 1"), the cursor
   * goes there and the message offers to go back to it.
   */
  showRefusal(message: string, source: vscode.Uri): void {
    const where = problemLocation(message);
    const text = `AutoDD: ${editorWording(message)}`;
    if (!where) {
      void this.showError(text, 'Show output').then((choice) => choice && logger().show());
      return;
    }
    const reveal = async () => {
      const position = new vscode.Position(where.line, where.character);
      await vscode.window.showTextDocument(source, { selection: new vscode.Range(position, position), preview: false });
    };
    void reveal();
    void this.showError(text, `Go to line ${where.line + 1}`).then((choice) => {
      if (choice) void reveal();
    });
  }

  report(result: MinimizeResult, source: vscode.Uri, original: vscode.Uri, output: vscode.Uri | undefined): void {
    if (result.status === 'failed' && result.refused) {
      this.showRefusal(result.message, source);
      return;
    }
    const message = formatResultMessage(result);
    // the traceback and the program's output go to the output channel, not into the toast
    if (message.details) logger().error(`${message.text}\n${message.details}`);
    const actions = message.actions.filter((a) => a !== 'Open diff' || output);
    const shown =
      message.severity === 'info'
        ? vscode.window.showInformationMessage(message.text, ...actions)
        : message.severity === 'warning'
          ? vscode.window.showWarningMessage(message.text, ...actions)
          : this.showError(message.text, ...actions);
    void shown.then((choice) => {
      if (choice === 'Open diff' && output) {
        void showDiff(original, output);
      } else if (choice === 'Show output') {
        logger().show();
      } else if (choice === 'Run again…') {
        void vscode.commands.executeCommand(ClientCommand.minimize, source);
      }
    });
  }
}

/** The snapshot of the original (named as its source) beside the result. */
export async function showDiff(original: vscode.Uri, output: vscode.Uri): Promise<void> {
  await vscode.commands.executeCommand('vscode.diff', original, output, `${basename(original)} ↔ ${basename(output)} (AutoDD)`);
}

export function basename(uri: vscode.Uri): string {
  return uri.path.split('/').pop() ?? uri.path;
}
