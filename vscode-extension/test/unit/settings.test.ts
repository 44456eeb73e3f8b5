import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_INTERPRETER,
  expandPath,
  interpreterProblemMessage,
  quoteArg,
  resolveSettings,
} from '../../src/settings';

describe('resolveSettings', () => {
  it('uses the documented defaults', () => {
    assert.deepEqual(resolveSettings({}), {
      interpreter: DEFAULT_INTERPRETER,
      interpreterSource: 'default',
      backend: 'runner',
      timeout: 60,
      jobs: 1,
      output: 'beside',
    });
  });

  it('prefers the setting, then the Python extension, then python3', () => {
    const ctx = { pythonExtensionInterpreter: '/envs/tl/bin/python' };
    assert.equal(resolveSettings({ interpreter: '/usr/bin/python3.12' }, ctx).interpreter, '/usr/bin/python3.12');
    assert.equal(resolveSettings({ interpreter: '/usr/bin/python3.12' }, ctx).interpreterSource, 'setting');
    assert.equal(resolveSettings({ interpreter: '' }, ctx).interpreter, '/envs/tl/bin/python');
    assert.equal(resolveSettings({ interpreter: '  ' }, ctx).interpreterSource, 'python-extension');
    assert.equal(resolveSettings({ interpreter: '' }, {}).interpreter, 'python3');
  });

  it('keeps valid values and replaces invalid ones by defaults', () => {
    const s = resolveSettings({ backend: 'subproc', timeout: 5.5, jobs: 3.7, output: 'inPlace' });
    assert.equal(s.backend, 'subproc');
    assert.equal(s.timeout, 5.5);
    assert.equal(s.jobs, 3);
    assert.equal(s.output, 'inPlace');
    const bad = resolveSettings({ backend: 'exec', timeout: -1, jobs: 0, output: 'elsewhere' });
    assert.equal(bad.backend, 'runner');
    assert.equal(bad.timeout, 60);
    assert.equal(bad.jobs, 1);
    assert.equal(bad.output, 'beside');
    assert.equal(resolveSettings({ timeout: '10' as unknown }).timeout, 60);
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
  it('gives the install command for a missing package', () => {
    const text = interpreterProblemMessage('/opt/py/bin/python', {
      kind: 'missing-package',
      detail: "ModuleNotFoundError: No module named 'autodd_lsp'",
    });
    assert.match(text, /does not have the autodd_lsp package/);
    assert.match(text, /\/opt\/py\/bin\/python -m pip install autodd-lsp/);
    assert.match(text, /pip install -e <repo>/);
  });
  it('says when the interpreter cannot be run', () => {
    const text = interpreterProblemMessage('nope', { kind: 'not-found', detail: 'not found' });
    assert.match(text, /cannot run the Python interpreter "nope" \(not found\)/);
    assert.match(text, /autodd\.interpreter/);
  });
  it('quotes paths with spaces for the shell', () => {
    assert.equal(quoteArg('/a b/python'), "'/a b/python'");
    assert.equal(quoteArg("it's"), "'it'\\''s'");
    assert.equal(quoteArg('/usr/bin/python3'), '/usr/bin/python3');
  });
});
