// The interpreter selected in the Python extension (ms-python.python), if installed.
// Uses the extension's public API through `vscode.extensions` (no npm dependency):
// `environments.getActiveEnvironmentPath` / `resolveEnvironment`, with the older
// `settings.getExecutionDetails` as a fallback.

import * as vscode from 'vscode';
import { logger } from './log';

const PYTHON_EXTENSION_ID = 'ms-python.python';

interface EnvironmentPath {
  id: string;
  path: string;
}

interface ResolvedEnvironment {
  executable?: { uri?: vscode.Uri };
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri | vscode.WorkspaceFolder): EnvironmentPath;
    resolveEnvironment(env: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) return undefined;
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch (err) {
    logger().warn(`Python extension could not be activated: ${String(err)}`);
    return undefined;
  }
}

/** The interpreter path the Python extension has selected for `resource`, if any. */
export async function pythonExtensionInterpreter(
  resource?: vscode.Uri,
): Promise<string | undefined> {
  const api = await pythonApi();
  if (!api) return undefined;
  try {
    if (api.environments) {
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(active);
      const exe = resolved?.executable?.uri?.fsPath;
      if (exe) return exe;
    }
    const cmd = api.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (cmd && cmd.length > 0 && cmd[0]) return cmd[0];
  } catch (err) {
    logger().warn(`Could not read the interpreter from the Python extension: ${String(err)}`);
  }
  return undefined;
}

/** Calls `listener` when the Python extension's selected interpreter changes. */
export async function onPythonInterpreterChanged(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  const event =
    api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
  return event ? event(() => listener()) : undefined;
}

/**
 * "Choose interpreter": the Python extension's picker when it is installed (an empty
 * `autodd.interpreter` follows its selection), else the `autodd.interpreter` setting.
 */
export async function chooseInterpreter(): Promise<void> {
  const configured = vscode.workspace.getConfiguration('autodd').get<string>('interpreter', '').trim();
  if (!configured && vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
    await vscode.commands.executeCommand('python.setInterpreter');
  } else {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'autodd.interpreter');
  }
}
