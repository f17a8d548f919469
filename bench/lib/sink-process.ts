import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { LOOPBACK } from './http';

// A destination in a process of its own, so its CPU never counts in the measuring process's.
const SCRIPT = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
});
server.keepAliveTimeout = 30000;
server.listen(0, '${LOOPBACK}', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

/** Starts the sink; it exits when we close its stdin (or when we die). */
export async function startSinkProcess(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const port = Number(chunk.toString('utf8').trim());
  return {
    url: `http://${LOOPBACK}:${port}`,
    async stop() {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}
