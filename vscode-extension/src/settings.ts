// Resolving the `autodd.*` settings into what the server is started and driven with.
// Pure module (no `vscode` import): the VS Code side reads the raw values and
// passes them in; unit tests call these functions directly.

import * as os from 'node:os';
import * as path from 'node:path';
import type { Backend, OutputMode } from './protocol';

export const DEFAULT_INTERPRETER = 'python3';

export interface RawSettings {
  interpreter?: unknown;
  backend?: unknown;
  timeout?: unknown;
  jobs?: unknown;
  output?: unknown;
}

export interface Settings {
  /** Interpreter that runs the server and the candidates. */
  interpreter: string;
  /** Where the interpreter came from, for the logs. */
  interpreterSource: 'setting' | 'python-extension' | 'default';
  backend: Backend;
  timeout: number;
  jobs: number;
  output: OutputMode;
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

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : fallback;
}

/** Applies defaults and bounds to the raw `autodd.*` values. */
export function resolveSettings(raw: RawSettings, ctx: ResolveContext = {}): Settings {
  let interpreter = DEFAULT_INTERPRETER;
  let interpreterSource: Settings['interpreterSource'] = 'default';
  if (typeof raw.interpreter === 'string' && raw.interpreter.trim()) {
    interpreter = expandPath(raw.interpreter, ctx);
    interpreterSource = 'setting';
  } else if (ctx.pythonExtensionInterpreter && ctx.pythonExtensionInterpreter.trim()) {
    interpreter = ctx.pythonExtensionInterpreter.trim();
    interpreterSource = 'python-extension';
  }
  const timeout =
    typeof raw.timeout === 'number' && Number.isFinite(raw.timeout) && raw.timeout > 0
      ? raw.timeout
      : 60;
  const jobs =
    typeof raw.jobs === 'number' && Number.isFinite(raw.jobs) && raw.jobs >= 1
      ? Math.floor(raw.jobs)
      : 1;
  return {
    interpreter,
    interpreterSource,
    backend: oneOf<Backend>(raw.backend, ['runner', 'subproc'], 'runner'),
    timeout,
    jobs,
    output: oneOf<OutputMode>(raw.output, ['beside', 'inPlace'], 'beside'),
  };
}

export type InterpreterProblem =
  | { kind: 'not-found'; detail: string }
  | { kind: 'missing-package'; detail: string };

/** The message shown when the interpreter cannot run the server, with the fix. */
export function interpreterProblemMessage(interpreter: string, problem: InterpreterProblem): string {
  if (problem.kind === 'not-found') {
    return (
      `AutoDD: cannot run the Python interpreter "${interpreter}" (${problem.detail}). ` +
      'Set "autodd.interpreter" to a Python 3.10+ interpreter, or select one with the Python extension.'
    );
  }
  return (
    `AutoDD: the interpreter "${interpreter}" does not have the autodd_lsp package. ` +
    `Install it with: ${quoteArg(interpreter)} -m pip install autodd-lsp ` +
    `(or, from a checkout of the AutoDD repository: ${quoteArg(interpreter)} -m pip install -e <repo>), ` +
    'then run "AutoDD: Restart server", or point "autodd.interpreter" at an environment that has it.'
  );
}

/** Quotes a command-line argument for a POSIX shell when it needs it. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
