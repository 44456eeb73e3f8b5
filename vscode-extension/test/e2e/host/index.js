// Extension-host tests: loaded by VS Code (code-server) through `extensionTestsPath`;
// `run()` executes inside the real extension host with the extension under
// development loaded. Each check's outcome is written to a JSON file that the
// driver (test/e2e/driver.mjs) reads, because a browser-hosted workbench gives
// the test runner's exit code to nobody.
//
// Environment (inherited from code-server): AUTODD_E2E_HOST_RESULTS (where to
// write), AUTODD_E2E_HOST_ONLY (comma-separated check names to run, optional),
// AUTODD_E2E_SKIP_SERVER=1 (only activation checks: for the plumbing self-test).

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const EXTENSION_ID = 'autodd.autodd-vscode';
const CLIENT_COMMANDS = [
  'autodd-vscode.minimize',
  'autodd-vscode.minimizeWithArguments',
  'autodd-vscode.cancel',
  'autodd-vscode.freeze',
  'autodd-vscode.unfreeze',
  'autodd-vscode.showLogs',
  'autodd-vscode.restart',
];
const SERVER_COMMANDS = [
  'autodd.minimize',
  'autodd.suggestErrMsg',
  'autodd.cancel',
  'autodd.freeze',
  'autodd.unfreeze',
  'autodd.writeReport',
  'autodd.writeTest',
  'autodd.tryWithout',
];
const RESULT_LENSES = ['Open diff', 'Copy bug report', 'Write regression test', 'Run again'];

/** Titles of the code lenses VS Code itself collects for a document (every provider). */
async function lensTitles(uri) {
  const lenses = (await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri)) ?? [];
  return lenses.map((l) => l.command?.title ?? '');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, timeoutMs = 30000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
}

function workspaceFile(name) {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, name);
}

async function open(name) {
  const doc = await vscode.workspace.openTextDocument(workspaceFile(name));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  return { doc, editor };
}

exports.run = async function run() {
  const resultFile =
    process.env.AUTODD_E2E_HOST_RESULTS ||
    path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '/tmp', '..', 'host-results.json');
  const only = (process.env.AUTODD_E2E_HOST_ONLY || '').split(',').filter(Boolean);
  const skipServer = process.env.AUTODD_E2E_SKIP_SERVER === '1';
  const results = [];
  const write = (done) =>
    fs.writeFileSync(resultFile, JSON.stringify({ done, results }, null, 2));
  write(false);

  async function check(name, fn) {
    if (only.length && !only.includes(name)) return;
    const started = Date.now();
    try {
      await fn();
      results.push({ name, ok: true, ms: Date.now() - started });
    } catch (err) {
      results.push({ name, ok: false, ms: Date.now() - started, error: String(err?.stack ?? err) });
    }
    write(false);
  }

  let api;
  await check('host: extension activates on a Python file', async () => {
    await open('plain.py');
    const ext = await waitFor('the extension', () => vscode.extensions.getExtension(EXTENSION_ID), 10000);
    api = await waitFor('activation', async () => (ext.isActive ? ext.exports : await ext.activate()), 20000);
    assert.ok(ext.isActive, 'extension is active');
    assert.ok(ext.extensionPath, 'extension has a path');
  });

  await check('host: client commands are registered', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of CLIENT_COMMANDS) assert.ok(commands.includes(id), `command ${id} registered`);
  });

  if (!skipServer) {
    await check('host: language server starts and registers its commands', async () => {
      assert.ok(api, 'extension API');
      assert.equal(await api.ready, true, 'server start succeeded (see the AutoDD log)');
      assert.ok(api.isServerRunning(), 'server running');
      const commands = await vscode.commands.getCommands(true);
      for (const id of SERVER_COMMANDS) assert.ok(commands.includes(id), `server command ${id} registered`);
    });

    await check('host: the status bar item shows the server ready and its interpreter', async () => {
      const shown = await waitFor('a ready status', () => (api.statusBar().text === '$(check) AutoDD' ? api.statusBar() : undefined), 10000);
      assert.match(shown.tooltip, /^AutoDD: ready\nPython: \S+/, shown.tooltip);
    });

    await check('host: candidate files (.autodd-*) are hidden from the Explorer, file watchers and search', async () => {
      for (const section of ['files.exclude', 'files.watcherExclude', 'search.exclude']) {
        const [head, key] = section.split('.');
        const value = vscode.workspace.getConfiguration(head).get(key) ?? {};
        assert.equal(value['**/.autodd-*'], true, `${section}: ${JSON.stringify(value)}`);
      }
      // the contributed default is merged with VS Code's own, not in its place
      assert.equal(vscode.workspace.getConfiguration('files').get('exclude')['**/.git'], true);
    });

    await check('host: a freeze-marker error stops "Minimize this failure" before anything runs, at its line', async () => {
      const { doc } = await open('marker_runs.py');
      const ran = workspaceFile('marker_ran.txt');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', doc.uri);
      assert.equal(result, undefined, `stopped before a run: ${JSON.stringify(result)}`);
      assert.equal(fs.existsSync(ran.fsPath), false, 'the program was not run (no probe)');
      assert.equal(api.activeRuns(), 0);
      const editor = await waitFor('the cursor on the marker error', () => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.toString() === doc.uri.toString() && e.selection.active.line === 3 ? e : undefined;
      }, 10000);
      assert.equal(editor.selection.active.character, 0);
    });

    await check('host: autodd.suggestErrMsg offers the crash of crashing.py; minimizing with its arguments keeps it', async () => {
      const { doc } = await open('crashing.py');
      const suggested = await vscode.commands.executeCommand('autodd.suggestErrMsg', { uri: doc.uri.toString() });
      const crash = (suggested?.failures ?? []).find((f) => f.arguments?.crash === 'SIGSEGV');
      assert.ok(crash, `a SIGSEGV failure offered: ${JSON.stringify(suggested)}`);
      assert.equal(crash.title, 'killed by SIGSEGV');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, failure: crash.arguments });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      assert.ok(result.final.lines < result.original.lines, JSON.stringify(result));
      const disk = fs.readFileSync(vscode.Uri.parse(result.outputUri).fsPath, 'utf8');
      assert.match(disk, /string_at/);
      assert.doesNotMatch(disk, /unused_helper/);
    });

    await check('host: diagnostics for a bad freeze marker', async () => {
      const { doc } = await open('bad_freeze.py');
      const diags = await waitFor('autodd diagnostics', () => {
        const d = vscode.languages.getDiagnostics(doc.uri).filter((x) => x.source === 'autodd');
        return d.length ? d : undefined;
      });
      assert.ok(diags.some((d) => d.range.start.line === 1), `a diagnostic on the freeze-start line: ${JSON.stringify(diags)}`);
    });

    await check('host: frozen regions arrive for decoration', async () => {
      const { doc } = await open('frozen.py');
      const ranges = await waitFor('frozen regions', () => {
        const r = api.frozenRegions(doc.uri);
        return r.length ? r : undefined;
      });
      assert.ok(ranges.some((r) => r.start.line <= 2 && r.end.line >= 2), `region covers line 3: ${JSON.stringify(ranges)}`);
    });

    await check('host: freeze and unfreeze selection change the document', async () => {
      const { doc, editor } = await open('plain.py');
      const original = doc.getText();
      editor.selection = new vscode.Selection(1, 0, 3, 0); // lines 2-3
      const applied = await vscode.commands.executeCommand('autodd-vscode.freeze');
      assert.equal(applied, true, 'freeze applied');
      const frozen = await waitFor('the freeze edit', () => (doc.getText() !== original ? doc.getText() : undefined), 10000);
      assert.match(frozen, /autodd: freeze|__freeze__/, 'a freeze marker was added');
      await waitFor('frozen regions after freeze', () => api.frozenRegions(doc.uri).length > 0, 10000);
      // Select the frozen lines again (they may have moved) and unfreeze them.
      const lines = frozen.split('\n');
      const first = lines.findIndex((l) => /autodd: freeze|__freeze__/.test(l));
      let last = first;
      for (let i = first; i < lines.length; i++) if (/autodd: (end-freeze|freeze)|__freeze__/.test(lines[i])) last = i;
      editor.selection = new vscode.Selection(first, 0, Math.min(last + 1, doc.lineCount - 1), 0);
      const unapplied = await vscode.commands.executeCommand('autodd-vscode.unfreeze');
      assert.equal(unapplied, true, 'unfreeze applied');
      const after = await waitFor('the unfreeze edit', () => (doc.getText() !== frozen ? doc.getText() : undefined), 10000);
      assert.doesNotMatch(after, /autodd: freeze|__freeze__/, 'markers removed');
      assert.equal(after, original, 'unfreeze restores the original text');
      await vscode.commands.executeCommand('workbench.action.files.revert');
    });

    await check('host: the "Minimize this failure" code action runs the VS Code flow', async () => {
      const { doc } = await open('failing.py');
      const actions = await waitFor('code actions', async () => {
        const a = await vscode.commands.executeCommand(
          'vscode.executeCodeActionProvider',
          doc.uri,
          new vscode.Range(0, 0, 0, 0),
        );
        return a && a.some((x) => /Minimize/.test(x.title)) ? a : undefined;
      }, 15000);
      const minimize = actions.find((x) => /Minimize/.test(x.title));
      const command = minimize.command?.command ?? minimize.command;
      assert.equal(command, 'autodd-vscode.minimize', `rerouted: ${JSON.stringify(minimize)}`);
      assert.equal(String(minimize.command.arguments?.[0]), String(doc.uri));
    });

    let firstRun;
    await check('host: minimize (errMsg given) streams a smaller .min.py and settles it', async () => {
      const { doc } = await open('failing.py');
      const originalLines = doc.lineCount;
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', {
        uri: doc.uri,
        errMsg: 'shape mismatch',
      });
      assert.ok(result, 'minimize returned a result');
      assert.equal(result.status, 'done', `status done: ${JSON.stringify(result)}`);
      assert.match(result.runId ?? '', /\S/, 'the run had a runId');
      assert.ok(result.outputUri && result.outputUri.endsWith('failing.min.py'), `output beside: ${result.outputUri}`);
      assert.ok(result.final.lines < result.original.lines, `smaller: ${JSON.stringify(result)}`);
      const out = vscode.Uri.parse(result.outputUri);
      const disk = fs.readFileSync(out.fsPath, 'utf8');
      assert.ok(disk.split('\n').length < originalLines, 'the file on disk is smaller');
      assert.match(disk, /shape mismatch/);
      const outDoc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === out.toString());
      if (outDoc) {
        assert.equal(outDoc.isDirty, false, 'the result document is not left dirty');
        assert.equal(outDoc.getText(), disk, 'the result document matches the disk');
      }
      assert.equal(doc.getText().split('\n').length, originalLines, 'the source is untouched');
      firstRun = result;
    });

    await check('host: autodd/progress of the run arrives with its structured fields', async () => {
      assert.ok(firstRun, 'the minimize check ran');
      const { progress } = api.runEvents(firstRun.runId);
      assert.ok(progress.length > 0, 'at least one autodd/progress');
      for (const p of progress) {
        assert.equal(p.runId, firstRun.runId);
        assert.equal(typeof p.pass, 'string');
        assert.ok(p.size.lines <= p.original.lines && p.size.nodes <= p.original.nodes, `sizes: ${JSON.stringify(p)}`);
        assert.ok(p.percentage >= 0 && p.percentage <= 100, `percentage ${p.percentage}`);
        assert.ok(Number.isInteger(p.candidates) && p.candidates >= 0, `candidates ${p.candidates}`);
      }
      assert.deepEqual(progress[0].original, firstRun.original, 'progress starts from the original size');
      const lines = progress.map((p) => p.size.lines);
      assert.ok(Math.min(...lines) < firstRun.original.lines, `the file shrank during the run: ${lines}`);
    });

    await check('host: the finished run keeps its code lenses on the reproducer', async () => {
      assert.ok(firstRun, 'the minimize check ran');
      const out = vscode.Uri.parse(firstRun.outputUri);
      await vscode.window.showTextDocument(out, { preview: false });
      const titles = await waitFor('the result lenses', async () => {
        const t = await lensTitles(out);
        return RESULT_LENSES.every((want) => t.includes(want)) ? t : undefined;
      }, 10000);
      assert.ok(titles.some((t) => /AutoDD: \d+ → \d+ lines/.test(t)), `a summary lens: ${titles}`);
      const source = workspaceFile('failing.py');
      assert.deepEqual((await lensTitles(source)).filter((t) => /AutoDD|Run again/.test(t)), [], 'no lens on the source of a good run');
    });

    await check('host: "Copy bug report" writes the report and copies it; "Write regression test" writes the test', async () => {
      assert.ok(firstRun, 'the minimize check ran');
      await vscode.env.clipboard.writeText('');
      const reportPath = await vscode.commands.executeCommand('autodd-vscode.copyReport', firstRun.outputUri);
      try {
        assert.ok(reportPath && fs.existsSync(reportPath), `report written: ${reportPath}`);
        assert.match(path.basename(reportPath), /^failing\.report\.md$/);
        const text = fs.readFileSync(reportPath, 'utf8');
        assert.equal(await vscode.env.clipboard.readText(), text, 'the clipboard holds the report');
        assert.match(text, /shape mismatch/);
      } finally {
        if (reportPath) fs.rmSync(reportPath, { force: true });
      }
      const testPath = await vscode.commands.executeCommand('autodd-vscode.writeTest', firstRun.outputUri);
      try {
        assert.ok(testPath && fs.existsSync(testPath), `test written: ${testPath}`);
        assert.match(fs.readFileSync(testPath, 'utf8'), /def test_/);
        assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, testPath, 'the test is opened');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        if (testPath) fs.rmSync(testPath, { force: true });
      }
    });

    await check('host: an engine notice arrives as a warning (autodd/notice)', async () => {
      const { doc } = await open('uses_helper.py');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'shape mismatch' });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      const { notices } = api.runEvents(result.runId);
      const inlined = notices.find((n) => /inlined shapes_helper\.py/.test(n.message));
      assert.ok(inlined, `the inlining notice: ${JSON.stringify(notices)}`);
      assert.equal(inlined.level, 'warning');
      assert.equal(inlined.runId, result.runId);
    });

    // The user in the loop: an edit of the reproducer during a run is offered to the engine.
    await check('host: an edit of the reproducer that loses the failure is undone with a diagnostic saying why', async () => {
      const { doc } = await open('loop_slow.py');
      const outUri = workspaceFile('loop_slow.min.py');
      const running = vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'slow-sentinel' });
      const out = await waitFor('a streamed edit of the reproducer', () => {
        const d = vscode.workspace.textDocuments.find((x) => x.uri.toString() === outUri.toString());
        return d && !d.getText().includes('junk') && d.getText().includes('x3 = 3\n') ? d : undefined;
      }, 120000);
      const line = out.getText().split('\n').indexOf('x3 = 3');
      const busy = await waitFor('the status bar item showing the run', () => {
        const t = api.statusBar().text;
        return /AutoDD: \d+ → \d+ lines/.test(t) ? t : undefined;
      }, 10000);
      const edit = new vscode.WorkspaceEdit();
      edit.delete(out.uri, new vscode.Range(line, 0, line + 1, 0));
      assert.equal(await vscode.workspace.applyEdit(edit), true, 'the edit applied');
      const lost = await waitFor('the "lost the failure" diagnostic', () =>
        vscode.languages.getDiagnostics(out.uri).find((d) => d.source === 'autodd' && /lost the failure/.test(d.message)), 60000);
      assert.match(lost.message, /NameError: name 'x3' is not defined/);
      await waitFor('the best text restored', () => out.getText().includes('x3 = 3\n'), 30000);
      assert.equal(out.getText().split('\n')[lost.range.start.line], 'x3 = 3', 'the diagnostic is where the edit was');
      await vscode.commands.executeCommand('autodd-vscode.cancel', doc.uri);
      const result = await running;
      assert.equal(result?.status, 'cancelled', JSON.stringify(result));
      assert.match(fs.readFileSync(outUri.fsPath, 'utf8'), /x3 = 3/);
      // the warning was the run's: gone with it, from the Problems count too
      await waitFor('the run\'s warning to go', () =>
        !vscode.languages.getDiagnostics(out.uri).some((d) => d.source === 'autodd'), 5000);
      assert.equal(api.statusBar().text, '$(check) AutoDD', `status after the run (during it: ${busy})`);
    });

    await check('host: hovering a kept line of a finished reproducer says why; "Try without this line" reports the verdict', async () => {
      const { doc } = await open('loop_kept.py');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'loop-sentinel: too many values' });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      const out = vscode.Uri.parse(result.outputUri);
      const outDoc = await vscode.workspace.openTextDocument(out);
      await vscode.window.showTextDocument(outDoc, { preview: false });
      const line = outDoc.getText().split('\n').findIndex((l) => l.startsWith('data = '));
      assert.ok(line >= 0, `a data line: ${outDoc.getText()}`);
      const hover = await waitFor('the hover', async () => {
        const found = await vscode.commands.executeCommand('vscode.executeHoverProvider', out, new vscode.Position(line, 1));
        const text = (found ?? []).flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
        return /AutoDD/.test(text) ? text : undefined;
      }, 15000);
      assert.match(hover, /NameError: name 'data' is not defined/);
      const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', out, new vscode.Range(line, 0, line, 0));
      const tryIt = (actions ?? []).find((a) => a.title === 'AutoDD: Try without this line');
      assert.ok(tryIt?.command, `the action: ${JSON.stringify((actions ?? []).map((a) => a.title))}`);
      const verdict = await vscode.commands.executeCommand(tryIt.command.command, ...(tryIt.command.arguments ?? []));
      assert.equal(verdict?.interesting, false, JSON.stringify(verdict));
      assert.match(verdict.outcome, /NameError: name 'data' is not defined/);
      const note = await waitFor('the note on the line', () =>
        vscode.languages.getDiagnostics(out).find((d) => d.source === 'autodd' && /without this line/.test(d.message)), 10000);
      assert.equal(note.range.start.line, line);
      assert.equal(outDoc.getText(), fs.readFileSync(out.fsPath, 'utf8'), 'the reproducer is unchanged');
    });

    await check('host: "Minimize with arguments…" runs a program that needs --size 3, trial run included', async () => {
      const { doc } = await open('needs_args.py');
      // no failure given: the trial run (with the arguments) offers its error line, accepted below
      const pending = vscode.commands.executeCommand('autodd-vscode.minimizeWithArguments', {
        uri: doc.uri,
        args: ['--size', '3'],
      });
      let settled = false;
      const result = pending.then((r) => ((settled = true), r), (e) => ((settled = true), Promise.reject(e)));
      while (!settled && api.activeRuns() === 0) {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        await sleep(300);
      }
      const done = await result;
      assert.equal(done?.status, 'done', JSON.stringify(done));
      assert.ok(done.final.lines < done.original.lines, JSON.stringify(done));
      const disk = fs.readFileSync(vscode.Uri.parse(done.outputUri).fsPath, 'utf8');
      // the kept failure is the bug that only --size 3 reaches, not argparse's refusal
      assert.match(disk, /tile index out of range/);
      assert.match(disk, /--size/);
      assert.doesNotMatch(disk, /unused_helper/);
    });

    await check('host: a run with the check kind keeps what the command says', async () => {
      const { doc } = await open('failing.py');
      const python = vscode.workspace.getConfiguration('autodd').get('interpreter') || 'python3';
      const command = `"${python}" {} 2>&1 | grep -q "shape mismatch"`;
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, failure: { check: command } });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      assert.ok(result.final.lines < result.original.lines, JSON.stringify(result));
      const disk = fs.readFileSync(vscode.Uri.parse(result.outputUri).fsPath, 'utf8');
      assert.match(disk, /shape mismatch/);
      assert.doesNotMatch(disk, /unused_helper/);
    });

    await check('host: autodd.passesWith and autodd.passesWithEnv reach the server: the result passes with MYFLAG=1 and fails without', async () => {
      const { doc } = await open('flag_failing.py');
      const config = vscode.workspace.getConfiguration('autodd');
      const python = config.get('interpreter') || 'python3';
      const before = { with: config.inspect('passesWith')?.globalValue, env: config.inspect('passesWithEnv')?.globalValue };
      let result;
      try {
        await config.update('passesWith', python, vscode.ConfigurationTarget.Global);
        await config.update('passesWithEnv', ['MYFLAG=1'], vscode.ConfigurationTarget.Global);
        result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'flag mismatch' });
      } finally {
        await config.update('passesWith', before.with, vscode.ConfigurationTarget.Global);
        await config.update('passesWithEnv', before.env, vscode.ConfigurationTarget.Global);
      }
      assert.equal(result?.status, 'done', JSON.stringify(result));
      assert.match(result.message, /passes with \S+ with MYFLAG=1/, 'the server judged side A with both settings');
      const out = vscode.Uri.parse(result.outputUri).fsPath;
      const disk = fs.readFileSync(out, 'utf8');
      assert.match(disk, /MYFLAG/);
      assert.doesNotMatch(disk, /unused_helper/);
      const { spawnSync } = require('node:child_process');
      const run = (env) => spawnSync(python, [out], { cwd: path.dirname(out), env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000 });
      assert.equal(run({ MYFLAG: '1' }).status, 0, 'the result passes on side A');
      const failed = run({ MYFLAG: '' });
      assert.equal(failed.status, 1, failed.stderr);
      assert.match(failed.stderr, /flag mismatch/);
    });

    await check('host: a missing import of the program is the environment: its message, no quick pick, nothing run', async () => {
      const { doc } = await open('missing_module.py');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri });
      assert.equal(result?.status, 'failed', JSON.stringify(result));
      assert.equal(result.refused, true);
      assert.equal(result.environment?.module, 'autodd_missing_module_xyz', JSON.stringify(result));
      assert.match(result.message, /autodd_missing_module_xyz/);
      assert.equal(api.activeRuns(), 0);
      assert.ok(!fs.existsSync(workspaceFile('missing_module.min.py').fsPath), 'no reproducer written');
    });

    await check('host: a notebook is minimized from its file uri into <stem>.min.py', async () => {
      const uri = workspaceFile('nb_failing.ipynb');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri, errMsg: 'notebook shape mismatch' });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      assert.ok(result.outputUri?.endsWith('nb_failing.min.py'), result.outputUri);
      assert.ok(result.final.lines < result.original.lines, JSON.stringify(result));
      const disk = fs.readFileSync(vscode.Uri.parse(result.outputUri).fsPath, 'utf8');
      assert.match(disk, /notebook shape mismatch/);
      assert.doesNotMatch(disk, /unused_helper/);
    });

    await check("host: a notebook cell's uri stands for its notebook (opened in the notebook editor)", async () => {
      const notebook = await vscode.workspace.openNotebookDocument(workspaceFile('nb_failing.ipynb'));
      await vscode.window.showNotebookDocument(notebook);
      const cell = notebook.getCells().find((c) => c.kind === vscode.NotebookCellKind.Code);
      assert.equal(cell.document.uri.scheme, 'vscode-notebook-cell');
      const result = await vscode.commands.executeCommand('autodd-vscode.minimize', {
        uri: cell.document.uri,
        errMsg: 'notebook shape mismatch',
      });
      assert.equal(result?.status, 'done', JSON.stringify(result));
      assert.ok(result.outputUri?.endsWith('nb_failing.min.py'), result.outputUri);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    await check("host: a bad setting gives the server's one-line verdict; the next run clears that error", async () => {
      const { doc } = await open('failing.py');
      const config = vscode.workspace.getConfiguration('autodd');
      const before = config.inspect('timeout')?.globalValue;
      let failed;
      try {
        await config.update('timeout', -1, vscode.ConfigurationTarget.Global);
        failed = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'shape mismatch' });
      } finally {
        await config.update('timeout', before, vscode.ConfigurationTarget.Global);
      }
      assert.equal(failed?.status, 'failed', JSON.stringify(failed));
      assert.match(failed.message, /timeout/, 'the verdict names the setting');
      assert.doesNotMatch(failed.message, /\n/, 'one line');
      const errorLens = await waitFor('the error lens on the source', async () =>
        (await lensTitles(doc.uri)).find((t) => /last run failed/.test(t)), 10000);
      assert.match(errorLens, /timeout/);
      const again = await vscode.commands.executeCommand('autodd-vscode.minimize', { uri: doc.uri, errMsg: 'shape mismatch' });
      assert.equal(again?.status, 'done', JSON.stringify(again));
      assert.deepEqual((await lensTitles(doc.uri)).filter((t) => /failed/.test(t)), [], 'the error lens is gone');
    });

    await check('host: a bad interpreter stops the server; restoring it restarts', async () => {
      const config = vscode.workspace.getConfiguration('autodd');
      const before = config.inspect('interpreter')?.globalValue;
      try {
        await config.update('interpreter', '/nonexistent/bin/python', vscode.ConfigurationTarget.Global);
        await waitFor('the server to stop', () => !api.isServerRunning(), 20000);
        await sleep(1000);
        assert.equal(api.isServerRunning(), false, 'server not running with a missing interpreter');
        const status = await waitFor('the failed status', () => (api.statusBar().text === '$(error) AutoDD' ? api.statusBar() : undefined), 10000);
        assert.match(status.tooltip, /not running: .*\nPython: \/nonexistent\/bin\/python$/s, status.tooltip);
      } finally {
        await config.update('interpreter', before, vscode.ConfigurationTarget.Global);
      }
      await waitFor('the server to run again', () => api.isServerRunning(), 60000);
    });
  }

  write(true);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} extension-host check(s) failed`);
};
