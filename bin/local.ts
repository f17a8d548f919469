import { startGateway, DEFAULT_DATA_DIR, DEFAULT_PORT, type Gateway } from '../local/gateway';

function portFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got "${raw}"`);
  return port;
}

async function start(): Promise<Gateway> {
  try {
    return await startGateway({
      port: portFromEnv('PORT') ?? DEFAULT_PORT,
      listenPort: portFromEnv('HOOKGATE_LISTEN_PORT'),
      dataDir: process.env.HOOKGATE_DATA_DIR || DEFAULT_DATA_DIR,
      publicUrl: process.env.HOOKGATE_PUBLIC_URL || undefined,
      emulatorPorts: {
        dynamodb: portFromEnv('HOOKGATE_DYNAMODB_PORT'),
        sqs: portFromEnv('HOOKGATE_SQS_PORT'),
        s3: portFromEnv('HOOKGATE_S3_PORT'),
      },
    });
  } catch (err) {
    console.error('Hookgate local gateway failed to start:', err instanceof Error ? err.message : err);
    process.exit(1);
  }
}

const gateway = await start();

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    console.error(`Hookgate local gateway: ${signal} again, exiting without a clean shutdown`);
    process.exit(1);
  }
  stopping = true;
  console.log(`Hookgate local gateway stopping (${signal})`);
  try {
    await gateway.close();
    process.exit(0);
  } catch (err) {
    console.error('Hookgate local gateway did not stop cleanly:', err);
    process.exit(1);
  }
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
