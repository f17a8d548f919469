import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type Decision, type IamRequest, type PolicyStatement } from '../../local/iam/policy';
import { iamRequests, type CallSite } from '../../local/iam/requests';
import { localIam, synthesiseStacks, type LocalIam } from '../../local/iam/roles';

const ACCOUNT = '123456789012';
const TABLE = `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/hookgate`;

describe('IAM policy evaluation', () => {
  const table: PolicyStatement = { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [TABLE, `${TABLE}/index/*`] };
  const assume: PolicyStatement = {
    Effect: 'Allow',
    Action: 'sts:AssumeRole',
    Resource: 'arn:aws:iam::*:role/*',
    Condition: { StringLike: { 'sts:ExternalId': 'hookgate-*' }, StringNotEquals: { 'aws:ResourceAccount': ACCOUNT } },
  };
  const denyDeletes: PolicyStatement = { Effect: 'Deny', Action: 'dynamodb:Delete*', Resource: '*' };
  const cases: [string, PolicyStatement[], IamRequest, Decision][] = [
    ['an action on the table it is granted on', [table], { action: 'dynamodb:GetItem', resource: TABLE }, 'allowed'],
    ['actions match whatever their case', [table], { action: 'DynamoDB:getitem', resource: TABLE }, 'allowed'],
    ['an index of the table through /index/*', [table], { action: 'dynamodb:Query', resource: `${TABLE}/index/by-status` }, 'allowed'],
    ['an action not granted', [table], { action: 'dynamodb:PutItem', resource: TABLE }, 'implicitly-denied'],
    ['another table', [table], { action: 'dynamodb:GetItem', resource: `${TABLE}-other` }, 'implicitly-denied'],
    ['resources match case-sensitively', [table], { action: 'dynamodb:GetItem', resource: TABLE.toUpperCase() }, 'implicitly-denied'],
    ['nothing granted', [], { action: 'dynamodb:GetItem', resource: TABLE }, 'implicitly-denied'],
    ['an explicit Deny beats an Allow', [{ Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' }, denyDeletes], { action: 'dynamodb:DeleteItem', resource: TABLE }, 'explicitly-denied'],
    ['a Deny that does not apply leaves the Allow', [{ Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' }, denyDeletes], { action: 'dynamodb:PutItem', resource: TABLE }, 'allowed'],
    ['AssumeRole with a hookgate- external id into another account', [assume], { action: 'sts:AssumeRole', resource: 'arn:aws:iam::210987654321:role/r', context: { 'sts:ExternalId': 'hookgate-abc', 'aws:ResourceAccount': '210987654321' } }, 'allowed'],
    ['AssumeRole with another external id', [assume], { action: 'sts:AssumeRole', resource: 'arn:aws:iam::210987654321:role/r', context: { 'sts:ExternalId': 'other', 'aws:ResourceAccount': '210987654321' } }, 'implicitly-denied'],
    ['AssumeRole without an external id (a missing key fails StringLike)', [assume], { action: 'sts:AssumeRole', resource: 'arn:aws:iam::210987654321:role/r', context: { 'aws:ResourceAccount': '210987654321' } }, 'implicitly-denied'],
    ['AssumeRole into this account (StringNotEquals)', [assume], { action: 'sts:AssumeRole', resource: `arn:aws:iam::${ACCOUNT}:role/r`, context: { 'sts:ExternalId': 'hookgate-abc', 'aws:ResourceAccount': ACCOUNT } }, 'implicitly-denied'],
    ['a negated operator holds when the key is missing', [{ Effect: 'Allow', Action: 's3:GetObject', Resource: '*', Condition: { StringNotEquals: { 'aws:ResourceAccount': ACCOUNT } } }], { action: 's3:GetObject', resource: 'arn:aws:s3:::b/k' }, 'allowed'],
    ['…IfExists lets a missing key pass', [{ Effect: 'Allow', Action: 'acm:RequestCertificate', Resource: '*', Condition: { StringEqualsIfExists: { 'acm:ValidationMethod': 'DNS' } } }], { action: 'acm:RequestCertificate', resource: '*' }, 'allowed'],
    ['a condition on the validation method', [{ Effect: 'Allow', Action: 'acm:RequestCertificate', Resource: '*', Condition: { StringEquals: { 'acm:ValidationMethod': 'DNS' } } }], { action: 'acm:RequestCertificate', resource: '*', context: { 'acm:ValidationMethod': 'EMAIL' } }, 'implicitly-denied'],
    ['ManageConnections granted on POST only refuses DELETE', [{ Effect: 'Allow', Action: 'execute-api:ManageConnections', Resource: 'arn:aws:execute-api:us-east-1:1:api/live/POST/@connections/*' }], { action: 'execute-api:ManageConnections', resource: 'arn:aws:execute-api:us-east-1:1:api/live/DELETE/@connections/abc' }, 'implicitly-denied'],
    ['NotAction allows every other action', [{ Effect: 'Allow', NotAction: 'iam:*', Resource: '*' }], { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:1:q' }, 'allowed'],
    ['? matches one character', [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-1:1:q?' }], { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:1:q12' }, 'implicitly-denied'],
  ];
  it.each(cases)('%s', (_name, statements, request, decision) => {
    expect(evaluate(statements, request)).toBe(decision);
  });

  it('refuses to guess at a condition operator it does not evaluate', () => {
    expect(() => evaluate([{ Effect: 'Allow', Action: '*', Resource: '*', Condition: { DateLessThan: { 'aws:CurrentTime': '2030-01-01' } } }], { action: 's3:GetObject', resource: '*' })).toThrow(/DateLessThan/);
  });
});

describe('what AWS authorises for each call', () => {
  const site: CallSite = { region: 'us-east-1', account: ACCOUNT, listenApi: { apiId: 'abc123', stage: 'live' } };
  const cases: [string, string, Record<string, unknown>, IamRequest[]][] = [
    ['DynamoDB', 'PutCommand', { TableName: 'hookgate', Item: {} }, [{ action: 'dynamodb:PutItem', resource: TABLE }]],
    ['DynamoDB', 'QueryCommand', { TableName: 'hookgate', IndexName: 'gsi1' }, [{ action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }]],
    ['DynamoDB', 'BatchGetItemCommand', { RequestItems: { hookgate: {}, other: {} } }, [{ action: 'dynamodb:BatchGetItem', resource: TABLE }, { action: 'dynamodb:BatchGetItem', resource: `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/other` }]],
    ['DynamoDB', 'TransactWriteCommand', { TransactItems: [{ Put: { TableName: 'hookgate' } }, { ConditionCheck: { TableName: 'hookgate' } }] }, [{ action: 'dynamodb:PutItem', resource: TABLE }, { action: 'dynamodb:ConditionCheckItem', resource: TABLE }]],
    ['SQS', 'SendMessageBatchCommand', { QueueUrl: 'http://127.0.0.1:9324/000000000000/deliveries' }, [{ action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:deliveries', context: { 'aws:ResourceAccount': '000000000000' } }]],
    ['S3', 'CopyObjectCommand', { Bucket: 'b', Key: 'to/k', CopySource: 'b/from%20here/k' }, [{ action: 's3:GetObject', resource: 'arn:aws:s3:::b/from here/k', context: { 'aws:ResourceAccount': ACCOUNT } }, { action: 's3:PutObject', resource: 'arn:aws:s3:::b/to/k', context: { 'aws:ResourceAccount': ACCOUNT } }]],
    ['STS', 'AssumeRoleCommand', { RoleArn: 'arn:aws:iam::210987654321:role/r', ExternalId: 'hookgate-x' }, [{ action: 'sts:AssumeRole', resource: 'arn:aws:iam::210987654321:role/r', context: { 'aws:ResourceAccount': '210987654321', 'sts:ExternalId': 'hookgate-x' } }]],
    ['ApiGatewayManagementApi', 'DeleteConnectionCommand', { ConnectionId: 'c1' }, [{ action: 'execute-api:ManageConnections', resource: `arn:aws:execute-api:us-east-1:${ACCOUNT}:abc123/live/DELETE/@connections/c1` }]],
    ['ApiGatewayV2', 'DeleteApiMappingCommand', { DomainName: 'hooks.example.com', ApiMappingId: 'm1' }, [{ action: 'apigateway:DELETE', resource: 'arn:aws:apigateway:us-east-1::/domainnames/hooks.example.com/apimappings/m1' }]],
    ['Lambda', 'InvokeCommand', { FunctionName: 'hookgate-export' }, [{ action: 'lambda:InvokeFunction', resource: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:hookgate-export` }]],
    ['KMS', 'DecryptCommand', { KeyId: 'k-1', CiphertextBlob: new Uint8Array(1), EncryptionContext: { account_id: 'a' } }, [{ action: 'kms:Decrypt', resource: `arn:aws:kms:us-east-1:${ACCOUNT}:key/k-1`, context: { 'kms:EncryptionContext:account_id': 'a' } }]],
    ['KMS', 'EncryptCommand', { KeyId: 'arn:aws:kms:eu-west-1:1:key/k-2' }, [{ action: 'kms:Encrypt', resource: 'arn:aws:kms:eu-west-1:1:key/k-2', context: {} }]],
    ['EventBridge', 'PutEventsCommand', { Entries: [{}, { EventBusName: 'arn:aws:events:eu-west-1:1:event-bus/b' }] }, [{ action: 'events:PutEvents', resource: `arn:aws:events:us-east-1:${ACCOUNT}:event-bus/default` }, { action: 'events:PutEvents', resource: 'arn:aws:events:eu-west-1:1:event-bus/b' }]],
  ];
  it.each(cases)('%s %s', (service, command, input, requests) => {
    expect(iamRequests(service, command, input, site)).toEqual(requests);
  });

  it('refuses a call it has no rule for, naming where to add one', () => {
    expect(() => iamRequests('DynamoDB', 'DeleteTableCommand', { TableName: 'hookgate' }, site)).toThrow(/DeleteTableCommand.*local\/iam\/requests\.ts/);
  });
});

describe('the functions’ roles, from the synthesised stack', () => {
  const names = {
    account: '000000000000',
    region: 'us-east-1',
    tableName: 'hookgate',
    deliveryQueueUrl: 'http://127.0.0.1:1/000000000000/hookgate-deliveries',
    deliveryDlqUrl: 'http://127.0.0.1:1/000000000000/hookgate-deliveries-dlq',
    payloadBucket: 'payloads',
    exportBucket: 'exports',
    signingKeysKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  };
  const site = (iam: LocalIam): CallSite => ({ region: iam.region, account: iam.account, listenApi: iam.listenApi });
  const decide = (iam: LocalIam, fn: string, service: string, command: string, input: Record<string, unknown>) =>
    iamRequests(service, command, input, site(iam)).map((request) => evaluate(iam.roles[fn]?.statements ?? [], request));
  let iam: LocalIam;
  // Both stacks synthesised in a child process: a few seconds idle, several times that on a loaded
  // machine (it failed at vitest's 10 s default beside two busy loops). The deadline is for a hang.
  beforeAll(async () => {
    iam = localIam(await synthesiseStacks(), names);
  }, 120_000);

  it('has a role for every function the runtime runs', () => {
    expect(Object.keys(iam.roles).sort()).toEqual(['hookgate-api', 'hookgate-deliver', 'hookgate-domain-provisioner', 'hookgate-export', 'hookgate-ingest', 'hookgate-listen', 'hookgate-sweeper']);
  });

  it('resolves the cross-stack references to the local table, queue and buckets', () => {
    expect(decide(iam, 'hookgate-ingest', 'DynamoDB', 'PutCommand', { TableName: 'hookgate' })).toEqual(['allowed']);
    expect(decide(iam, 'hookgate-ingest', 'SQS', 'SendMessageCommand', { QueueUrl: names.deliveryQueueUrl })).toEqual(['allowed']);
    expect(decide(iam, 'hookgate-ingest', 'S3', 'PutObjectCommand', { Bucket: 'payloads', Key: 'a/b' })).toEqual(['allowed']);
  });

  it('grants each function only what its code calls', () => {
    // Ingest never reads an export, never receives from the queue, never sends to the DLQ.
    expect(decide(iam, 'hookgate-ingest', 'S3', 'GetObjectCommand', { Bucket: 'exports', Key: 'x' })).toEqual(['implicitly-denied']);
    expect(decide(iam, 'hookgate-ingest', 'SQS', 'ReceiveMessageCommand', { QueueUrl: names.deliveryQueueUrl })).toEqual(['implicitly-denied']);
    expect(decide(iam, 'hookgate-deliver', 'SQS', 'SendMessageCommand', { QueueUrl: names.deliveryDlqUrl })).toEqual(['implicitly-denied']);
    // The listen function never posts to a connection; the deliver function posts and closes.
    expect(decide(iam, 'hookgate-listen', 'ApiGatewayManagementApi', 'PostToConnectionCommand', { ConnectionId: 'c' })).toEqual(['implicitly-denied']);
    expect(decide(iam, 'hookgate-deliver', 'ApiGatewayManagementApi', 'PostToConnectionCommand', { ConnectionId: 'c' })).toEqual(['allowed']);
    expect(decide(iam, 'hookgate-deliver', 'ApiGatewayManagementApi', 'DeleteConnectionCommand', { ConnectionId: 'c' })).toEqual(['allowed']);
    expect(decide(iam, 'hookgate-deliver', 'ApiGatewayManagementApi', 'GetConnectionCommand', { ConnectionId: 'c' })).toEqual(['implicitly-denied']);
    // The API starts the export function, and nothing else.
    expect(decide(iam, 'hookgate-api', 'Lambda', 'InvokeCommand', { FunctionName: 'hookgate-export' })).toEqual(['allowed']);
    expect(decide(iam, 'hookgate-api', 'Lambda', 'InvokeCommand', { FunctionName: 'hookgate-sweeper' })).toEqual(['implicitly-denied']);
  });

  it('the signing keys KMS key: the api function encrypts only, the deliver function decrypts only, no other function either', () => {
    const use = (fn: string, command: 'EncryptCommand' | 'DecryptCommand') => decide(iam, fn, 'KMS', command, { KeyId: names.signingKeysKeyArn, EncryptionContext: { account_id: 'a', kid: 'k' } })[0];
    const grants = Object.keys(iam.roles).map((fn) => [fn, use(fn, 'EncryptCommand'), use(fn, 'DecryptCommand')]);
    expect(grants.filter(([, encrypt, decrypt]) => encrypt === 'allowed' || decrypt === 'allowed')).toEqual([
      ['hookgate-api', 'allowed', 'implicitly-denied'],
      ['hookgate-deliver', 'implicitly-denied', 'allowed'],
    ]);
    // Another key of the account is not the grant's.
    expect(decide(iam, 'hookgate-deliver', 'KMS', 'DecryptCommand', { KeyId: 'arn:aws:kms:us-east-1:000000000000:key/other' })).toEqual(['implicitly-denied']);
  });

  it('refuses a reference it cannot resolve where it would fail open: in a Deny', () => {
    const fn = { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] }, Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'hookgate-api' } } } };
    const policy = (statement: Record<string, unknown>) => ({ Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'Role' }], PolicyDocument: { Statement: [statement] } } });
    const stacks = (statement: Record<string, unknown>) => ({
      stateful: { Resources: {} },
      service: { Resources: { Fn: fn, Role: { Type: 'AWS::IAM::Role' }, Policy: policy(statement) } },
      statefulIds: { table: 'T', deliveryQueue: 'Q', deliveryDlq: 'D', payloadBucket: 'P', exportBucket: 'E', signingKeysKey: 'K' },
    });
    const elsewhere = { 'Fn::GetAtt': ['SomethingElse', 'Arn'] };
    expect(() => localIam(stacks({ Effect: 'Deny', Action: 's3:*', Resource: elsewhere }), names)).toThrow(/cannot resolve a reference/);
    // In an Allow's Resource it grants nothing, which is safe: only the missing stage stops this one.
    expect(() => localIam(stacks({ Effect: 'Allow', Action: 's3:*', Resource: elsewhere }), names)).toThrow(/no WebSocket stage/);
  });

  it('keeps STS’s conditions: a hookgate- external id, never a role of this account', () => {
    const assume = (roleArn: string, externalId?: string) => decide(iam, 'hookgate-deliver', 'STS', 'AssumeRoleCommand', { RoleArn: roleArn, ...(externalId ? { ExternalId: externalId } : {}) });
    expect(assume('arn:aws:iam::210987654321:role/HookgateDelivery', 'hookgate-1')).toEqual(['allowed']);
    expect(assume('arn:aws:iam::210987654321:role/HookgateDelivery')).toEqual(['implicitly-denied']);
    expect(assume('arn:aws:iam::000000000000:role/admin', 'hookgate-1')).toEqual(['implicitly-denied']);
  });

  it('with emulatorTargets (npm start) the deliver role sends to a developer\'s queues and buckets on the emulators, and to nothing else it lacked', async () => {
    const local = localIam(await synthesiseStacks(), names, { emulatorTargets: true });
    const send = (role: LocalIam, queueUrl: string) => decide(role, 'hookgate-deliver', 'SQS', 'SendMessageCommand', { QueueUrl: queueUrl })[0];
    const put = (role: LocalIam, bucket: string, fn = 'hookgate-deliver') => decide(role, fn, 'S3', 'PutObjectCommand', { Bucket: bucket, Key: 'events/1' })[0];
    expect([send(local, 'http://127.0.0.1:1/000000000000/orders'), put(local, 'events-archive')]).toEqual(['allowed', 'allowed']);
    // What the stack alone refuses, as a deployment that does not list them.
    expect([send(iam, 'http://127.0.0.1:1/000000000000/orders'), put(iam, 'events-archive')]).toEqual(['implicitly-denied', 'implicitly-denied']);
    // The gateway's own: exactly the stack's grants (the delivery queue is the stack's; the API refuses it as a target).
    for (const role of [iam, local]) {
      expect([send(role, names.deliveryQueueUrl), send(role, names.deliveryDlqUrl)]).toEqual(['allowed', 'implicitly-denied']);
      expect([put(role, 'payloads'), put(role, 'exports')]).toEqual(['implicitly-denied', 'implicitly-denied']);
    }
    // A queue of another account is no emulator's, and no other function gains anything.
    expect(send(local, 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders')).toBe('implicitly-denied');
    for (const fn of Object.keys(iam.roles).filter((name) => name !== 'hookgate-deliver')) expect(local.roles[fn]?.statements).toEqual(iam.roles[fn]?.statements);
    expect(put(local, 'events-archive', 'hookgate-api')).toBe('implicitly-denied');
  });
});
