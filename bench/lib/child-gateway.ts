import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './child';
import { sleep, waitUntil } from './stats';

type Message = { type: string; [key: string]: unknown };

/**
 * The gateway in a process of its own (bench/e2e-gateway.ts), started as `npm start` starts it, so
 * the load and the destinations of a section never take its threads' CPU. `env` is added to its
 * environment (the handlers read it once), `nodeArgs` to Node's command line. Driven over IPC: `send`
 * a message, `expect` an answer.
 */
export async function startChildGateway(env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', fileURLToPath(new URL('bench/e2e-gateway.ts', REPO_ROOT))], {
    cwd: fileURLToPath(REPO_ROOT),
    env: { ...process.env, ...env },
    // Its stdout carries the handlers' log lines and EMF metric documents: read and dropped.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  child.stdout?.resume();
  const inbox: Message[] = [];
  child.on('message', (m: Message) => inbox.push(m));
  async function expect(type: string, timeoutMs = 60_000): Promise<Message> {
    if (!(await waitUntil(() => inbox.some((m) => m.type === type), timeoutMs, 20))) throw new Error(`gateway never sent ${type}`);
    return inbox.splice(inbox.findIndex((m) => m.type === type), 1)[0] as Message;
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.send({ type: 'stop' });
    await Promise.race([once(child, 'exit'), sleep(20_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  try {
    const { url } = (await expect('ready')) as unknown as { url: string };
    return { url, send: (message: Message) => void child.send(message), expect, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
