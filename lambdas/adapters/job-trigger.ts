import type { LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '../shared/config';
import { log } from '../shared/log';

// The Lambda client is imported on the first new job, not at the api function's every cold start
// (its chunk is ~90 KB).
let lambda: LambdaClient | undefined;

/** The background jobs the export function runs: export files, bulk replays and erasures. */
export type JobKind = 'export' | 'replay' | 'erasure';

/**
 * Starts the job worker now (an asynchronous invoke) instead of waiting for its schedule. Best
 * effort: when it fails, the schedule still picks the job up within a minute.
 */
export async function startJobWorker(kind: JobKind, job: { account_id: string; id: string }): Promise<void> {
  const functionName = config().exportFunctionName;
  if (!functionName) return;
  try {
    const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
    lambda ??= new LambdaClient({});
    await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify({ detail: { kind, account_id: job.account_id, job_id: job.id } })),
      }),
    );
  } catch (error) {
    log.warn('could not start the job worker; the schedule will', { kind, account_id: job.account_id, job_id: job.id }, error);
  }
}
