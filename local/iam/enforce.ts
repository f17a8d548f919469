import { AsyncLocalStorage } from 'node:async_hooks';
import { ACMClient } from '@aws-sdk/client-acm';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayV2Client } from '@aws-sdk/client-apigatewayv2';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS } from '../aws-clients';
import { evaluate, type IamRequest } from './policy';
import { iamRequests } from './requests';
import type { LocalIam, LocalRole } from './roles';

/** The local function whose code is running: set around each invocation (and the deliver poller), read by every SDK call it makes. */
const running = new AsyncLocalStorage<string>();

/** Runs `work` as the function `name` (`hookgate-api`, …): its SDK calls are authorised against that function's role. */
export function runAs<T>(name: string, work: () => T): T {
  return running.run(name, work);
}

/** The local function whose code is running now; undefined outside any (the runtime's or an operator's own calls). */
export const runningFunction = (): string | undefined => running.getStore();

/** Runs `work` outside any function: its calls are the runtime's own (a meter's reads), authorised as an operator's. */
export function asRuntime<T>(work: () => T): T {
  return running.exit(work);
}

/** The exception each service answers an unauthorised call with. */
const DENIALS: Readonly<Record<string, { name: string; status: number }>> = {
  DynamoDB: { name: 'AccessDeniedException', status: 400 },
  SQS: { name: 'AccessDenied', status: 403 },
  S3: { name: 'AccessDenied', status: 403 },
  STS: { name: 'AccessDenied', status: 403 },
  ACM: { name: 'AccessDeniedException', status: 400 },
  ApiGatewayV2: { name: 'AccessDeniedException', status: 403 },
  ApiGatewayManagementApi: { name: 'ForbiddenException', status: 403 },
  Lambda: { name: 'AccessDeniedException', status: 403 },
  EventBridge: { name: 'AccessDeniedException', status: 400 },
  SNS: { name: 'AuthorizationError', status: 403 },
  Kinesis: { name: 'AccessDeniedException', status: 400 },
};

class LocalAccessDenied extends Error {
  readonly $fault = 'client';
  readonly $metadata: { httpStatusCode: number };
  constructor(serviceId: string, functionName: string, role: LocalRole | undefined, request: IamRequest) {
    const denial = DENIALS[serviceId] ?? { name: 'AccessDenied', status: 403 };
    const who = role ? `arn:aws:sts::${role.roleArn.split(':')[4]}:assumed-role/${role.roleArn.split('/').at(-1)}/${functionName}` : functionName;
    super(`User: ${who} is not authorized to perform: ${request.action} on resource: ${request.resource} because no identity-based policy allows the ${request.action} action`);
    this.name = denial.name;
    this.$metadata = { httpStatusCode: denial.status };
  }
}

interface SdkClient {
  config: { serviceId?: string; region?: () => Promise<string>; credentials?: () => Promise<{ accessKeyId: string }> };
}
interface SdkCommand {
  input: Record<string, unknown>;
  constructor: { name: string };
}
type Send = (this: SdkClient, command: SdkCommand, ...rest: unknown[]) => Promise<unknown>;

let policy: LocalIam | undefined;
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
  LambdaClient,
  S3Client,
  SNSClient,
  SQSClient,
  STSClient,
];

async function authorise(client: SdkClient, command: SdkCommand, functionName: string, iam: LocalIam): Promise<void> {
  // A client holding other credentials (an AWS connection's assumed role) acts as that role, whose policy lives in another account.
  const credentials = await client.config.credentials?.();
  if (credentials && credentials.accessKeyId !== LOCAL_CREDENTIALS.accessKeyId) return;
  const serviceId = client.config.serviceId ?? 'unknown';
  const region = (await client.config.region?.()) ?? iam.region;
  const role = iam.roles[functionName];
  for (const request of iamRequests(serviceId, command.constructor.name, command.input, { region, account: iam.account, listenApi: iam.listenApi })) {
    if (!role || evaluate(role.statements, request) !== 'allowed') throw new LocalAccessDenied(serviceId, functionName, role, request);
  }
}

/**
 * From now on, every AWS SDK call made in this thread while a function runs (runAs) is authorised
 * against that function's role first, as AWS would, and refused with the service's AccessDenied.
 * Calls outside any function (the runtime creating its resources, a test reading the table) are the
 * operator's, and pass. Clients mocked with aws-sdk-client-mock replace `send` and are not seen.
 */
export function enforceIam(iam: LocalIam): void {
  policy = iam;
  for (const clientClass of CLIENT_CLASSES) {
    const base = Object.getPrototypeOf(clientClass.prototype) as { send: Send };
    if (patched.has(base)) continue;
    patched.add(base);
    const send = base.send;
    base.send = function (this: SdkClient, command: SdkCommand, ...rest: unknown[]) {
      const functionName = running.getStore();
      if (!functionName || !policy) return send.call(this, command, ...rest);
      return authorise(this, command, functionName, policy).then(() => send.call(this, command, ...rest));
    };
  }
}
