// How a script runs npm: under `npm run`, the very npm that runs it (on the same Node); otherwise
// whatever npm is on PATH. Dependency-free: ensure-deps imports it before node_modules exists.

/** `[command, args, spawn options]` for `npm ARGS`. */
export function npmCommand(args) {
  const npmCli = process.env.npm_execpath;
  if (npmCli && /\.(c|m)?js$/.test(npmCli)) return [process.execPath, [npmCli, ...args], {}];
  const windows = process.platform === 'win32';
  return [windows ? 'npm.cmd' : 'npm', args, { shell: windows }];
}
