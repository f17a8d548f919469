import { LOCAL_CREDENTIALS } from '../aws-clients';
import { beforeFunctionCalls, type SdkClient, type SdkCommand } from '../sdk-hooks';
import { evaluate, type IamRequest } from './policy';
import { iamRequests } from './requests';
import type { LocalIam, LocalRole } from './roles';

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
  KMS: { name: 'AccessDeniedException', status: 400 },
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
 * From now on, every AWS SDK call made in this thread while a function runs is authorised against
 * that function's role first, as AWS would, and refused with the service's AccessDenied. Calls
 * outside any function (the runtime creating its resources, a test reading the table) are the
 * operator's, and pass.
 */
export function enforceIam(iam: LocalIam): void {
  beforeFunctionCalls('iam', (client, command, functionName) => authorise(client, command, functionName, iam));
}
