// The failures a run can keep, as the quick pick offers them: the server's
// `autodd.suggestErrMsg` answer (message suggestions, then failures of other kinds
// with the `autodd.minimize` arguments that keep each), then "Type a message…" and
// "Use my own check command…" (the `check` kind: the person's shell command decides).
// Every item says what it keeps in words; long messages are never cut: what does
// not fit on the label's line goes on the detail line. Kinds this module does not
// know by name are offered too, with the server's title (the flow passes their
// arguments through unchanged).
// Pure module (no `vscode` import) so unit tests can load it.

import type { FailureArguments, SuggestErrMsgResult } from './protocol';

export interface FailureChoice {
  label: string;
  description?: string;
  /** The line under the label: the meaning in words, or the rest of a long message. */
  detail?: string;
  /** 'failure': keep `failure`; 'custom': ask for a message; 'check': ask for a check command. */
  kind: 'failure' | 'custom' | 'check';
  failure: FailureArguments;
  /** Whether the edit button (change the message before using it) applies. */
  editable: boolean;
}

export const TYPE_A_MESSAGE = 'Type a message…';
export const USE_A_CHECK = 'Use my own check command…';

/** What the check command's input box explains (the CLI's `--check` means the same). */
export const CHECK_PROMPT =
  'A shell command run on every candidate, from the workspace folder, with the candidate in place of ' +
  "this file under its own name (python file.py, import file: as you run it); {} stands for the candidate's path; " +
  'exit status 0 means the bug is still there (anything else: it is gone)';

/** The failure a check command names. */
export function checkFailure(command: string): FailureArguments {
  return { check: command };
}

/** Checks the check command typed in the input box; returns an error string or undefined. */
export function validateCheck(text: string): string | undefined {
  return text.trim() ? undefined : 'The command must not be empty';
}

/** The CLI's advice, said once on the message items (cli/main.py says the same). */
export const SHORTER_IS_ROBUST = 'a shorter message survives more changes';

/** Characters of a message on the label's line; the rest goes on the detail line, uncut. */
export const LABEL_WIDTH = 72;

/** The failure a message names. */
export function messageFailure(errMsg: string): FailureArguments {
  return { errMsg };
}

/** The message a failure keeps, if it is one ("" otherwise). */
export function failureMessage(failure: FailureArguments | undefined): string {
  return typeof failure?.errMsg === 'string' ? failure.errMsg : '';
}

/**
 * What keeping `failure` means, in words: "the output must contain this text",
 * "the program must be killed by SIGSEGV", "it must exit with status 3", "it must
 * run past autodd.timeout", "the same numeric comparison must fail"; a kind not known
 * here says its argument as given.
 */
export function failureMeaning(failure: FailureArguments): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(failure)) {
    if (value === undefined || value === null || value === false || value === '') continue;
    switch (key) {
      case 'errMsg':
        parts.push('the output must contain this text');
        break;
      case 'errRegex':
        parts.push(`the output must match the regular expression /${text(value)}/`);
        break;
      case 'crash':
        parts.push(
          value === true
            ? 'the program must be killed by a signal (a crash)'
            : `the program must be killed by ${text(value)} (a crash), whatever it prints`,
        );
        break;
      case 'exitCode':
        parts.push(`the program must exit with status ${text(value)}, whatever it prints`);
        break;
      case 'hang':
        parts.push('the program must run past the time limit (the autodd.timeout setting)');
        break;
      case 'check':
        parts.push(`your command ${text(value)} must exit with status 0`);
        break;
      case 'wrongAnswer':
        parts.push('the same numeric comparison must fail, with the same operands (shapes, dtypes, values)');
        break;
      default:
        parts.push(`${key}: ${JSON.stringify(value)}`);
    }
  }
  return parts.join('; ');
}

/** An argument's value as written: strings and numbers as they are, anything else as JSON. */
function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** A short name of the failure for messages and logs: the message itself, or the meaning. */
export function failureSummary(failure: FailureArguments): string {
  const message = failureMessage(failure);
  return message ? JSON.stringify(message) : failureMeaning(failure);
}

/** Splits `text` at a word boundary near `width`: [line, rest] (rest "" when it fits). */
export function splitAt(text: string, width: number = LABEL_WIDTH): [string, string] {
  if (text.length <= width) return [text, ''];
  const space = text.lastIndexOf(' ', width);
  const cut = space > width / 2 ? space : width;
  return [text.slice(0, cut), text.slice(cut).trimStart()];
}

/**
 * The quick pick's items: each distinct, non-empty message suggestion (the most
 * specific first), each failure of another kind, then "Type a message…", then
 * "Use my own check command…".
 */
export function failureChoices(suggested: Pick<SuggestErrMsgResult, 'suggestions' | 'failures'>): FailureChoice[] {
  const seen = new Set<string>();
  const items: FailureChoice[] = [];
  for (const raw of suggested.suggestions) {
    const value = raw.trim();
    if (!value || seen.has(value)) continue;
    seen.add(value);
    const [label, rest] = splitAt(value);
    const first = items.length === 0;
    items.push({
      label: rest ? `${label} …` : label,
      description: first ? 'the last error line' : 'a shorter, stable part of it',
      detail: rest ? `… ${rest}` : `${failureMeaning(messageFailure(value))}${first ? '' : ` (${SHORTER_IS_ROBUST})`}`,
      kind: 'failure',
      failure: messageFailure(value),
      editable: true,
    });
  }
  for (const failure of suggested.failures) {
    const key = JSON.stringify(failure.arguments);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({
      label: failure.title,
      description: flagOf(failure.arguments),
      detail: failureMeaning(failure.arguments),
      kind: 'failure',
      failure: failure.arguments,
      editable: false,
    });
  }
  const firstMessage = items.find((item) => failureMessage(item.failure));
  items.push({
    label: TYPE_A_MESSAGE,
    description: 'text the failing output must contain',
    detail: `e.g. part of the error line (${SHORTER_IS_ROBUST})`,
    kind: 'custom',
    failure: messageFailure(firstMessage ? failureMessage(firstMessage.failure) : ''),
    editable: false,
  });
  items.push({
    label: USE_A_CHECK,
    description: 'a shell command: exit 0 = the bug is there',
    detail: "for a failure no output shows (a wrong result…); {} stands for the candidate's path",
    kind: 'check',
    failure: checkFailure(''),
    editable: false,
  });
  return items;
}

/** The CLI flag a failure's arguments stand for (`--crash SIGSEGV`), for the item's description. */
export function flagOf(failure: FailureArguments): string | undefined {
  const flags: Record<string, string> = {
    errMsg: '--err-msg',
    errRegex: '--err-regex',
    crash: '--crash',
    exitCode: '--exit-code',
    hang: '--hang',
    check: '--check',
  };
  const [key, value] = Object.entries(failure)[0] ?? [];
  if (!key) return undefined;
  const flag = flags[key] ?? key;
  return value === true ? flag : `${flag} ${text(value)}`;
}

/** The quick pick's title (the long line, never cut) and its short placeholder. */
export function choiceHeading(
  file: string,
  returncode: number | null,
  count: number,
): { title: string; placeholder: string } {
  const how =
    returncode === null
      ? 'did not finish'
      : returncode === 0
        ? 'exited normally (code 0)'
        : returncode < 0
          ? `was killed by signal ${-returncode}`
          : `exited with code ${returncode}`;
  if (count === 0) {
    return {
      title: `AutoDD: ${file} ${how}, with no error line`,
      placeholder: 'Type the text of the output that marks the failure',
    };
  }
  return { title: `AutoDD: ${file} ${how}: which failure must the reproducer keep?`, placeholder: 'Pick the failure to keep' };
}

/** Checks the text typed in the input box; returns an error string or undefined. */
export function validateErrMsg(text: string): string | undefined {
  return text.trim() ? undefined : 'The message must not be empty';
}
