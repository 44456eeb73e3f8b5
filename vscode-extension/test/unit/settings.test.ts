import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_INTERPRETER,
  expandPath,
  interpreterProblemMessage,
  resolveSettings,
  runOptions,
  userValue,
} from '../../src/settings';

describe('resolveSettings', () => {
  it('defaults to python3', () => {
    assert.deepEqual(resolveSettings({}), { interpreter: DEFAULT_INTERPRETER, interpreterSource: 'default' });
  });

  it('prefers the setting, then the Python extension, then python3', () => {
    const ctx = { pythonExtensionInterpreter: '/envs/tl/bin/python' };
    assert.equal(resolveSettings({ interpreter: '/usr/bin/python3.12' }, ctx).interpreter, '/usr/bin/python3.12');
    assert.equal(resolveSettings({ interpreter: '/usr/bin/python3.12' }, ctx).interpreterSource, 'setting');
    assert.equal(resolveSettings({ interpreter: '' }, ctx).interpreter, '/envs/tl/bin/python');
    assert.equal(resolveSettings({ interpreter: '  ' }, ctx).interpreterSource, 'python-extension');
    assert.equal(resolveSettings({ interpreter: '' }, {}).interpreter, 'python3');
  });
});

describe('runOptions', () => {
  const inspected: Record<string, { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }> = {
    timeout: { globalValue: 20 },
    match: { workspaceValue: 'substring' },
    keepImports: { globalValue: true, workspaceFolderValue: false },
    repeat: {}, // only the default: not sent
  };
  it('sends exactly the settings the user set, folder over workspace over user', () => {
    assert.deepEqual(runOptions((key) => inspected[key]), { timeout: 20, match: 'substring', keepImports: false });
    assert.deepEqual(runOptions(() => undefined), {});
  });
  it('passes bad values through unchanged, for the server to judge', () => {
    assert.deepEqual(runOptions((key) => (key === 'timeout' ? { globalValue: -1 } : key === 'repeat' ? { globalValue: 'x' } : undefined)), {
      timeout: -1,
      repeat: 'x',
    });
  });
  it('sends the program arguments as set and stdin made absolute against the workspace folder', () => {
    const set = (values: Record<string, unknown>) => (key: string) =>
      key in values ? { workspaceValue: values[key] } : undefined;
    assert.deepEqual(runOptions(set({ args: ['--size', '3'], stdin: 'data/in.txt' }), '/w'), {
      args: ['--size', '3'],
      stdin: '/w/data/in.txt',
    });
    assert.deepEqual(runOptions(set({ stdin: 'in.txt' }), '/w'), { stdin: '/w/in.txt' });
    assert.deepEqual(runOptions(set({ stdin: '/abs/in.txt' }), '/w'), { stdin: '/abs/in.txt' });
    assert.deepEqual(runOptions(set({ stdin: '' }), '/w'), { stdin: '' });
    assert.deepEqual(runOptions(set({ stdin: 'in.txt' })), { stdin: 'in.txt' }, 'no folder: as written, for the server');
  });
  it('reads each setting from the most specific scope that has it', () => {
    assert.equal(userValue({ globalValue: 1, workspaceValue: 2 }), 2);
    assert.equal(userValue({ globalValue: 1 }), 1);
    assert.equal(userValue(undefined), undefined);
  });
});

describe('expandPath', () => {
  const ctx = { workspaceFolder: '/ws', homeDir: '/home/u', env: { VENV: '/v' } };
  it('expands variables and ~', () => {
    assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', ctx), '/ws/.venv/bin/python');
    assert.equal(expandPath('~/envs/x/bin/python', ctx), '/home/u/envs/x/bin/python');
    assert.equal(expandPath('${userHome}/p', ctx), '/home/u/p');
    assert.equal(expandPath('${env:VENV}/bin/python', ctx), '/v/bin/python');
  });
  it('resolves relative paths against the workspace, leaves bare commands alone', () => {
    assert.equal(expandPath('.venv/bin/python', ctx), '/ws/.venv/bin/python');
    assert.equal(expandPath('python3', ctx), 'python3');
    assert.equal(expandPath('/abs/python', ctx), '/abs/python');
  });
});

describe('interpreterProblemMessage', () => {
  it('says when the interpreter cannot be run, and that nothing needs installing', () => {
    const text = interpreterProblemMessage('nope', { kind: 'not-found', detail: 'not found' });
    assert.match(text, /cannot run the Python interpreter "nope" \(not found\)/);
    assert.match(text, /Set "autodd\.interpreter" to a Python 3\.10 or newer/);
    assert.match(text, /nothing needs to be installed in it/);
    assert.doesNotMatch(text, /pip install/);
  });
  it('names the version of a too old Python', () => {
    const text = interpreterProblemMessage('/usr/bin/python3.8', { kind: 'too-old', detail: 'Python 3.8.10' });
    assert.match(text, /"\/usr\/bin\/python3\.8" is Python 3\.8\.10; AutoDD needs Python 3\.10 or newer/);
  });
  it('tells to reinstall when the bundled server does not start', () => {
    const text = interpreterProblemMessage('python3', { kind: 'broken', detail: "ModuleNotFoundError: No module named 'pygls'" });
    assert.match(text, /Reinstall the extension/);
    assert.match(text, /No module named 'pygls'/);
  });
});
