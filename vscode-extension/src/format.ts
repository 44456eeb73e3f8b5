// Pure helpers for what the user sees: messages, quick-pick items, progress.
// No `vscode` import here, so these run under node's test runner.

import type { MinimizeResult, NoticeParams, ProgramSize, ProgressParams } from './protocol';

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

/**
 * The progress line of a run, from the server's structured `autodd/progress`
 * (never from its message text): "ddmin · 212 → 40 lines (1,340 → 180 AST nodes,
 * 87% smaller) · 212 candidates, 35/s".
 */
export function describeProgress(p: ProgressParams): string {
  // The share is left out while the program is not smaller in nodes (inlining a
  // module first makes it bigger).
  const removed = p.original.nodes > 0 ? 1 - p.size.nodes / p.original.nodes : 0;
  const share = removed > 0 ? `, ${Math.round(100 * Math.min(1, removed))}% smaller` : '';
  const rate = Number.isFinite(p.rate) && p.rate > 0 ? `, ${formatRate(p.rate)}/s` : '';
  return (
    `${p.pass} · ${formatCount(p.original.lines)} → ${formatCount(p.size.lines)} lines ` +
    `(${formatCount(p.original.nodes)} → ${formatCount(p.size.nodes)} AST nodes${share}) · ` +
    `${formatCount(p.candidates)} candidates${rate}`
  );
}

/** Candidates per second: one decimal below 10, whole numbers above. */
export function formatRate(rate: number): string {
  return rate < 10 ? rate.toFixed(1) : formatCount(rate);
}

/**
 * `window.withProgress` wants increments; the server sends absolute percentages.
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

/** How an `autodd/notice` is shown: every notice, warnings as warnings. */
export function noticeMessage(notice: Pick<NoticeParams, 'level' | 'message'>): {
  severity: 'info' | 'warning';
  text: string;
} {
  const text = notice.message.trim();
  return {
    severity: notice.level === 'warning' ? 'warning' : 'info',
    text: text.startsWith('AutoDD') ? text : `AutoDD: ${text}`,
  };
}

/** The first code lens over a finished run's reproducer: what the run did. */
export function resultLensTitle(result: MinimizeResult): string {
  const sizes =
    result.original && result.final ? formatReduction(result.original, result.final) : undefined;
  switch (result.status) {
    case 'done':
      return `AutoDD: ${sizes ?? 'done'}`;
    case 'cancelled':
      return `AutoDD: cancelled${sizes ? `, best so far ${sizes}` : ''}`;
    default:
      return 'AutoDD: the last run failed';
  }
}

/** The text of a thrown value (an Error's message, anything else as a string). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
