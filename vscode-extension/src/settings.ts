// Resolving the `autodd.*` settings into what the server is started and driven with.
// Pure module (no `vscode` import): the VS Code side reads the raw values and
// passes them in; unit tests call these functions directly.
//
// The run settings (backend, timeout, jobs, output, match, keepImports, noData, dataAsFiles, repeat, gpus, runsPerGpu,
// rayAddress, passesWith, passesWithEnv, args, stdin)
// are not checked here: a run carries only the ones the user set, as written,
// and the server (the one home of their rules) answers a bad value with a
// one-line message that the extension shows.

import * as os from 'node:os';
import * as path from 'node:path';
import type { RunOptions } from './protocol';

export const DEFAULT_INTERPRETER = 'python3';

/** The run settings a minimize request may carry (package.json `autodd.<key>`). */
export const RUN_OPTION_KEYS = [
  'backend', 'timeout', 'jobs', 'output', 'match', 'keepImports', 'noData', 'dataAsFiles', 'repeat', 'gpus',
  'runsPerGpu', 'rayAddress', 'passesWith', 'passesWithEnv', 'args', 'stdin',
] as const;

export interface RawSettings {
  interpreter?: unknown;
}

export interface Settings {
  /** Interpreter that runs the server and the candidates. */
  interpreter: string;
  /** Where the interpreter came from, for the logs. */
  interpreterSource: 'setting' | 'python-extension' | 'default';
}

/** What `WorkspaceConfiguration.inspect` tells about one setting (the parts used here). */
export interface InspectedSetting {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The value the user set (folder over workspace over user settings), or undefined. */
export function userValue(inspected: InspectedSetting | undefined): unknown {
  if (!inspected) return undefined;
  return inspected.workspaceFolderValue ?? inspected.workspaceValue ?? inspected.globalValue;
}

/**
 * The run options to send: exactly the settings the user set, unchanged, but for
 * `stdin`, a path relative to the workspace folder (the setting's meaning), which
 * is sent absolute (the server would read a relative one from the file's folder).
 */
export function runOptions(
  inspect: (key: string) => InspectedSetting | undefined,
  workspaceFolder?: string,
): RunOptions {
  const out: Record<string, unknown> = {};
  for (const key of RUN_OPTION_KEYS) {
    const value = userValue(inspect(key));
    if (value !== undefined && value !== null) out[key] = value;
  }
  if (typeof out.stdin === 'string' && out.stdin.trim()) {
    const expanded = expandPath(out.stdin, { workspaceFolder });
    out.stdin = workspaceFolder !== undefined ? path.resolve(workspaceFolder, expanded) : expanded;
  }
  return out;
}

export interface ResolveContext {
  /** The workspace folder the document belongs to, for `${workspaceFolder}`. */
  workspaceFolder?: string;
  /** The interpreter selected in the Python extension, if that extension is there. */
  pythonExtensionInterpreter?: string;
  /** Environment variables for `${env:NAME}` (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

/** Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path setting. */
export function expandPath(value: string, ctx: ResolveContext = {}): string {
  const env = ctx.env ?? process.env;
  const home = ctx.homeDir ?? os.homedir();
  let out = value.trim();
  out = out.replace(/\$\{userHome\}/g, home);
  out = out.replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => env[name] ?? '');
  if (ctx.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, ctx.workspaceFolder);
  }
  if (out === '~') out = home;
  else if (out.startsWith('~/')) out = path.join(home, out.slice(2));
  // A relative path with a folder part (e.g. ".venv/bin/python") is relative to the workspace.
  if (
    ctx.workspaceFolder !== undefined &&
    !path.isAbsolute(out) &&
    (out.includes('/') || out.includes('\\'))
  ) {
    out = path.join(ctx.workspaceFolder, out);
  }
  return out;
}

/** Resolves the interpreter: the setting, else the Python extension's, else python3. */
export function resolveSettings(raw: RawSettings, ctx: ResolveContext = {}): Settings {
  if (typeof raw.interpreter === 'string' && raw.interpreter.trim()) {
    return { interpreter: expandPath(raw.interpreter, ctx), interpreterSource: 'setting' };
  }
  if (ctx.pythonExtensionInterpreter && ctx.pythonExtensionInterpreter.trim()) {
    return { interpreter: ctx.pythonExtensionInterpreter.trim(), interpreterSource: 'python-extension' };
  }
  return { interpreter: DEFAULT_INTERPRETER, interpreterSource: 'default' };
}

export type InterpreterProblem =
  /** cannot be started at all */
  | { kind: 'not-found'; detail: string }
  /** runs, but is older than Python 3.10 */
  | { kind: 'too-old'; detail: string }
  /** runs, but the server does not import (a damaged installation of the extension) */
  | { kind: 'broken'; detail: string };

const CHOOSE =
  'Set "autodd.interpreter" to a Python 3.10 or newer (for example /usr/bin/python3), ' +
  'or select one with the Python extension; nothing needs to be installed in it.';

/** The message shown when the interpreter cannot run the server, with what to do. */
export function interpreterProblemMessage(interpreter: string, problem: InterpreterProblem): string {
  switch (problem.kind) {
    case 'not-found':
      return `AutoDD: cannot run the Python interpreter "${interpreter}" (${problem.detail}). ${CHOOSE}`;
    case 'too-old':
      return `AutoDD: "${interpreter}" is ${problem.detail}; AutoDD needs Python 3.10 or newer. ${CHOOSE}`;
    default:
      return (
        `AutoDD: the language server bundled with this extension does not start with "${interpreter}" ` +
        `(${problem.detail}). Reinstall the extension, or ${CHOOSE.charAt(0).toLowerCase()}${CHOOSE.slice(1)}`
      );
  }
}
