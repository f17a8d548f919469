import { AsyncLocalStorage } from 'node:async_hooks';
import { ACMClient } from '@aws-sdk/client-acm';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayV2Client } from '@aws-sdk/client-apigatewayv2';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { KMSClient } from '@aws-sdk/client-kms';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * What the local runtime does to the functions' AWS calls that AWS does and the emulators do not
 * (IAM, throttles): hooks that run before every SDK call a function makes, in every client, whoever
 * created it. Calls made outside any function (the runtime itself, a test reading the table) pass.
 */

/** The local function whose code is running: set around each invocation (and the deliver poller). */
const running = new AsyncLocalStorage<string>();

/** Runs `work` as the function `name` (`hookgate-api`, …): its SDK calls are that function's. */
export function runAs<T>(name: string, work: () => T): T {
  return running.run(name, work);
}

/** The local function whose code is running now; undefined outside any (the runtime's or an operator's own calls). */
export const runningFunction = (): string | undefined => running.getStore();

/** Runs `work` outside any function: its calls are the runtime's own (a meter's reads), authorised as an operator's. */
export function asRuntime<T>(work: () => T): T {
  return running.exit(work);
}

export interface SdkClient {
  config: { serviceId?: string; region?: () => Promise<string>; credentials?: () => Promise<{ accessKeyId: string }> };
  middlewareStack: {
    add(middleware: unknown, options: { step: string; name: string; priority?: string }): void;
  };
}
export interface SdkCommand {
  input: Record<string, unknown>;
  constructor: { name: string };
}
type Hook = (client: SdkClient, command: SdkCommand, functionName: string) => Promise<void> | void;
type Send = (this: SdkClient, command: SdkCommand, ...rest: unknown[]) => Promise<unknown>;

const hooks = new Map<string, Hook>();
const patched = new WeakSet<object>();

/** Every client class the functions use: their base classes are where `send` is wrapped. */
const CLIENT_CLASSES = [
  ACMClient,
  ApiGatewayManagementApiClient,
  ApiGatewayV2Client,
  DynamoDBClient,
  DynamoDBDocumentClient,
  EventBridgeClient,
  KinesisClient,
  KMSClient,
  LambdaClient,
  S3Client,
  SNSClient,
  SQSClient,
  STSClient,
];

/**
 * Runs `hook` before every SDK call a function makes in this thread, from now on; a hook registered
 * again under the same name replaces the last. A hook that throws fails the call. Clients mocked with
 * aws-sdk-client-mock replace `send` and are not seen.
 */
export function beforeFunctionCalls(name: string, hook: Hook): void {
  hooks.set(name, hook);
  for (const clientClass of CLIENT_CLASSES) {
    const base = Object.getPrototypeOf(clientClass.prototype) as { send: Send };
    if (patched.has(base)) continue;
    patched.add(base);
    const send = base.send;
    base.send = async function (this: SdkClient, command: SdkCommand, ...rest: unknown[]) {
      const functionName = running.getStore();
      if (functionName) for (const run of hooks.values()) await run(this, command, functionName);
      return send.call(this, command, ...rest);
    };
  }
}
