// Pure helpers for what the user sees: messages, quick-pick items, progress.
// No `vscode` import here, so these run under node's test runner.

import type { MinimizeResult, ProgramSize } from './protocol';

/** 1340 → "1,340" (always en-US grouping, so messages are stable in tests). */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** "212 → 19 lines (1,340 → 180 AST nodes)". */
export function formatReduction(original: ProgramSize, final: ProgramSize): string {
  return (
    `${formatCount(original.lines)} → ${formatCount(final.lines)} lines ` +
    `(${formatCount(original.nodes)} → ${formatCount(final.nodes)} AST nodes)`
  );
}

export interface ResultMessage {
  severity: 'info' | 'warning' | 'error';
  text: string;
  /** Whether an "Open diff" button makes sense (there is a result file). */
  canDiff: boolean;
}

/** Turns the server's answer to `autodd.minimize` into the message shown at the end. */
export function formatResultMessage(result: MinimizeResult): ResultMessage {
  const sizes =
    result.original && result.final ? formatReduction(result.original, result.final) : undefined;
  const canDiff = Boolean(result.outputUri);
  const detail = (result.message ?? '').trim();
  switch (result.status) {
    case 'done':
      return {
        severity: 'info',
        text: sizes ? `AutoDD: ${sizes}` : `AutoDD: done. ${detail}`.trim(),
        canDiff,
      };
    case 'cancelled':
      return {
        severity: 'warning',
        text: sizes
          ? `AutoDD: cancelled; kept the best result so far, ${sizes}`
          : `AutoDD: cancelled. ${detail}`.trim(),
        canDiff,
      };
    default:
      return {
        severity: 'error',
        text: `AutoDD: minimization failed${detail ? `: ${detail}` : '.'}`,
        canDiff,
      };
  }
}

export interface SuggestionItem {
  label: string;
  description?: string;
  /** 'suggestion': use `value` as the message; 'custom': ask in an input box. */
  kind: 'suggestion' | 'custom';
  value: string;
}

export const TYPE_A_MESSAGE = 'Type a message…';

const MAX_LABEL = 200;

/**
 * Quick-pick items for the failure signature: each distinct, non-empty suggestion
 * (the server sends the most specific first), then "Type a message…".
 */
export function suggestionItems(suggestions: readonly string[]): SuggestionItem[] {
  const seen = new Set<string>();
  const items: SuggestionItem[] = [];
  for (const raw of suggestions) {
    const value = raw.trim();
    if (!value || seen.has(value)) continue;
    seen.add(value);
    const label = value.length > MAX_LABEL ? `${value.slice(0, MAX_LABEL - 1)}…` : value;
    items.push({
      label,
      description: items.length === 0 ? 'last error line' : undefined,
      kind: 'suggestion',
      value,
    });
  }
  items.push({
    label: TYPE_A_MESSAGE,
    description: 'text the failing output must contain',
    kind: 'custom',
    value: items[0]?.value ?? '',
  });
  return items;
}

/** What the quick pick says above the items, given how the program ended. */
export function suggestionPlaceholder(returncode: number | null, count: number): string {
  if (count === 0) {
    return returncode === 0
      ? 'The program exited normally (code 0): type the output text that marks the failure'
      : 'No error line found in the output: type the text that marks the failure';
  }
  const how = returncode === null ? 'did not finish' : `exited with code ${returncode}`;
  return `The program ${how}. Pick the failure message to preserve (text the output must contain)`;
}

/** Checks the text typed in the input box; returns an error string or undefined. */
export function validateErrMsg(text: string): string | undefined {
  return text.trim() ? undefined : 'The message must not be empty';
}

export interface ProgressInfo {
  pass: string;
  fromNodes: number;
  toNodes: number;
  candidates: number;
}

/**
 * Parses the server's progress message "pass · N → M nodes · K candidates"
 * (numbers may carry thousands separators). Returns undefined for other text.
 */
export function parseProgressMessage(message: string | undefined): ProgressInfo | undefined {
  if (!message) return undefined;
  const m = /^\s*(.*?)\s*·\s*([\d,]+)\s*(?:→|->)\s*([\d,]+)\s*nodes?\s*·\s*([\d,]+)\s*candidates?\s*$/u.exec(
    message,
  );
  if (!m) return undefined;
  const num = (s: string) => Number(s.replace(/,/g, ''));
  return { pass: m[1], fromNodes: num(m[2]), toNodes: num(m[3]), candidates: num(m[4]) };
}

/** The share of the program removed so far, 0–100, from a parsed progress message. */
export function reductionPercent(info: ProgressInfo): number {
  if (info.fromNodes <= 0) return 0;
  const pct = 100 * (1 - info.toNodes / info.fromNodes);
  return Math.max(0, Math.min(100, pct));
}

/**
 * `window.withProgress` wants increments; the server may send absolute percentages.
 * Returns the increment to report (never negative) and the new running total.
 */
export function progressIncrement(
  reported: number,
  percentage: number | undefined,
): { increment: number | undefined; total: number } {
  if (percentage === undefined || !Number.isFinite(percentage)) {
    return { increment: undefined, total: reported };
  }
  const clamped = Math.max(0, Math.min(100, percentage));
  if (clamped <= reported) return { increment: undefined, total: reported };
  return { increment: clamped - reported, total: clamped };
}

/** The notification line: the server message with the share removed added, e.g. "ddmin · 1,340 → 420 nodes (69% smaller) · 212 candidates". */
export function describeProgress(message: string | undefined): string | undefined {
  const info = parseProgressMessage(message);
  if (!info) return message;
  const pct = Math.round(reductionPercent(info));
  return (
    `${info.pass} · ${formatCount(info.fromNodes)} → ${formatCount(info.toNodes)} nodes ` +
    `(${pct}% smaller) · ${formatCount(info.candidates)} candidates`
  );
}

/** Where the server writes the result for output "beside": `<dir>/<stem>.min.py`. */
export function besideOutputPath(sourcePath: string): string {
  const slash = sourcePath.lastIndexOf('/');
  const dir = sourcePath.slice(0, slash + 1);
  const name = sourcePath.slice(slash + 1);
  const stem = name.endsWith('.py') ? name.slice(0, -3) : name;
  return `${dir}${stem}.min.py`;
}

/** LSP MessageType values (window/showMessage). */
export const MessageType = { Error: 1, Warning: 2, Info: 3, Log: 4, Debug: 5 } as const;

/**
 * Whether a server `window/showMessage` repeats what this extension reports itself.
 * The server announces a run's end (and its failures) for clients without their own
 * UI; while a run or probe started by this extension is in flight, those go to the
 * log only. Freeze/unfreeze refusals are always shown.
 */
export function isDuplicateRunMessage(type: number, text: string, runInFlight: boolean): boolean {
  if (!runInFlight) return false;
  if (/^AutoDD: (un)?freeze\b|^AutoDD: nothing to (un)?freeze\b/.test(text)) return false;
  if (/^AutoDD: (Done|Stopped early)\b/.test(text)) return true;
  return type === MessageType.Error || type === MessageType.Warning;
}
