// The wire protocol between this extension and the AutoDD language server (notes/server.md).
// Pure module (no `vscode` import) so unit tests can load it.

/** Server-side commands (vscode-languageclient auto-registers these ids). */
export const ServerCommand = {
  suggestErrMsg: 'autodd.suggestErrMsg',
  minimize: 'autodd.minimize',
  cancel: 'autodd.cancel',
  freeze: 'autodd.freeze',
  unfreeze: 'autodd.unfreeze',
  writeReport: 'autodd.writeReport',
  writeTest: 'autodd.writeTest',
} as const;

/** Client-side commands: must differ from the server's ids. */
export const ClientCommand = {
  minimize: 'autodd-vscode.minimize',
  minimizeWithArguments: 'autodd-vscode.minimizeWithArguments',
  statusMenu: 'autodd-vscode.statusMenu',
  cancel: 'autodd-vscode.cancel',
  freeze: 'autodd-vscode.freeze',
  unfreeze: 'autodd-vscode.unfreeze',
  showLogs: 'autodd-vscode.showLogs',
  restart: 'autodd-vscode.restart',
  // actions on a finished run (code lens on the reproducer)
  openDiff: 'autodd-vscode.openDiff',
  copyReport: 'autodd-vscode.copyReport',
  writeTest: 'autodd-vscode.writeTest',
  runAgain: 'autodd-vscode.runAgain',
} as const;

/** Custom notification server → client: frozen regions of one document. */
export const FrozenRegionsNotification = 'autodd/frozenRegions';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface FrozenRegionsParams {
  uri: string;
  ranges: LspRange[];
}

/**
 * The `autodd.minimize` arguments that name the failure a run keeps: `errMsg`,
 * `errRegex`, `crash`, `exitCode`, `hang`, and whatever kinds the server adds
 * (the flow passes them through unchanged; the server checks them).
 */
export type FailureArguments = Record<string, unknown>;

/** A failure without a message the trial run showed (`killed by SIGSEGV`), with the arguments that keep it. */
export interface SuggestedFailure {
  title: string;
  arguments: FailureArguments;
}

export interface SuggestErrMsgResult {
  /** Failure messages, the most specific first. */
  suggestions: string[];
  /** Failures of other kinds (a signal, an exit status, a hang…). */
  failures: SuggestedFailure[];
  outputTail: string;
  returncode: number | null;
  /** The trial run lacked one of the program's own top-level imports: the interpreter, not a bug. */
  environment?: EnvironmentProblem;
}

/** `environment` of the `autodd.suggestErrMsg` reply: which interpreter lacks which module. */
export interface EnvironmentProblem {
  /** The interpreter that ran the program. */
  python: string;
  version: string;
  /** The module it could not import. */
  module: string;
  /** One line saying so, for the person. */
  message: string;
}

export type Backend = 'runner' | 'subproc' | 'ray';
export type OutputMode = 'beside' | 'inPlace';
export type MatchRule = 'same' | 'substring';

/**
 * The settings a run may carry. Values are passed as the user wrote them (the
 * server validates them and answers a bad one with a one-line `failed` reply).
 */
export interface RunOptions {
  backend?: unknown;
  timeout?: unknown;
  jobs?: unknown;
  output?: unknown;
  match?: unknown;
  keepImports?: unknown;
  noData?: unknown;
  dataAsFiles?: unknown;
  repeat?: unknown;
  gpus?: unknown;
  runsPerGpu?: unknown;
  rayAddress?: unknown;
  passesWith?: unknown;
  passesWithEnv?: unknown;
  /** The program's own arguments (a list of strings). */
  args?: unknown;
  /** A file the program reads on its standard input (made absolute by the extension). */
  stdin?: unknown;
}

export interface MinimizeArgs extends RunOptions {
  uri: string;
  /** The failure's message, when the failure kept is one (`messageFailure`). */
  errMsg?: string;
  /** The failure to keep of any other kind (`crash`, `exitCode`, …), spread in as the server expects it. */
  [failureKey: string]: unknown;
  /** The person's own check: a shell command, `{}` the candidate's path, exit 0 = the bug is there. */
  check?: string;
  /** A pytest test in the file (node id: `test_x`, `TestK::test_x`) to reduce instead of the script. */
  test?: string;
  interpreter?: string;
  progressToken?: string;
}

export interface ProgramSize {
  lines: number;
  nodes: number;
}

/** The immediate reply to `autodd.minimize`. */
export type MinimizeReply =
  | { status: 'started'; runId: string; uri: string; outputUri: string }
  | { status: 'failed'; message: string };

/** `autodd/progress`: the structured state of a run, at most 4 a second. */
export const ProgressNotification = 'autodd/progress';
export interface ProgressParams {
  runId: string;
  uri: string;
  outputUri: string;
  pass: string;
  size: ProgramSize;
  original: ProgramSize;
  candidates: number;
  /** candidates per second */
  rate: number;
  /** 0..100 */
  percentage: number;
}

/** `autodd/notice`: one engine notice (runner fallback, flaky rates, a kept import…). */
export const NoticeNotification = 'autodd/notice';
export interface NoticeParams {
  runId: string;
  uri: string;
  level: 'info' | 'warning';
  message: string;
}

/** `autodd/finished`: the end of a run. */
export const FinishedNotification = 'autodd/finished';
export interface FinishedParams {
  runId: string;
  uri: string;
  status: 'done' | 'cancelled' | 'failed';
  message: string;
  outputUri?: string;
  original?: ProgramSize;
  final?: ProgramSize;
}

/** What the extension's minimize command resolves with (a finished run, or a start that failed). */
export interface MinimizeResult {
  status: 'done' | 'cancelled' | 'failed';
  message: string;
  /** The server refused to start the run (nothing ran): a bad setting, a marker error… */
  refused?: boolean;
  /** The trial run lacked one of the program's imports (the interpreter's fault): nothing ran after it. */
  environment?: EnvironmentProblem;
  runId?: string;
  outputUri?: string;
  original?: ProgramSize;
  final?: ProgramSize;
}

/** Answer of `autodd.writeReport` / `autodd.writeTest`. */
export type ArtifactResult = { ok: true; path: string; uri: string } | { ok: false; message: string };
