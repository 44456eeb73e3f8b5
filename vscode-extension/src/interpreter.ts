// Checks, before starting the server, that the interpreter can run the bundled
// server: `<interpreter> bundled/tool/autodd_server.py --check` (see that file).

import { execFile } from 'node:child_process';
import type { InterpreterProblem } from './settings';

/** Exit status of the entry script for a Python older than 3.10. */
const TOO_OLD = 3;

export interface InterpreterCheck {
  /** The entry script's JSON line: which copy of autodd-lsp it will use, and why. */
  choice?: { pythonVersion?: string; bundled?: string | null; user?: string | null; using?: string };
  /** Its stderr line describing the choice, for the log. */
  description: string;
  problem?: InterpreterProblem;
}

export function checkInterpreter(
  interpreter: string,
  entryScript: string,
  cwd?: string,
  timeoutMs = 60_000,
): Promise<InterpreterCheck> {
  return new Promise((resolve) => {
    execFile(
      interpreter,
      [entryScript, '--check'],
      { cwd, timeout: timeoutMs, windowsHide: true },
      (err, stdout, stderr) => {
        const description = String(stderr).trim();
        let choice: InterpreterCheck['choice'];
        try {
          choice = JSON.parse(String(stdout).trim().split('\n').pop() ?? '') as InterpreterCheck['choice'];
        } catch {
          choice = undefined;
        }
        if (!err) return resolve({ choice, description });
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES') {
          const detail = code === 'ENOENT' ? 'not found' : 'not executable';
          return resolve({ description, problem: { kind: 'not-found', detail } });
        }
        if ((err as { killed?: boolean }).killed) {
          const detail = `no answer within ${timeoutMs / 1000} s`;
          return resolve({ description, problem: { kind: 'not-found', detail } });
        }
        if ((err as { code?: unknown }).code === TOO_OLD) {
          const version = choice?.pythonVersion ? `Python ${choice.pythonVersion}` : 'too old a Python';
          return resolve({ choice, description, problem: { kind: 'too-old', detail: version } });
        }
        // Python 2 and other odd interpreters fail on the script itself
        const lastLine = description.split('\n').pop() || `${err.name}: ${err.message}`;
        resolve({ choice, description, problem: { kind: 'broken', detail: lastLine } });
      },
    );
  });
}
