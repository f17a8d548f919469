import type { IamRequest } from './policy';

/** Where a call is made from: the ARNs AWS would authorise it against are built from these. */
export interface CallSite {
  readonly region: string;
  readonly account: string;
  /** The WebSocket API a management client talks to (locally one: the listen server). */
  readonly listenApi: { readonly apiId: string; readonly stage: string };
}

type Input = Readonly<Record<string, unknown>>;
type Mapper = (input: Input, site: CallSite) => IamRequest[];

const str = (input: Input, key: string): string => {
  const value = input[key];
  if (typeof value !== 'string') throw new Error(`local IAM: the call has no ${key}`);
  return value;
};

const table = (site: CallSite, name: string, index?: unknown): string =>
  `arn:aws:dynamodb:${site.region}:${site.account}:table/${name}${typeof index === 'string' ? `/index/${index}` : ''}`;

/** The queue's ARN from its URL (`…/<account>/<name>`), which names the owner as AWS's does. */
function queue(site: CallSite, url: string): string {
  const [account, name] = new URL(url).pathname.split('/').filter(Boolean).slice(-2);
  if (!account || !name) throw new Error(`local IAM: ${url} is no queue URL`);
  return `arn:aws:sqs:${site.region}:${account}:${name}`;
}

const object = (bucket: string, key: string): string => `arn:aws:s3:::${bucket}/${key}`;
const accountOf = (arn: string): string => arn.split(':')[4] ?? '';

const one = (action: string, resource: (input: Input, site: CallSite) => string, context?: (input: Input, site: CallSite) => Record<string, string>): Mapper =>
  (input, site) => [{ action, resource: resource(input, site), ...(context ? { context: context(input, site) } : {}) }];

/** The account that owns the resource, which AWS gives every request as `aws:ResourceAccount`: a queue's is in its URL. */
const queueOwner = (input: Input, site: CallSite): Record<string, string> => ({ 'aws:ResourceAccount': accountOf(queue(site, str(input, 'QueueUrl'))) });
/** Every bucket the local S3 emulator holds is the local account's. */
const bucketOwner = (_input: Input, site: CallSite): Record<string, string> => ({ 'aws:ResourceAccount': site.account });

const onTable = (action: string): Mapper => one(`dynamodb:${action}`, (input, site) => table(site, str(input, 'TableName'), input.IndexName));

/** Batch and transaction calls are authorised per table (per item's own action in a transaction). */
const perTable = (action: string): Mapper => (input, site) =>
  Object.keys((input.RequestItems ?? {}) as object).map((name) => ({ action: `dynamodb:${action}`, resource: table(site, name) }));

const TRANSACT_ACTIONS: Readonly<Record<string, string>> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
const transact: Mapper = (input, site) =>
  ((input.TransactItems ?? []) as Record<string, { TableName: string }>[]).flatMap((item) =>
    Object.entries(item).map(([kind, operation]) => ({ action: `dynamodb:${TRANSACT_ACTIONS[kind] ?? kind}`, resource: table(site, operation.TableName) })),
  );

const onQueue = (action: string): Mapper => one(`sqs:${action}`, (input, site) => queue(site, str(input, 'QueueUrl')), queueOwner);
const onObject = (action: string): Mapper => one(`s3:${action}`, (input) => object(str(input, 'Bucket'), str(input, 'Key')), bucketOwner);

const connection = (method: string): Mapper =>
  one('execute-api:ManageConnections', (input, site) => `arn:aws:execute-api:${site.region}:${site.account}:${site.listenApi.apiId}/${site.listenApi.stage}/${method}/@connections/${str(input, 'ConnectionId')}`);

const apigateway = (method: string, path: (input: Input) => string): Mapper => one(`apigateway:${method}`, (input, site) => `arn:aws:apigateway:${site.region}::${path(input)}`);
const domainName = (input: Input) => `/domainnames/${str(input, 'DomainName')}`;

const lambdaFunction = (input: Input, site: CallSite): string => {
  const name = str(input, 'FunctionName');
  return name.startsWith('arn:') ? name : `arn:aws:lambda:${site.region}:${site.account}:function:${name}`;
};

/** A KMS call is authorised on the key it names (an ARN, or an id in the caller's account and region); its encryption context is in the request's condition keys. */
const onKey = (action: string): Mapper => one(
  `kms:${action}`,
  (input, site) => {
    const key = str(input, 'KeyId');
    return key.startsWith('arn:') ? key : `arn:aws:kms:${site.region}:${site.account}:key/${key}`;
  },
  (input) => Object.fromEntries(Object.entries((input.EncryptionContext ?? {}) as Record<string, string>).map(([k, v]) => [`kms:EncryptionContext:${k}`, v])),
);

/**
 * The IAM actions and resources of every call the functions make, by the client's service id and the
 * command's name (DynamoDB's document client commands under their own names). A call missing here is
 * refused: a new call must say what it needs.
 */
const CALLS: Readonly<Record<string, Readonly<Record<string, Mapper>>>> = {
  DynamoDB: {
    GetItem: onTable('GetItem'),
    Get: onTable('GetItem'),
    PutItem: onTable('PutItem'),
    Put: onTable('PutItem'),
    UpdateItem: onTable('UpdateItem'),
    Update: onTable('UpdateItem'),
    DeleteItem: onTable('DeleteItem'),
    Delete: onTable('DeleteItem'),
    Query: onTable('Query'),
    Scan: onTable('Scan'),
    BatchGetItem: perTable('BatchGetItem'),
    BatchGet: perTable('BatchGetItem'),
    BatchWriteItem: perTable('BatchWriteItem'),
    BatchWrite: perTable('BatchWriteItem'),
    TransactWriteItems: transact,
    TransactWrite: transact,
    TransactGetItems: transact,
    TransactGet: transact,
    DescribeTable: onTable('DescribeTable'),
  },
  SQS: {
    SendMessage: onQueue('SendMessage'),
    SendMessageBatch: onQueue('SendMessage'),
    ReceiveMessage: onQueue('ReceiveMessage'),
    DeleteMessage: onQueue('DeleteMessage'),
    DeleteMessageBatch: onQueue('DeleteMessage'),
    ChangeMessageVisibility: onQueue('ChangeMessageVisibility'),
    ChangeMessageVisibilityBatch: onQueue('ChangeMessageVisibility'),
    GetQueueAttributes: onQueue('GetQueueAttributes'),
    GetQueueUrl: one('sqs:GetQueueUrl', (input, site) => `arn:aws:sqs:${site.region}:${typeof input.QueueOwnerAWSAccountId === 'string' ? input.QueueOwnerAWSAccountId : site.account}:${str(input, 'QueueName')}`),
  },
  S3: {
    GetObject: onObject('GetObject'),
    HeadObject: onObject('GetObject'),
    PutObject: onObject('PutObject'),
    DeleteObject: onObject('DeleteObject'),
    CopyObject: (input, site) => {
      const source = decodeURIComponent(str(input, 'CopySource').replace(/^\//, '').split('?')[0] ?? '');
      const context = bucketOwner(input, site);
      return [
        { action: 's3:GetObject', resource: `arn:aws:s3:::${source}`, context },
        { action: 's3:PutObject', resource: object(str(input, 'Bucket'), str(input, 'Key')), context },
      ];
    },
    ListObjectsV2: one('s3:ListBucket', (input) => `arn:aws:s3:::${str(input, 'Bucket')}`, bucketOwner),
  },
  STS: {
    AssumeRole: one(
      'sts:AssumeRole',
      (input) => str(input, 'RoleArn'),
      (input): Record<string, string> => ({
        'aws:ResourceAccount': accountOf(str(input, 'RoleArn')),
        ...(typeof input.ExternalId === 'string' ? { 'sts:ExternalId': input.ExternalId } : {}),
      }),
    ),
  },
  ACM: {
    RequestCertificate: one('acm:RequestCertificate', () => '*', (input): Record<string, string> => (typeof input.ValidationMethod === 'string' ? { 'acm:ValidationMethod': input.ValidationMethod } : {})),
    DescribeCertificate: one('acm:DescribeCertificate', (input) => str(input, 'CertificateArn')),
    DeleteCertificate: one('acm:DeleteCertificate', (input) => str(input, 'CertificateArn')),
  },
  ApiGatewayV2: {
    CreateDomainName: apigateway('POST', () => '/domainnames'),
    GetDomainName: apigateway('GET', domainName),
    DeleteDomainName: apigateway('DELETE', domainName),
    GetApiMappings: apigateway('GET', (input) => `${domainName(input)}/apimappings`),
    CreateApiMapping: apigateway('POST', (input) => `${domainName(input)}/apimappings`),
    DeleteApiMapping: apigateway('DELETE', (input) => `${domainName(input)}/apimappings/${str(input, 'ApiMappingId')}`),
  },
  ApiGatewayManagementApi: {
    PostToConnection: connection('POST'),
    DeleteConnection: connection('DELETE'),
    GetConnection: connection('GET'),
  },
  Lambda: {
    Invoke: one('lambda:InvokeFunction', lambdaFunction),
  },
  EventBridge: {
    PutEvents: (input, site) =>
      [...new Set(((input.Entries ?? []) as { EventBusName?: string }[]).map((entry) => entry.EventBusName ?? 'default'))].map((bus) => ({
        action: 'events:PutEvents',
        resource: bus.startsWith('arn:') ? bus : `arn:aws:events:${site.region}:${site.account}:event-bus/${bus}`,
      })),
  },
  SNS: {
    Publish: one('sns:Publish', (input) => str(input, 'TopicArn')),
  },
  KMS: {
    Encrypt: onKey('Encrypt'),
    Decrypt: onKey('Decrypt'),
  },
  Kinesis: {
    PutRecord: one('kinesis:PutRecord', (input, site) =>
      typeof input.StreamARN === 'string' ? input.StreamARN : `arn:aws:kinesis:${site.region}:${site.account}:stream/${str(input, 'StreamName')}`,
    ),
  },
};

/** What AWS authorises for this call; throws for a call the table does not know. */
export function iamRequests(serviceId: string, commandName: string, input: Input, site: CallSite): IamRequest[] {
  const mapper = CALLS[serviceId]?.[commandName.replace(/Command$/, '')];
  if (!mapper) throw new Error(`local IAM does not know what ${serviceId} ${commandName} needs: add it to local/iam/requests.ts`);
  return mapper(input, site);
}
