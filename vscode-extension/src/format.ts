// Pure helpers for what the user sees: messages (in an editor's words: settings,
// not flags), progress, the status bar item, the server's stderr log levels.
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
  /** One line (a toast flattens line breaks): what happened, in the editor's words. */
  text: string;
  /** The rest of the server's message (a traceback, the program's output): for the output channel. */
  details: string;
  /** The message's buttons: a finished run's diff, or what fits a failure. */
  actions: ResultAction[];
}

export type ResultAction = 'Open diff' | 'Show output' | 'Run again…';

/**
 * Turns a run's end into the message shown: the size reduction with "Open diff"
 * for a result, and for a failure its first line with "Show output" (the rest
 * goes to the output channel) and "Run again…" (pick the failure anew): never a
 * diff, which would be an earlier run's.
 */
export function formatResultMessage(result: MinimizeResult): ResultMessage {
  const sizes =
    result.original && result.final ? formatReduction(result.original, result.final) : undefined;
  const [first, ...rest] = editorWording((result.message ?? '').trim()).split('\n');
  const detail = (first ?? '').trim();
  const details = rest.join('\n').trim();
  const diff: ResultAction[] = result.outputUri ? ['Open diff'] : [];
  switch (result.status) {
    case 'done':
      return {
        severity: 'info',
        text: sizes ? `AutoDD: ${sizes}` : `AutoDD: done. ${detail}`.trim(),
        details,
        actions: diff,
      };
    case 'cancelled':
      return {
        severity: 'warning',
        text: sizes
          ? `AutoDD: cancelled; kept the best result so far, ${sizes}`
          : `AutoDD: cancelled. ${detail}`.trim(),
        details,
        actions: diff,
      };
    default:
      return {
        severity: 'error',
        text: `AutoDD: minimization failed${detail ? `: ${detail}` : '.'}${details ? ' (the output is in "AutoDD: Show logs")' : ''}`,
        details,
        actions: ['Show output', 'Run again…'],
      };
  }
}

/** The settings of the engine's command-line flags (options.py's `flag`s), as an editor user sets them. */
export const FLAG_SETTINGS: Readonly<Record<string, string>> = {
  '--repeat': 'autodd.repeat',
  '--timeout': 'autodd.timeout',
  '-j/--jobs': 'autodd.jobs',
  '--jobs': 'autodd.jobs',
  '-j': 'autodd.jobs',
  '--backend': 'autodd.backend',
  '--gpus': 'autodd.gpus',
  '--runs-per-gpu': 'autodd.runsPerGpu',
  '--ray-address': 'autodd.rayAddress',
  '--match': 'autodd.match',
  '--keep-imports': 'autodd.keepImports',
  '--no-data': 'autodd.noData',
  '--data-as-files': 'autodd.dataAsFiles',
  '--python': 'autodd.interpreter',
  '--stdin': 'autodd.stdin',
  '--passes-with': 'autodd.passesWith',
  '--passes-with-env': 'autodd.passesWithEnv',
};

/**
 * The engine's messages name its command-line flags (`--repeat N runs it N
 * times`); an editor user has settings: "setting autodd.repeat to N runs it N
 * times", "the autodd.timeout setting". A flag with no setting is left as it is.
 */
export function editorWording(text: string): string {
  return text.replace(
    /(^|[\s(])(-j\/--jobs|--[a-z][a-z-]*|-j)(?=[\s:,;)]|$)( (?:N|auto|ray|runner|subproc|same|substring|-?\d+(?:\.\d+)?)(?=[\s:,;)]|$))?/g,
    (whole: string, before: string, flag: string, value: string | undefined) => {
      const setting = FLAG_SETTINGS[flag];
      if (!setting) return whole;
      return value ? `${before}setting ${setting} to ${value.trim()}` : `${before}the ${setting} setting`;
    },
  );
}

/** Where the server's one-line refusal points in the file ("x.py: line 3, column 1: …"), 0-based. */
export function problemLocation(message: string): { line: number; character: number } | undefined {
  const m = /: line (\d+)(?:, column (\d+))?:/.exec(message);
  if (!m) return undefined;
  return { line: Math.max(0, Number(m[1]) - 1), character: Math.max(0, Number(m[2] ?? 1) - 1) };
}

/** What every command that needs a finished run says when there is none. */
export const NO_FINISHED_RUN =
  'AutoDD: no finished run of this file yet: run "AutoDD: Minimize this failure" to the end first.';

/** The log level of one line the server writes on stderr (its own log lines say theirs). */
export function stderrLevel(line: string): 'info' | 'warn' | 'error' {
  const m = /^autodd-lsp: (DEBUG|INFO|WARNING|ERROR|CRITICAL)\b/.exec(line);
  if (m) return m[1] === 'WARNING' ? 'warn' : m[1] === 'ERROR' || m[1] === 'CRITICAL' ? 'error' : 'info';
  // the entry script's own lines ("autodd-lsp: Python 3.11.7 at …; using …") are its start-up report
  return line.startsWith('autodd-lsp: ') ? 'info' : 'error';
}

/** What the status bar item shows. */
export type ServerStatus =
  | { state: 'starting' }
  | { state: 'ready' }
  | { state: 'running'; file: string; size?: ProgramSize; original?: ProgramSize }
  | { state: 'failed'; reason: string }
  | { state: 'stopped' };

/** The status bar item's text and tooltip: the server's state and the interpreter. */
export function statusBarText(status: ServerStatus, interpreter: string | undefined): { text: string; tooltip: string } {
  const python = interpreter ? `Python: ${interpreter}` : 'Python: not chosen yet';
  switch (status.state) {
    case 'starting':
      return { text: '$(loading~spin) AutoDD', tooltip: `AutoDD: the language server is starting\n${python}` };
    case 'ready':
      return { text: '$(check) AutoDD', tooltip: `AutoDD: ready\n${python}` };
    case 'running': {
      const size =
        status.size && status.original
          ? ` ${formatCount(status.original.lines)} → ${formatCount(status.size.lines)} lines`
          : '';
      return {
        text: `$(sync~spin) AutoDD:${size || ` ${status.file}`}`,
        tooltip: `AutoDD: minimizing ${status.file}${size ? ` (${size.trim()})` : ''}\n${python}`,
      };
    }
    case 'failed':
      return { text: '$(error) AutoDD', tooltip: `AutoDD: the language server is not running: ${status.reason}\n${python}` };
    default:
      return { text: '$(circle-slash) AutoDD', tooltip: `AutoDD: the language server is stopped\n${python}` };
  }
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
  const text = editorWording(notice.message.trim());
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
