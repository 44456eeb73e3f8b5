// The quick pick of the failure message a run must keep: the server's suggestions
// (an edit button on each), then "Type a message…", which opens an input box.
// What the items say and how the text is checked are pure (format.ts:
// suggestionItems, suggestionPlaceholder, validateErrMsg); this module only shows them.

import * as vscode from 'vscode';
import { SuggestionItem, suggestionItems, suggestionPlaceholder, validateErrMsg } from './format';
import type { SuggestErrMsgResult } from './protocol';

const TITLE = 'AutoDD: the failure to preserve';

const EDIT_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('edit'),
  tooltip: 'Edit this message before using it',
};

/** The message the user picked (or typed); undefined if they dismissed the pick. */
export async function pickErrMsg(suggested: SuggestErrMsgResult): Promise<string | undefined> {
  const items = suggestionItems(suggested.suggestions);
  const custom = items[items.length - 1];
  if (items.length === 1) return askErrMsg(custom.value);

  type Item = vscode.QuickPickItem & { item: SuggestionItem };
  const quickPick = vscode.window.createQuickPick<Item>();
  quickPick.title = TITLE;
  quickPick.placeholder = suggestionPlaceholder(suggested.returncode, items.length - 1);
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  quickPick.items = items.map((item) => ({
    label: item.label,
    description: item.description,
    buttons: item.kind === 'suggestion' ? [EDIT_BUTTON] : [],
    alwaysShow: item.kind === 'custom',
    item,
  }));
  const choice = await new Promise<{ item: SuggestionItem; edit: boolean } | undefined>((resolve) => {
    quickPick.onDidAccept(() => {
      const selected = quickPick.selectedItems[0] ?? quickPick.activeItems[0];
      resolve(selected ? { item: selected.item, edit: selected.item.kind === 'custom' } : undefined);
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
  return choice.edit ? askErrMsg(choice.item.value) : choice.item.value;
}

function askErrMsg(initial: string): Promise<string | undefined> {
  return Promise.resolve(
    vscode.window.showInputBox({
      title: TITLE,
      prompt: 'Text that the output of the failing program must contain (e.g. the exception line)',
      value: initial,
      ignoreFocusOut: true,
      validateInput: validateErrMsg,
    }),
  ).then((text) => (text === undefined ? undefined : text.trim()));
}
