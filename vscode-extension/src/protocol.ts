// The wire protocol between this extension and `python -m autodd_lsp.server`.
// Pure module (no `vscode` import) so unit tests can load it.

/** Server-side commands (vscode-languageclient auto-registers these ids). */
export const ServerCommand = {
  suggestErrMsg: 'autodd.suggestErrMsg',
  minimize: 'autodd.minimize',
  cancel: 'autodd.cancel',
  freeze: 'autodd.freeze',
  unfreeze: 'autodd.unfreeze',
} as const;

/** Client-side commands: must differ from the server's ids. */
export const ClientCommand = {
  minimize: 'autodd-vscode.minimize',
  cancel: 'autodd-vscode.cancel',
  freeze: 'autodd-vscode.freeze',
  unfreeze: 'autodd-vscode.unfreeze',
  showLogs: 'autodd-vscode.showLogs',
  restart: 'autodd-vscode.restart',
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

export interface SuggestErrMsgResult {
  suggestions: string[];
  outputTail: string;
  returncode: number | null;
}

export type Backend = 'runner' | 'subproc';
export type OutputMode = 'beside' | 'inPlace';

export interface MinimizeArgs {
  uri: string;
  errMsg?: string;
  backend?: Backend;
  timeout?: number;
  jobs?: number;
  interpreter?: string;
  output?: OutputMode;
  progressToken?: string;
}

export interface ProgramSize {
  lines: number;
  nodes: number;
}

export interface MinimizeResult {
  status: 'done' | 'cancelled' | 'failed';
  message: string;
  outputUri?: string;
  original?: ProgramSize;
  final?: ProgramSize;
}
