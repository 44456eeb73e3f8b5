// The quick pick of the failure a run must keep: every failure the server's
// probe offers (messages, with an edit button, then a signal, an exit status, a
// hang… each with its meaning in words), then "Type a message…", which opens an
// input box, and "Use my own check command…", which asks for a shell command. What the items say and how the text is checked are pure
// (choices.ts); this module only shows them.

import * as vscode from 'vscode';
import {
  CHECK_PROMPT,
  checkFailure,
  choiceHeading,
  FailureChoice,
  failureChoices,
  failureMessage,
  messageFailure,
  SHORTER_IS_ROBUST,
  validateCheck,
  validateErrMsg,
} from './choices';
import type { FailureArguments, SuggestErrMsgResult } from './protocol';

const EDIT_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('edit'),
  tooltip: 'Edit this message before using it',
};

/** The failure the user picked (or the message typed); undefined if they dismissed the pick. */
export async function pickFailure(suggested: SuggestErrMsgResult, file: string): Promise<FailureArguments | undefined> {
  const items = failureChoices(suggested);
  const heading = choiceHeading(file, suggested.returncode, items.filter((i) => i.kind === 'failure').length);

  type Item = vscode.QuickPickItem & { item: FailureChoice };
  const quickPick = vscode.window.createQuickPick<Item>();
  quickPick.title = heading.title;
  quickPick.placeholder = heading.placeholder;
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  quickPick.items = items.map((item) => ({
    label: item.label,
    description: item.description,
    detail: item.detail,
    buttons: item.editable ? [EDIT_BUTTON] : [],
    alwaysShow: item.kind === 'custom',
    item,
  }));
  const choice = await new Promise<{ item: FailureChoice; edit: boolean } | undefined>((resolve) => {
    quickPick.onDidAccept(() => {
      const selected = quickPick.selectedItems[0] ?? quickPick.activeItems[0];
      resolve(selected ? { item: selected.item, edit: selected.item.kind !== 'failure' } : undefined);
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
  if (choice.item.kind === 'check') return askCheck(heading.title);
  return choice.edit ? askErrMsg(heading.title, failureMessage(choice.item.failure)) : choice.item.failure;
}

async function askCheck(title: string): Promise<FailureArguments | undefined> {
  const command = await vscode.window.showInputBox({
    title,
    prompt: CHECK_PROMPT,
    placeHolder: 'e.g. python check_result.py {}',
    ignoreFocusOut: true,
    validateInput: validateCheck,
  });
  return command === undefined ? undefined : checkFailure(command.trim());
}

async function askErrMsg(title: string, initial: string): Promise<FailureArguments | undefined> {
  const text = await vscode.window.showInputBox({
    title,
    prompt: `Text that the output of the failing program must contain, e.g. part of the error line (${SHORTER_IS_ROBUST})`,
    value: initial,
    ignoreFocusOut: true,
    validateInput: validateErrMsg,
  });
  return text === undefined ? undefined : messageFailure(text.trim());
}
