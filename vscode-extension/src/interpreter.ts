// Checks, before starting the server, that the interpreter exists and has autodd_lsp.

import { execFile } from 'node:child_process';
import type { InterpreterProblem } from './settings';

/** Runs `<interpreter> -c "import autodd_lsp"`; resolves undefined when it works. */
export function checkInterpreter(
  interpreter: string,
  cwd?: string,
  timeoutMs = 60_000,
): Promise<InterpreterProblem | undefined> {
  return new Promise((resolve) => {
    execFile(
      interpreter,
      ['-c', 'import autodd_lsp, autodd_lsp.server'],
      { cwd, timeout: timeoutMs, windowsHide: true },
      (err, _stdout, stderr) => {
        if (!err) return resolve(undefined);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES') {
          return resolve({ kind: 'not-found', detail: code === 'ENOENT' ? 'not found' : 'not executable' });
        }
        if ((err as { killed?: boolean }).killed) {
          return resolve({ kind: 'not-found', detail: `no answer within ${timeoutMs / 1000} s` });
        }
        const lastLine = String(stderr).trim().split('\n').pop() ?? String(err);
        resolve({ kind: 'missing-package', detail: lastLine });
      },
    );
  });
}
