// Prints the VS Code target platform of this machine (linux-x64, darwin-arm64, ...):
// the .vsix bundles native wheels (ruff) for the platform it was packaged on, so
// `vsce package --target` names that platform in the manifest, as ruff's extension does.
const arch = process.arch;
let platform = process.platform;
if (platform === 'linux' && !process.report?.getReport().header.glibcVersionRuntime) platform = 'alpine';
const known = ['x64', 'arm64', 'armhf'];
const vsArch = arch === 'arm' ? 'armhf' : arch;
if (!known.includes(vsArch) || !['linux', 'alpine', 'darwin', 'win32'].includes(platform)) {
  console.error(`no VS Code target platform for ${process.platform}-${arch}`);
  process.exit(1);
}
console.log(`${platform}-${vsArch}`);
