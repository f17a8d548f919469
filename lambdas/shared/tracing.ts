import type { Tracer } from '@aws-lambda-powertools/tracer';
import { runningInLambda } from './log';

/**
 * X-Ray subsegments for AWS SDK calls (the functions run with active tracing). Only in AWS Lambda:
 * the Tracer is not even loaded elsewhere, because loading the X-Ray SDK switches on its async
 * context tracking for the whole process, which the local runtime and tests have no use for.
 *
 * Outgoing HTTP is not captured: delivery requests go to customers' URLs, which may carry secrets.
 */
const tracer: Tracer | undefined = runningInLambda()
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({
      serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'hookgate',
      captureHTTPsRequests: false,
    })
  : undefined;

/** An AWS SDK v3 client whose calls are traced in AWS Lambda; the client itself anywhere else. */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
