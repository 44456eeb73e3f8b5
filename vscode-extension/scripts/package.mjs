// `npm run package`: one .vsix per VS Code target platform, as ruff's extension ships
// them: dist/autodd-vscode-<target>.vsix for linux-x64, linux-arm64, darwin-x64,
// darwin-arm64 and win32-x64. Each bundles that platform's wheels (scripts/bundle-python.sh
// <target>: everything is pure Python but ruff, whose native binary differs), is packed with
// `vsce package --target <target>` (the manifest's TargetPlatform), and is checked by
// scripts/check_vsix.py (the manifest names the target; bin/ruff is that platform's binary).
// The host's one is also copied to dist/autodd-vscode.vsix (the README's install command).
//
// Environment: AUTODD_VSIX_TARGETS  "host" (this machine's only, as the e2e test builds), or
//              a comma-separated list of targets; default: all five.
//              AUTODD_BUNDLE_PYTHON the Python with pip (default python3).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];

const ext = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const host = execFileSync(process.execPath, [path.join(ext, 'scripts', 'target.mjs')], { encoding: 'utf8' }).trim();
const asked = (process.env.AUTODD_VSIX_TARGETS ?? '').trim();
let targets = !asked ? TARGETS : asked === 'host' ? [host] : asked.split(',').map((t) => t.trim()).filter(Boolean);
const unknown = targets.filter((t) => !TARGETS.includes(t));
if (unknown.length) {
  console.error(`package: unknown target ${unknown.join(', ')} (known: ${TARGETS.join(', ')}, or "host")`);
  process.exit(2);
}
// the host's last: bundled/libs is left as the host's (the e2e host phase runs the tree itself)
targets = [...targets.filter((t) => t !== host), ...targets.filter((t) => t === host)];
const python = process.env.AUTODD_BUNDLE_PYTHON || 'python3';
// the repository's package as a wheel is the same for every target: built once
const wheels = mkdtempSync(path.join(os.tmpdir(), 'autodd-wheel-'));
const run = (command, args) =>
  execFileSync(command, args, { cwd: ext, stdio: 'inherit', env: { ...process.env, AUTODD_BUNDLE_WHEEL_DIR: wheels } });
mkdirSync(path.join(ext, 'dist'), { recursive: true });
process.on('exit', () => rmSync(wheels, { recursive: true, force: true }));
for (const target of targets) {
  const out = path.join('dist', `autodd-vscode-${target}.vsix`);
  console.log(`package: ${target} → ${out}`);
  run('bash', ['scripts/bundle-python.sh', target]);
  run(path.join(ext, 'node_modules', '.bin', 'vsce'), [
    'package', '--no-dependencies', '--allow-missing-repository', '--target', target, '--out', out,
  ]);
  run(python, ['scripts/check_vsix.py', out, target]);
  if (target === host) copyFileSync(path.join(ext, out), path.join(ext, 'dist', 'autodd-vscode.vsix'));
}
