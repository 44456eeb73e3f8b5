// What "Minimize this failure" is given, made into the program to run: a Python file
// or a Jupyter notebook (`.ipynb`, minimized from its file: the server reads it from
// disk; a cell's `vscode-notebook-cell:` uri, or a cell's editor being the active one,
// stands for its notebook; the toolbar's context names it), saved first so that the
// trial run and the candidates see what is on screen; and the program's own arguments
// that "Minimize with arguments…" asks for (split as a shell would: arguments.ts).

import * as vscode from 'vscode';
import { joinArgs, splitArgs } from './arguments';
import { messageFailure } from './choices';
import { basename } from './outcome';
import type { FailureArguments } from './protocol';
import { userValue } from './settings';

/**
 * Arguments accepted by `autodd-vscode.minimize` (the editor passes a Uri; tests
 * may pass the failure: `errMsg`, or `failure` with the server's arguments).
 */
export type MinimizeTarget =
  | vscode.Uri
  | string
  | {
      uri: vscode.Uri | string;
      errMsg?: string;
      failure?: FailureArguments;
      test?: string;
      /** The program's arguments (else the `autodd.args` setting's). */
      args?: string[];
    }
  /** What `notebook/toolbar` passes. */
  | { notebookEditor: { notebookUri: vscode.Uri } }
  | undefined;

function isNotebook(uri: vscode.Uri): boolean {
  return uri.path.toLowerCase().endsWith('.ipynb');
}

/**
 * The program's text once it is saved (candidates and the trial run read it from
 * disk; so does the server, for a notebook); undefined after saying why not.
 */
export async function saved(uri: vscode.Uri): Promise<string | undefined> {
  if (isNotebook(uri)) {
    const notebook = vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === uri.toString());
    if (notebook?.isDirty && !(await notebook.save())) {
      void vscode.window.showErrorMessage(`AutoDD: could not save ${basename(uri)} before running it.`);
      return undefined;
    }
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  }
  const document = await vscode.workspace.openTextDocument(uri);
  if (document.languageId !== 'python') {
    void vscode.window.showErrorMessage(`AutoDD: ${basename(uri)} is not a Python file.`);
    return undefined;
  }
  if (document.isDirty && !(await document.save())) {
    void vscode.window.showErrorMessage(`AutoDD: could not save ${basename(document.uri)} before running it.`);
    return undefined;
  }
  return document.getText();
}

/** The notebook a cell (`vscode-notebook-cell:`) belongs to; any other uri as it is. */
function notebookOf(uri: vscode.Uri): vscode.Uri {
  if (uri.scheme !== 'vscode-notebook-cell') return uri;
  const notebook = vscode.workspace.notebookDocuments.find((n) =>
    n.getCells().some((c) => c.document.uri.toString() === uri.toString()),
  );
  return notebook?.uri ?? uri.with({ scheme: 'file', fragment: '' });
}

export function resolveTarget(target: MinimizeTarget): {
  uri?: vscode.Uri;
  failure?: FailureArguments;
  test?: string;
  args?: string[];
} {
  if (target instanceof vscode.Uri) return { uri: notebookOf(target) };
  if (typeof target === 'string') return { uri: notebookOf(vscode.Uri.parse(target)) };
  if (target && typeof target === 'object' && 'uri' in target) {
    const uri = typeof target.uri === 'string' ? vscode.Uri.parse(target.uri) : target.uri;
    const failure = target.failure ?? (target.errMsg ? messageFailure(target.errMsg) : undefined);
    return { uri: notebookOf(uri), failure, test: target.test, args: target.args };
  }
  if (target && typeof target === 'object' && 'notebookEditor' in target && target.notebookEditor?.notebookUri) {
    return { uri: target.notebookEditor.notebookUri };
  }
  // in a notebook the active text editor is a cell's: the notebook is the program
  const editor = vscode.window.activeTextEditor?.document.uri;
  if (editor && editor.scheme !== 'vscode-notebook-cell') return { uri: editor };
  return { uri: vscode.window.activeNotebookEditor?.notebook.uri ?? (editor && notebookOf(editor)) };
}

/** The arguments typed in an input box prefilled from `autodd.args`; undefined if dismissed. */
export async function askProgramArgs(uri: vscode.Uri): Promise<string[] | undefined> {
  const setting = userValue(vscode.workspace.getConfiguration('autodd', uri).inspect('args'));
  const current = Array.isArray(setting) ? setting.filter((a): a is string => typeof a === 'string') : [];
  const line = await vscode.window.showInputBox({
    title: `AutoDD: the arguments of ${basename(uri)}`,
    prompt: "The program's own arguments (sys.argv[1:]) for every run, as on a shell's command line: quotes keep blanks",
    placeHolder: 'e.g. --size 3 --name "two words"',
    value: joinArgs(current),
    ignoreFocusOut: true,
    validateInput: (text) => {
      const words = splitArgs(text);
      return Array.isArray(words) ? undefined : words.error;
    },
  });
  if (line === undefined) return undefined;
  const words = splitArgs(line);
  return Array.isArray(words) ? words : undefined;
}
