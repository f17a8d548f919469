import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './aws-clients';
import { runAs } from './sdk-hooks';

/** A Lambda context for one invocation; the deadline only feeds getRemainingTimeInMillis. */
export function createLambdaContext(functionName: string, timeoutMs: number, now = Date.now()): Context {
  const deadline = now + timeoutMs;
  const fail = (): never => {
    throw new Error('callback-style context methods are not supported locally; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}

/** Runs one invocation of `functionName` with its context, as that function: its AWS calls need its role's grants. */
export function invokeFunction<T>(functionName: string, timeoutMs: number, run: (context: Context) => Promise<T>): Promise<T> {
  return runAs(functionName, () => run(createLambdaContext(functionName, timeoutMs)));
}
