import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invokeFunction } from './lambda-context';
import type { ScheduledHandler } from './handlers';

export interface LambdaInvokeEmulator {
  endpoint: string;
  close(): Promise<void>;
}

function parsePayload(bytes: Buffer): unknown {
  try {
    return bytes.length ? JSON.parse(bytes.toString('utf8')) : {};
  } catch {
    return {};
  }
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/**
 * Enough of the Lambda Invoke API for the handlers' own calls (`InvokeCommand`): an `Event`
 * invocation is answered 202 at once and runs in the background, as Lambda does.
 */
export async function startLambdaInvokeEmulator(
  functions: () => Record<string, ScheduledHandler | undefined>,
): Promise<LambdaInvokeEmulator> {
  const running = new Set<Promise<unknown>>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const name = INVOKE_PATH.exec(req.url ?? '')?.[1];
      const handler = name ? functions()[decodeURIComponent(name)] : undefined;
      if (req.method !== 'POST' || !name || !handler) {
        res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
        res.end(JSON.stringify({ Type: 'User', message: `Function not found: ${name ?? req.url}` }));
        return;
      }
      const payload = parsePayload(Buffer.concat(chunks));
      const run = invokeFunction(name, 15 * 60_000, (context) => handler(payload as Parameters<ScheduledHandler>[0], context))
        .catch((err: unknown) => console.error(`[hookgate local] async invoke of ${name} failed:`, err))
        .finally(() => running.delete(run));
      running.add(run);
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await Promise.allSettled([...running]);
    },
  };
}
