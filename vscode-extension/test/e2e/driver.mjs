// Drives a running code-server with puppeteer-core and Debian's Chromium:
//   phase "host": opens the workbench with extensionDevelopmentPath/extensionTestsPath
//                 so test/e2e/host/index.js runs inside the real extension host, and
//                 collects its per-check results;
//   phase "ui":   the user's flow on the installed .vsix: a freeze diagnostic, "AutoDD:
//                 Minimize this failure" from the palette (quick pick), the .min.py
//                 shrinking live, the result message and "Open diff", the result's code
//                 lens once the messages are gone, a warning notice shown as a warning,
//                 an error from a bad setting hidden by the next run, then a run
//                 cancelled from the progress notification's Cancel button;
//   phase "kinds": a failure kept by another rule than its message, picked in the failure
//                 question ("keep this wrong answer" on a numpy program).
// Every check is appended to $E2E_CHECKS as "PASS|FAIL<TAB>name<TAB>detail";
// screenshots go to $E2E_RESULTS. Started by scripts/test-e2e.sh, which owns cleanup.

import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const env = process.env;
const PORT = Number(env.E2E_PORT);
const BASE = `http://127.0.0.1:${PORT}`;
const RESULTS = env.E2E_RESULTS;
const CHECKS = env.E2E_CHECKS;
const PHASES = (env.E2E_PHASES || 'host,ui').split(',');
const HOST_WS = env.E2E_HOST_WORKSPACE;
const UI_WS = env.E2E_UI_WORKSPACE;
const EXT_DEV = env.E2E_EXTENSION_DEV_PATH;
const HOST_TESTS = env.E2E_HOST_TESTS;
const HOST_RESULTS = env.AUTODD_E2E_HOST_RESULTS;
const HOST_TIMEOUT_MS = Number(env.E2E_HOST_TIMEOUT_MS || 300000);
const RUN_TIMEOUT_MS = Number(env.E2E_RUN_TIMEOUT_MS || 240000);
// The message a run ends with: a result, a failure or a cancellation.
const RUN_ENDED = /AutoDD: (\d[\d,]* → \d[\d,]* lines|minimization failed|cancelled)/;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[driver ${new Date().toISOString().slice(11, 19)}]`, ...a);

let failures = 0;
function record(ok, name, detail = '') {
  if (!ok) failures++;
  const line = `${ok ? 'PASS' : 'FAIL'}\t${name}\t${String(detail).replace(/\s+/g, ' ').slice(0, 600)}`;
  fs.appendFileSync(CHECKS, line + '\n');
  log(line);
}

let currentPage;

async function check(name, fn) {
  try {
    const detail = await fn();
    record(true, name, detail ?? '');
    return true;
  } catch (err) {
    if (currentPage) await shot(currentPage, `FAIL-${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 50)}`);
    record(false, name, err?.message ?? String(err));
    return false;
  }
}

let shotCounter = 0;
async function shot(page, name) {
  const file = path.join(RESULTS, `${String(++shotCounter).padStart(2, '0')}-${name}.png`);
  try {
    await page.screenshot({ path: file });
  } catch (err) {
    log(`screenshot ${name} failed: ${err.message}`);
  }
  return file;
}

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
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last: ${last})` : ''}`);
}

function remote(p) {
  return `vscode-remote://127.0.0.1:${PORT}${p}`;
}

async function openWorkbench(browser, url, label) {
  const page = await browser.newPage();
  currentPage = page;
  // "Copy bug report" goes through the browser's clipboard
  await browser.defaultBrowserContext().overridePermissions(BASE, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']).catch(() => {});
  page.on('console', (m) => {
    const t = m.text();
    if (/autodd|error/i.test(t)) fs.appendFileSync(path.join(RESULTS, `console-${label}.log`), `${m.type()}: ${t}\n`);
  });
  page.on('pageerror', (e) => fs.appendFileSync(path.join(RESULTS, `console-${label}.log`), `pageerror: ${e.message}\n`));
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForSelector('.part.statusbar', { timeout: 60000 });
  return page;
}

// ---------------------------------------------------------------- host phase

async function hostPhase(browser) {
  try {
    fs.rmSync(HOST_RESULTS, { force: true });
  } catch {}
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(EXT_DEV)],
    ['extensionTestsPath', remote(HOST_TESTS)],
  ]);
  const url = `${BASE}/?folder=${encodeURIComponent(HOST_WS)}&payload=${encodeURIComponent(payload)}`;
  let page;
  const opened = await check('host: workbench opens with the extension under development', async () => {
    page = await openWorkbench(browser, url, 'host');
    await shot(page, 'host-workbench');
    return url.length > 0 ? 'workbench loaded' : '';
  });
  if (!opened) return;
  let data;
  const ran = await check('host: the test module ran to the end', async () => {
    data = await waitFor(
      'the extension-host results',
      () => {
        if (!fs.existsSync(HOST_RESULTS)) return undefined;
        const d = JSON.parse(fs.readFileSync(HOST_RESULTS, 'utf8'));
        return d.done ? d : undefined;
      },
      HOST_TIMEOUT_MS,
      500,
    ).catch((err) => {
      if (fs.existsSync(HOST_RESULTS)) data = JSON.parse(fs.readFileSync(HOST_RESULTS, 'utf8'));
      throw err;
    });
    return `${data.results.length} checks`;
  });
  for (const r of data?.results ?? []) record(r.ok, r.name, r.ok ? `${r.ms} ms` : r.error);
  if (!ran) await shot(page, 'host-timeout');
  else await shot(page, 'host-done');
  await page.close().catch(() => {});
}

// ------------------------------------------------------------------ UI phase

async function activeGroupTabs(page) {
  return page.$$eval('.editor-group-container', (groups) =>
    groups.map((g) => {
      const active = g.querySelector('.tab.active');
      return {
        label: active?.getAttribute('aria-label') ?? active?.textContent ?? '',
        dirty: Boolean(active?.classList.contains('dirty')),
      };
    }),
  );
}

/** The highest line number rendered in the editor whose active tab is `name`. */
async function editorLineCount(page, name) {
  return page.$$eval(
    '.editor-group-container',
    (groups, name) => {
      for (const g of groups) {
        const active = g.querySelector('.tab.active');
        const label = active?.getAttribute('aria-label') ?? active?.textContent ?? '';
        if (!label.includes(name)) continue;
        const nums = [...g.querySelectorAll('.monaco-editor .margin .line-numbers')]
          .map((e) => Number(e.textContent.trim()))
          .filter((n) => Number.isFinite(n));
        return nums.length ? Math.max(...nums) : null;
      }
      return null;
    },
    name,
  );
}

async function toasts(page) {
  return page.$$eval('.notifications-toasts .notification-toast', (els) =>
    els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()),
  );
}

async function quickInputVisible(page) {
  return page.$eval('.quick-input-widget', (e) => e.style.display !== 'none' && e.offsetParent !== null).catch(() => false);
}

async function quickInputRows(page) {
  return page.$$eval('.quick-input-widget .monaco-list-row', (rows) => rows.map((r) => r.innerText.replace(/\s+/g, ' ').trim()));
}

async function focusWorkbench(page) {
  await page.click('.part.editor').catch(() => {});
}

async function runCommand(page, title) {
  await focusWorkbench(page);
  await page.keyboard.press('F1');
  await waitFor('the command palette', () => quickInputVisible(page), 10000);
  await page.keyboard.type(title, { delay: 10 });
  await waitFor(`"${title}" in the palette`, async () => (await quickInputRows(page))[0]?.includes(title), 15000);
  await page.keyboard.press('Enter');
}

async function openFile(page, name) {
  await focusWorkbench(page);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyP');
  await page.keyboard.up('Control');
  await waitFor('quick open', () => quickInputVisible(page), 10000);
  await page.keyboard.type(name, { delay: 10 });
  await waitFor(`${name} in quick open`, async () => (await quickInputRows(page))[0]?.startsWith(name), 15000);
  await page.keyboard.press('Enter');
  await waitFor(`${name} to be the active editor`, async () => (await activeGroupTabs(page)).some((t) => t.label.startsWith(name)), 15000);
  await waitFor(`${name}'s text to render`, () => page.$('.editor-group-container.active .monaco-editor .view-lines .view-line'), 15000);
}


/** Labels of the open context menu (VS Code renders menus in a shadow root). */
async function contextMenuLabels(page) {
  return page.evaluate(() => {
    const out = [];
    const visit = (root) => {
      root.querySelectorAll('.monaco-menu .action-item .action-label').forEach((e) => {
        const t = e.textContent.trim();
        if (t) out.push(t);
      });
      root.querySelectorAll('*').forEach((el) => el.shadowRoot && visit(el.shadowRoot));
    };
    visit(document);
    return out;
  });
}

async function clickContextMenuItem(page, label) {
  const handle = await page.evaluateHandle((label) => {
    const visit = (root) => {
      for (const e of root.querySelectorAll('.monaco-menu .action-item .action-label')) {
        if (e.textContent.trim() === label) return e;
      }
      for (const el of root.querySelectorAll('*')) {
        const found = el.shadowRoot && visit(el.shadowRoot);
        if (found) return found;
      }
      return null;
    };
    return visit(document);
  }, label);
  const el = handle.asElement();
  if (!el) throw new Error(`no "${label}" in the context menu`);
  // the menu fades and slides in: a click during that can land beside the item
  let box = null;
  await waitFor(`"${label}" to stop moving`, async () => {
    const now = await el.boundingBox();
    const still = now && box && now.x === box.x && now.y === box.y && now.width > 0;
    box = now;
    return still;
  }, 5000, 100);
  await el.click();
  await waitFor('the context menu to close', async () => (await contextMenuLabels(page)).length === 0, 5000, 100);
}

/** Right-clicks the selection of the active editor and returns the menu's labels. */
async function openEditorContextMenu(page) {
  // wait until the selection is rendered, so the right-click lands inside it
  await waitFor('a rendered selection', async () =>
    (await page.$('.editor-group-container.active .monaco-editor .selected-text')) &&
    /selected/.test(await page.$eval('#status\\.editor\\.selection', (e) => e.innerText).catch(() => '')), 5000, 100);
  const sel = await page.$('.editor-group-container.active .monaco-editor .selected-text');
  const target = sel ?? (await page.$('.editor-group-container.active .monaco-editor .view-lines'));
  if (!target) throw new Error('no focused editor');
  const box = await target.boundingBox();
  await page.mouse.click(box.x + Math.min(20, box.width / 2), box.y + box.height / 2, { button: 'right' });
  return waitFor('the editor context menu', async () => {
    const labels = await contextMenuLabels(page);
    return labels.length ? labels : undefined;
  }, 10000);
}

/** Whether the explorer lists an entry called `name`. */
async function explorerHas(page, name) {
  return page.$$eval('.explorer-folders-view .monaco-list-row', (rows, name) =>
    rows.some((r) => r.innerText.trim() === name), name);
}

/** Text of the code lenses in the active editor. */
async function codeLensText(page) {
  return page.$$eval('.editor-group-container.active .codelens-decoration', (els) => els.map((e) => e.innerText).join(' | '));
}

async function activeEditorText(page) {
  return page.$eval('.editor-group-container.active .monaco-editor .view-lines', (e) => e.innerText.replace(/\u00a0/g, ' '));
}

function lineCount(text) {
  return text.replace(/\n$/, '').split('\n').length;
}

async function uiPhase(browser) {
  const url = `${BASE}/?folder=${encodeURIComponent(UI_WS)}`;
  let page;
  if (!(await check('ui: workbench opens', async () => {
    page = await openWorkbench(browser, url, 'ui');
    await page.setViewport({ width: 1440, height: 900 });
    await sleep(1500);
    await shot(page, 'ui-workbench');
  }))) return;

  await check('ui: freeze-marker diagnostic shows as a squiggle', async () => {
    await openFile(page, 'bad_freeze.py');
    await waitFor('a squiggle in bad_freeze.py', () =>
      page.$('.editor-group-container .monaco-editor .squiggly-error, .editor-group-container .monaco-editor .squiggly-warning'),
    60000);
    await shot(page, 'ui-bad-freeze-diagnostic');
    const problems = await page.$eval('#status\\.problems', (e) => e.innerText).catch(() => '');
    return `status bar problems: ${problems.replace(/\s+/g, ' ')}`;
  });


  await check('ui: context menu "Freeze selection" / "Unfreeze selection" edit the file', async () => {
    await openFile(page, 'plain.py');
    await page.click('.editor-group-container.active .monaco-editor .view-lines');
    await page.keyboard.down('Control');
    await page.keyboard.press('Home');
    await page.keyboard.up('Control');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.down('Shift');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.up('Shift');
    const labels = await openEditorContextMenu(page);
    await shot(page, 'ui-context-menu');
    for (const want of ['Freeze selection', 'Unfreeze selection', 'Minimize this failure']) {
      if (!labels.includes(want)) throw new Error(`"${want}" missing from the context menu: ${labels.join(', ')}`);
    }
    await clickContextMenuItem(page, 'Freeze selection');
    const frozen = await waitFor('a freeze marker in plain.py', async () => {
      const t = await activeEditorText(page);
      return /autodd: freeze|__freeze__/.test(t) ? t : undefined;
    }, 15000);
    await sleep(500);
    await shot(page, 'ui-frozen');
    // focus the text again (the menu took it), then select all of it
    await page.click('.editor-group-container.active .monaco-editor .view-lines');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    const editor = '.editor-group-container.active .monaco-editor';
    await waitFor('every line to be selected', async () => // the empty last line has no highlight
      (await page.$$(`${editor} .selected-text`)).length >= (await page.$$(`${editor} .view-line`)).length - 1, 5000, 100);
    const labels2 = await openEditorContextMenu(page);
    await shot(page, 'ui-context-menu-unfreeze');
    if (!labels2.includes('Unfreeze selection')) throw new Error(`no "Unfreeze selection": ${labels2.join(', ')}`);
    await clickContextMenuItem(page, 'Unfreeze selection');
    await waitFor('the freeze marker to go', async () => {
      if (!/autodd: freeze|__freeze__/.test(await activeEditorText(page))) return true;
      throw new Error(`notifications: ${(await toasts(page)).join(' / ') || 'none'}`);
    }, 15000);
    await runCommand(page, 'File: Revert File');
    await sleep(300);
    return frozen.split('\n').filter((l) => /autodd|__freeze__/.test(l)).join(' | ');
  });

  // ---- a full run, picked from the quick pick, watched while it shrinks
  const source = path.join(UI_WS, 'failing.py');
  const minPath = path.join(UI_WS, 'failing.min.py');
  // Every run of this copy waits 30 ms (frozen, so it stays): on a quiet machine the whole
  // reduction otherwise ends in about a second, before the editor can show a middle state.
  fs.writeFileSync(source, fs.readFileSync(source, 'utf8').replace(
    'import os\n', 'import os\nimport time\n\ntime.sleep(0.03)  # autodd: freeze\n'));
  const originalLines = lineCount(fs.readFileSync(source, 'utf8'));
  await check('ui: "AutoDD: Minimize this failure" offers the failure in a quick pick', async () => {
    await openFile(page, 'failing.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    const rows = await waitFor('the failure suggestions', async () => {
      const r = await quickInputRows(page);
      return r.some((x) => x.includes('shape mismatch')) ? r : undefined;
    }, 90000);
    await shot(page, 'ui-quick-pick');
    if (!rows.some((r) => r.includes('Type a message'))) throw new Error(`no "Type a message…" entry: ${rows}`);
    if (!rows[0].includes('shape mismatch')) throw new Error(`first item is not the suggestion: ${rows}`);
    await page.keyboard.press('Enter');
    return rows.join(' | ');
  });

  const samples = [];
  const progressTexts = new Set();
  let finalToast;
  let midShot = false;
  await check('ui: the run ends with the size-reduction message', async () => {
    finalToast = await waitFor('the result message', async () => {
      const n = await editorLineCount(page, 'failing.min.py');
      if (n !== null && samples[samples.length - 1] !== n) samples.push(n);
      if (n !== null && !midShot && samples.length >= 2) {
        midShot = true;
        await shot(page, 'ui-shrinking');
      }
      const ts = await toasts(page);
      for (const t of ts) if (t.includes('minimizing failing.py')) progressTexts.add(t);
      return ts.find((t) => RUN_ENDED.test(t));
    }, RUN_TIMEOUT_MS, 100);
    await shot(page, 'ui-result-message');
    if (!/AutoDD: \d[\d,]* → \d[\d,]* lines \(\d[\d,]* → \d[\d,]* AST nodes\)/.test(finalToast)) throw new Error(finalToast);
    return finalToast;
  });

  await check('ui: a cancellable progress notification showed the server progress', async () => {
    const all = [...progressTexts];
    if (!all.length) throw new Error('no "AutoDD: minimizing failing.py" notification seen');
    if (!all.some((t) => /nodes/.test(t))) throw new Error(`no "N → M nodes" progress seen: ${all.slice(0, 3).join(' / ')}`);
    if (!all.some((t) => /Cancel/.test(t))) throw new Error(`no Cancel button: ${all[0]}`);
    return all[all.length - 1];
  });

  await check('ui: failing.min.py opened beside the source and shrank live', async () => {
    const n = await waitFor('failing.min.py in an editor', () => editorLineCount(page, 'failing.min.py'), 10000);
    if (samples[samples.length - 1] !== n) samples.push(n);
    const tabs = await activeGroupTabs(page);
    const groups = tabs.length;
    if (groups < 2) throw new Error(`expected two editor groups, got ${JSON.stringify(tabs)}`);
    if (!(n < originalLines)) throw new Error(`final ${n} lines is not below the original ${originalLines}: ${samples}`);
    if (new Set(samples).size < 2) throw new Error(`only one state observed while running: ${samples}`);
    const decreasing = samples.every((v, i) => i === 0 || v <= samples[i - 1] + 2);
    return `line counts seen: ${samples.join(' → ')} (original ${originalLines})${decreasing ? '' : ' (not monotone)'}`;
  });

  await check('ui: the result on disk is smaller and the editor is not left dirty', async () => {
    const disk = fs.readFileSync(minPath, 'utf8');
    if (!(lineCount(disk) < originalLines)) throw new Error(`disk has ${lineCount(disk)} lines`);
    await waitFor('failing.min.py not dirty', async () =>
      (await activeGroupTabs(page)).some((t) => t.label.includes('failing.min.py') && !t.dirty), 10000);
    const ts = await toasts(page);
    const conflict = ts.find((t) => /newer|conflict|Failed to save/i.test(t));
    if (conflict) throw new Error(`conflict message: ${conflict}`);
    return `${lineCount(disk)} lines on disk`;
  });

  await check('ui: "Open diff" shows original ↔ result', async () => {
    const clicked = await page.evaluate(() => {
      for (const toast of document.querySelectorAll('.notifications-toasts .notification-toast')) {
        if (!/AutoDD: .* lines/.test(toast.textContent)) continue;
        for (const b of toast.querySelectorAll('a.monaco-button, .monaco-button')) {
          if (b.textContent.trim() === 'Open diff') {
            b.click();
            return true;
          }
        }
      }
      return false;
    });
    if (!clicked) throw new Error('no "Open diff" button on the result message');
    await waitFor('a diff editor', () => page.$('.monaco-diff-editor'), 15000);
    await sleep(800);
    await shot(page, 'ui-diff');
    const tabs = await activeGroupTabs(page);
    return tabs.map((t) => t.label).join(' | ');
  });

  await check('ui: the result code lens stays on failing.min.py after the messages are gone', async () => {
    await runCommand(page, 'View: Close All Editors'); // so the diff editor below is the lens's
    await waitFor('no diff editor', async () => !(await page.$('.monaco-diff-editor')), 10000);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await waitFor('no notification toasts', async () => (await toasts(page)).length === 0, 10000);
    await openFile(page, 'failing.min.py');
    const lens = await waitFor('the AutoDD code lens', async () => {
      const t = await codeLensText(page);
      return ['Open diff', 'Copy bug report', 'Write regression test', 'Run again'].every((w) => t.includes(w)) ? t : undefined;
    }, 20000);
    await shot(page, 'ui-result-lens');
    // a real mouse click: the editor handles lens clicks from its own mouse events
    // The editor first shows lenses from its cache as plain text (no command) until the
    // provider answers again: wait for the clickable link.
    let seen = [];
    const link = await waitFor('a clickable "Open diff" in the lens', async () => {
      seen = [];
      for (const a of await page.$$('.editor-group-container.active .codelens-decoration a')) {
        const text = await a.evaluate((e) => e.textContent.replace(/\s+/g, ' ').trim());
        seen.push(text);
        if (text === 'Open diff' && (await a.boundingBox())) return a;
      }
      return undefined;
    }, 20000).catch(async (err) => {
      const html = await page.$$eval('.codelens-decoration', (els) => els.map((e) => e.outerHTML).join('\n'));
      log(`lens DOM: ${html}`);
      throw new Error(`${err.message}; links: ${JSON.stringify(seen)}`);
    });
    await link.click();
    await waitFor('a diff editor from the lens', () => page.$('.monaco-diff-editor'), 15000);
    await shot(page, 'ui-lens-diff');
    return lens;
  });

  await check('ui: an engine notice shows as a warning toast (uses_helper.py is inlined)', async () => {
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'uses_helper.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    await waitFor('the failure suggestions', async () => (await quickInputRows(page)).some((x) => x.includes('shape mismatch')), 90000);
    await page.keyboard.press('Enter');
    const warning = await waitFor('the inlining warning', async () => {
      const found = await page.$$eval('.notifications-toasts .notification-toast', (els) =>
        els.filter((e) => /inlined shapes_helper\.py/.test(e.innerText))
          .map((e) => ({ text: e.innerText.replace(/\s+/g, ' ').trim(), warning: Boolean(e.querySelector('.codicon-warning, .codicon-notifications-warning')) })));
      return found[0];
    }, RUN_TIMEOUT_MS, 200);
    await shot(page, 'ui-notice-warning');
    if (!warning.warning) throw new Error(`not shown as a warning: ${warning.text}`);
    await waitFor('the result message', async () => (await toasts(page)).find((t) => /AutoDD: \d[\d,]* → \d[\d,]* lines/.test(t)), RUN_TIMEOUT_MS);
    return warning.text;
  });

  await check("ui: a bad setting's error is shown, and the next run clears it", async () => {
    const settingsDir = path.join(UI_WS, '.vscode');
    const settingsFile = path.join(settingsDir, 'settings.json');
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Notifications: Clear All Notifications');
    fs.mkdirSync(settingsDir, { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify({ 'autodd.timeout': -1 }));
    let errorToast;
    try {
      // the settings file is picked up by the file watcher that also feeds the explorer
      await waitFor('.vscode in the explorer', () => explorerHas(page, '.vscode'), 30000);
      await sleep(1500);
      // code-server may read the new settings.json only after a run has started: that run goes
      // ahead with the default timeout (its result opens beside). Seen twice in CI; such a run
      // says nothing about the error, so it is closed and the command given again (three tries).
      for (let attempt = 1; attempt <= 3 && !errorToast; attempt += 1) {
        await openFile(page, 'failing.py');
        await runCommand(page, 'AutoDD: Minimize this failure');
        const seen = await waitFor('the error of the bad timeout', async () => {
          const rows = await quickInputRows(page);
          if ((await quickInputVisible(page)) && rows.some((x) => x.includes('shape mismatch'))) await page.keyboard.press('Enter');
          const error = (await toasts(page)).find((t) => /timeout/.test(t) && /AutoDD/.test(t));
          if (error) return { error };
          const ran = (await activeGroupTabs(page)).some((t) => t.label.startsWith('failing.min.py'));
          return ran ? { ran: true } : undefined;
        }, 90000, 300);
        if (seen.error) {
          errorToast = seen.error;
        } else {
          await shot(page, `ui-bad-setting-not-read-yet-${attempt}`);
          await waitFor('the run without the setting to end', async () =>
            (await toasts(page)).some((t) => RUN_ENDED.test(t)), RUN_TIMEOUT_MS, 300);
          await runCommand(page, 'View: Close All Editors');
          await runCommand(page, 'Notifications: Clear All Notifications');
          await sleep(3000);
        }
      }
      if (!errorToast) throw new Error('three runs went ahead with the default timeout: the bad setting was never read');
      await shot(page, 'ui-bad-setting-error');
    } finally {
      fs.rmSync(settingsDir, { recursive: true, force: true });
    }
    await waitFor('.vscode gone from the explorer', async () => !(await explorerHas(page, '.vscode')), 30000);
    await sleep(1500);
    await runCommand(page, 'AutoDD: Minimize this failure');
    await waitFor('the failure suggestions', async () => (await quickInputRows(page)).some((x) => x.includes('shape mismatch')), 90000);
    const stale = (await toasts(page)).find((t) => /timeout/.test(t));
    if (stale) throw new Error(`the first run's error is still up during the second run: ${stale}`);
    await page.keyboard.press('Enter');
    const done = await waitFor('the second result', async () => {
      const ts = await toasts(page);
      const old = ts.find((t) => /timeout/.test(t));
      if (old) throw new Error(`the first run's error came back: ${old}`);
      return ts.find((t) => RUN_ENDED.test(t));
    }, RUN_TIMEOUT_MS, 200);
    await shot(page, 'ui-second-run-clean');
    if (!/AutoDD: \d[\d,]* → \d[\d,]* lines/.test(done)) throw new Error(done);
    return `error: ${errorToast} / then: ${done}`;
  });

  await check('ui: the status bar item shows AutoDD; a click offers the output, the interpreter setting, a restart', async () => {
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Notifications: Clear All Notifications');
    const item = await waitFor('the AutoDD status bar item', async () => {
      for (const el of await page.$$('.part.statusbar .statusbar-item')) {
        const text = await el.evaluate((e) => e.innerText.trim());
        if (text === 'AutoDD') return el;
      }
      return undefined;
    }, 20000);
    const label = await item.evaluate((e) => e.querySelector('a')?.getAttribute('aria-label') ?? e.getAttribute('aria-label') ?? '');
    await item.click();
    const rows = await waitFor('the status menu', async () => {
      const r = await quickInputRows(page);
      return r.some((x) => x.includes('Show the AutoDD output')) ? r : undefined;
    }, 10000);
    await shot(page, 'ui-status-menu');
    for (const want of ['Choose the interpreter', 'Restart the server']) {
      if (!rows.some((r) => r.includes(want))) throw new Error(`"${want}" missing: ${rows.join(' | ')}`);
    }
    await page.keyboard.press('Enter'); // Show the AutoDD output
    await waitFor('the AutoDD output channel', () => page.evaluate(() =>
      [...document.querySelectorAll('.part.panel select, .part.panel .monaco-select-box, .part.panel [aria-label]')]
        .some((e) => /AutoDD/.test(e.value ?? '') || /AutoDD/.test(e.getAttribute('aria-label') ?? '') || /AutoDD/.test(e.textContent ?? ''))), 10000);
    await runCommand(page, 'View: Hide Panel');
    return `${label} / ${rows.join(' | ')}`;
  });

  await check('ui: the commands that need a finished run say so in one wording, naming the real command', async () => {
    await openFile(page, 'plain.py');
    const said = [];
    for (const command of ['AutoDD: Open diff of the last run', 'AutoDD: Copy bug report of the last run']) {
      await runCommand(page, 'Notifications: Clear All Notifications');
      await runCommand(page, command);
      said.push(await waitFor(`the answer of ${command}`, async () =>
        (await toasts(page)).find((t) => /no finished run/.test(t)), 10000));
    }
    await shot(page, 'ui-no-finished-run');
    const want = 'AutoDD: no finished run of this file yet: run "AutoDD: Minimize this failure" to the end first.';
    if (!said.every((t) => t.includes(want))) throw new Error(said.join(' / '));
    return said[0];
  });

  await check('ui: a --crash failure picked from the quick pick (title, full meaning) is kept; no candidate file in the Explorer', async () => {
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'crashing.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    const rows = await waitFor('the crash in the quick pick', async () => {
      const r = await quickInputRows(page);
      return r.some((x) => x.includes('killed by SIGSEGV')) ? r : undefined;
    }, 90000);
    const title = await page.$eval('.quick-input-widget .quick-input-title', (e) => e.innerText.trim()).catch(() => '');
    const placeholder = await page.$eval('.quick-input-widget input', (e) => e.getAttribute('placeholder') ?? '').catch(() => '');
    await shot(page, 'ui-quick-pick-crash');
    if (!/crashing\.py was killed by signal 11/.test(title)) throw new Error(`title: ${title}`);
    if (placeholder !== 'Pick the failure to keep') throw new Error(`placeholder: ${placeholder}`);
    const index = rows.findIndex((x) => x.includes('killed by SIGSEGV'));
    if (!/--crash SIGSEGV/.test(rows[index]) || !/must be killed by SIGSEGV/.test(rows[index])) throw new Error(`the item: ${rows[index]}`);
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const hidden = [];
    const msg = await waitFor('the result message', async () => {
      const names = await page.$$eval('.explorer-folders-view .monaco-list-row', (els) => els.map((e) => e.innerText.trim()));
      for (const n of names) if (n.startsWith('.autodd-')) hidden.push(n);
      return (await toasts(page)).find((t) => RUN_ENDED.test(t));
    }, RUN_TIMEOUT_MS, 100);
    await shot(page, 'ui-crash-result');
    if (!/AutoDD: \d[\d,]* → \d[\d,]* lines/.test(msg)) throw new Error(msg);
    if (hidden.length) throw new Error(`candidate files in the Explorer: ${[...new Set(hidden)].join(', ')}`);
    const disk = fs.readFileSync(path.join(UI_WS, 'crashing.min.py'), 'utf8');
    if (!/string_at/.test(disk) || /unused_helper/.test(disk)) throw new Error(disk);
    return `${rows[index]} → ${msg}`;
  });

  await check('ui: a failed run says one line with "Show output" and "Run again…", never "Open diff"', async () => {
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'failing.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    await waitFor('the failure suggestions', async () => (await quickInputRows(page)).some((x) => x.includes('shape mismatch')), 90000);
    await page.keyboard.type('zzzz', { delay: 10 }); // filters to "Type a message…" (always shown)
    await waitFor('only "Type a message…"', async () => {
      const r = await quickInputRows(page);
      return r.length === 1 && r[0].includes('Type a message');
    }, 10000);
    await page.keyboard.press('Enter');
    await waitFor('the input box', async () => (await quickInputRows(page)).length === 0 && quickInputVisible(page), 10000);
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type('no such text in the output', { delay: 5 });
    await page.keyboard.press('Enter');
    const failed = await waitFor('the failure', async () => {
      const found = await page.$$eval('.notifications-toasts .notification-toast', (els) =>
        els.filter((e) => /minimization failed/.test(e.innerText)).map((e) => ({
          text: e.querySelector('.notification-list-item-message')?.innerText ?? e.innerText,
          buttons: [...e.querySelectorAll('.monaco-button')].map((b) => b.textContent.trim()).filter(Boolean),
        })));
      return found[0];
    }, RUN_TIMEOUT_MS, 200);
    await shot(page, 'ui-failed-run');
    if (/\n|Traceback|--repeat/.test(failed.text.trim())) throw new Error(`not one editor line: ${failed.text}`);
    if (!failed.buttons.includes('Show output') || !failed.buttons.includes('Run again…')) throw new Error(`buttons: ${failed.buttons}`);
    if (failed.buttons.includes('Open diff')) throw new Error(`an "Open diff" on a failed run: ${failed.buttons}`);
    return `${failed.text} [${failed.buttons.join(', ')}]`;
  });

  // ---- a second run, cancelled from the notification
  await check('ui: a run cancelled from the notification reports "cancelled"', async () => {
    await runCommand(page, 'View: Close All Editors');
    await sleep(500);
    await openFile(page, 'slow_failing.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    await waitFor('the failure suggestions', async () => (await quickInputRows(page)).some((x) => x.includes('shape mismatch')), 90000);
    await page.keyboard.press('Enter');
    await waitFor('the progress notification', async () =>
      (await toasts(page)).find((t) => t.includes('minimizing slow_failing.py') && /nodes|reproduces/.test(t)), 90000);
    await sleep(4000);
    await shot(page, 'ui-cancel-before');
    const clicked = await page.evaluate(() => {
      for (const toast of document.querySelectorAll('.notifications-toasts .notification-toast')) {
        if (!toast.textContent.includes('minimizing slow_failing.py')) continue;
        for (const b of toast.querySelectorAll('a.monaco-button, .monaco-button')) {
          if (b.textContent.trim() === 'Cancel') {
            b.click();
            return true;
          }
        }
      }
      return false;
    });
    if (!clicked) throw new Error('no Cancel button on the progress notification');
    const t0 = Date.now();
    const msg = await waitFor('the cancelled message', async () =>
      (await toasts(page)).find((t) => /AutoDD: cancelled/.test(t)), 60000);
    await shot(page, 'ui-cancelled');
    return `${msg} (after ${((Date.now() - t0) / 1000).toFixed(1)} s)`;
  });

  await page.close().catch(() => {});

  await check("ui: the server's start-up lines are logged as info, not [error]", async () => {
    const logs = [];
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/AutoDD\.log$/.test(e.name)) logs.push(p);
      }
    };
    walk(path.join(env.E2E_USER_DATA, 'logs'));
    const text = logs.map((p) => fs.readFileSync(p, 'utf8')).join('\n');
    const startup = text.split('\n').filter((l) => /autodd-lsp: Python \d/.test(l));
    if (!startup.length) throw new Error(`no start-up line in ${logs.join(', ') || 'no AutoDD log'}`);
    const wrong = startup.filter((l) => !/\[info\]/.test(l));
    if (wrong.length) throw new Error(wrong.join(' / '));
    return startup[0];
  });
}


// ---------------------------------------------------------------- gemm phase

/** Optional: the bundled TileLang example, minimized through the UI (needs tilelang + torch). */
async function gemmPhase(browser) {
  const url = `${BASE}/?folder=${encodeURIComponent(UI_WS)}`;
  const page = await openWorkbench(browser, url, 'gemm');
  await page.setViewport({ width: 1440, height: 900 });
  await sleep(1500);
  await runCommand(page, 'View: Close All Editors');
  const samples = [];
  await check('gemm: examples/autodd/gemm_bug.py minimized from the palette', async () => {
    await openFile(page, 'gemm_bug.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    const rows = await waitFor('the failure suggestions', async () => {
      const r = await quickInputRows(page);
      return r.some((x) => x.includes('T.gemm K shape check failed')) ? r : undefined;
    }, 180000);
    await shot(page, 'gemm-quick-pick');
    // pick the first suggestion that has the stable part of the message
    const index = rows.findIndex((x) => x.includes('T.gemm K shape check failed'));
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const msg = await waitFor('the result message', async () => {
      const n = await editorLineCount(page, 'gemm_bug.min.py');
      if (n !== null && samples[samples.length - 1] !== n) samples.push(n);
      const ts = await toasts(page);
      return ts.find((t) => RUN_ENDED.test(t));
    }, Number(env.E2E_GEMM_TIMEOUT_MS || 600000), 250);
    await shot(page, 'gemm-result');
    if (!/AutoDD: \d[\d,]* → \d[\d,]* lines/.test(msg)) throw new Error(msg);
    const disk = fs.readFileSync(path.join(UI_WS, 'gemm_bug.min.py'), 'utf8');
    if (!/T\.gemm|gemm/.test(disk)) throw new Error('the result does not mention gemm');
    return `${msg}; line counts seen: ${samples.slice(0, 3).join(' → ')} … ${samples.slice(-2).join(' → ')}`;
  });
  await page.close().catch(() => {});
}

// ---------------------------------------------------------------- kinds phase

/** Failures that are not a message, picked in the failure question (needs numpy in the interpreter). */
async function kindsPhase(browser) {
  const url = `${BASE}/?folder=${encodeURIComponent(UI_WS)}`;
  const page = await openWorkbench(browser, url, 'kinds');
  await page.setViewport({ width: 1440, height: 900 });
  await runCommand(page, 'View: Close All Editors');
  await check('kinds: "keep this wrong answer" picked in the quick pick keeps the failing assert_allclose and its operands', async () => {
    await openFile(page, 'wrong_numpy.py');
    await runCommand(page, 'AutoDD: Minimize this failure');
    const rows = await waitFor('the wrong answer in the quick pick', async () => {
      const r = await quickInputRows(page);
      return r.some((x) => x.includes('keep this wrong answer')) ? r : undefined;
    }, 90000);
    await shot(page, 'kinds-quick-pick');
    const index = rows.findIndex((x) => x.includes('keep this wrong answer'));
    if (!/np\.testing\.assert_allclose at line 20: 8 of 8 elements differ/.test(rows[index])) throw new Error(`the item: ${rows[index]}`);
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const msg = await waitFor('the result message', async () =>
      (await toasts(page)).find((t) => RUN_ENDED.test(t)), RUN_TIMEOUT_MS, 200);
    await shot(page, 'kinds-wrong-answer-result');
    if (!/AutoDD: \d[\d,]* → \d[\d,]* lines/.test(msg)) throw new Error(msg);
    const disk = fs.readFileSync(path.join(UI_WS, 'wrong_numpy.min.py'), 'utf8');
    // the comparison and what computes its wrong operand stay (nothing else gives the same values)
    if (![/np\.testing\.assert_allclose\(/, /default_rng\(0\)/, /a\.shape\[1\] - /].every((re) => re.test(disk))) throw new Error(disk);
    if (/unused_helper/.test(disk)) throw new Error(`not reduced: ${disk}`);
    return `${rows[index]} → ${msg}`;
  });
  await page.close().catch(() => {});
}

// ---------------------------------------------------------------------- main

async function main() {
  const browser = await puppeteer.launch({
    executablePath: env.E2E_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: env.E2E_CHROMIUM_PROFILE,
    defaultViewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--no-default-browser-check',
      '--window-size=1440,900',
    ],
  });
  fs.writeFileSync(path.join(RESULTS, 'chromium.pid'), String(browser.process()?.pid ?? ''));
  try {
    if (PHASES.includes('host')) await hostPhase(browser);
    if (PHASES.includes('ui')) await uiPhase(browser);
    if (PHASES.includes('kinds')) await kindsPhase(browser);
    if (PHASES.includes('gemm')) await gemmPhase(browser);
  } finally {
    await browser.close().catch(() => {});
  }
}

main().then(
  () => process.exit(failures ? 1 : 0),
  (err) => {
    record(false, 'driver: unexpected error', err?.stack ?? String(err));
    process.exit(2);
  },
);
