import { describe, expect, it } from 'vitest';
import { connectionCapRefusal, connectionRoleArn, connectionTemplate, connectionUseRefusal, KMS_KEY_PARAMETER, partitionOf, roleNameOf, trustPolicy } from '../../lambdas/domain/aws-connections';
import type { AwsTarget } from '../../lambdas/domain/aws-targets';

const ACCOUNT = '123456789012';
const OTHER = '210987654321';
const topic = (account: string): AwsTarget => ({ type: 'aws_sns', topic_arn: `arn:aws:sns:eu-west-1:${account}:orders` });

describe('which destinations may use a connection', () => {
  it.each<[string, { aws_account_id: string; customer: string | null }, AwsTarget, string | null, string | undefined]>([
    ['the account’s own, same AWS account', { aws_account_id: ACCOUNT, customer: null }, topic(ACCOUNT), null, undefined],
    ['the account’s own, for a customer’s destination', { aws_account_id: ACCOUNT, customer: null }, topic(ACCOUNT), 'cus_1', undefined],
    ['a customer’s, for that customer', { aws_account_id: ACCOUNT, customer: 'cus_1' }, topic(ACCOUNT), 'cus_1', undefined],
    ['a customer’s, for another customer', { aws_account_id: ACCOUNT, customer: 'cus_1' }, topic(ACCOUNT), 'cus_2', "connection_id belongs to customer cus_1; the destination is not that customer's"],
    ['a customer’s, for the account’s own destination', { aws_account_id: ACCOUNT, customer: 'cus_1' }, topic(ACCOUNT), null, "connection_id belongs to customer cus_1; the destination is not that customer's"],
    ['a target in another AWS account', { aws_account_id: ACCOUNT, customer: null }, topic(OTHER), null, `connection_id is for AWS account ${ACCOUNT}; the target is in account ${OTHER}`],
    ['a queue in another AWS account', { aws_account_id: ACCOUNT, customer: null }, { type: 'aws_sqs', queue_url: `https://sqs.eu-west-1.amazonaws.com/${OTHER}/q` }, null, `connection_id is for AWS account ${ACCOUNT}; the target is in account ${OTHER}`],
    ['a bucket (no account in its name)', { aws_account_id: ACCOUNT, customer: null }, { type: 'aws_s3', bucket: 'b-1', key_template: '{event_id}', region: null }, null, undefined],
  ])('%s', (_, connection, target, customer, refusal) => expect(connectionUseRefusal(connection, target, customer)).toBe(refusal));
});

/**
 * The stack CloudFormation would make of a template with these parameter values: conditions
 * evaluated, `Fn::If` resolved, `Ref`s to parameters replaced, `AWS::NoValue` dropped from lists and
 * objects. Only the intrinsic functions the connection's template uses.
 */
function deployed(template: ReturnType<typeof connectionTemplate>, parameters: Record<string, string>) {
  const NO_VALUE = Symbol('AWS::NoValue');
  const values = Object.fromEntries(Object.entries(template.Parameters).map(([name, p]) => [name, parameters[name] ?? p.Default]));
  const conditions: Record<string, unknown> = template.Conditions ?? {};
  const condition = (name: string): boolean => Boolean(resolve(conditions[name]));
  function resolve(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(resolve).filter((item) => item !== NO_VALUE);
    if (typeof node !== 'object' || node === null) return node;
    const [fn, args] = Object.entries(node)[0] ?? [];
    if (fn === 'Ref') return args === 'AWS::NoValue' ? NO_VALUE : values[args as string];
    if (fn === 'Fn::If') return resolve(condition((args as [string])[0]) ? (args as unknown[])[1] : (args as unknown[])[2]);
    if (fn === 'Fn::Equals') return resolve((args as unknown[])[0]) === resolve((args as unknown[])[1]);
    if (fn === 'Fn::Not') return !resolve((args as unknown[])[0]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]).filter(([, v]) => v !== NO_VALUE));
  }
  return resolve(template.Resources) as { HookgateDeliveryRole: { Properties: { Policies?: Array<{ PolicyDocument: { Statement: unknown[] } }> } } };
}

describe('the role and its template', () => {
  it('names the role after the connection and puts it in the principals’ partition', () => {
    expect(roleNameOf('01970c74-5000-7399-8a4b-c5d6e7f8a1b2')).toBe('HookgateDelivery-c5d6e7f8a1b2');
    expect(partitionOf(['arn:aws-cn:iam::111111111111:role/d'])).toBe('aws-cn');
    expect(connectionRoleArn('aws', ACCOUNT, 'R')).toBe(`arn:aws:iam::${ACCOUNT}:role/R`);
  });

  it('trusts the principals only under the external id: their account, narrowed to their ARNs by aws:PrincipalArn (a replaced role of the same name still matches)', () => {
    expect(trustPolicy(['arn:aws:iam::1:role/d'], 'hookgate-x').Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::1:root' },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'sts:ExternalId': 'hookgate-x' }, ArnEquals: { 'aws:PrincipalArn': 'arn:aws:iam::1:role/d' } },
      },
    ]);
    const both = ['arn:aws-cn:iam::111111111111:role/hookgate-prod-cn-north-1-deliver', 'arn:aws-cn:iam::111111111111:role/hookgate-prod-cn-north-1-api'];
    expect(trustPolicy(both, 'hookgate-y').Statement[0]).toMatchObject({
      Principal: { AWS: 'arn:aws-cn:iam::111111111111:root' },
      Condition: { ArnEquals: { 'aws:PrincipalArn': both } },
    });
  });

  it('grants one action per kind of target, on exactly the targets, and nothing without destinations', () => {
    const targets: AwsTarget[] = [
      { type: 'aws_sqs', queue_url: `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/orders.fifo` },
      topic(ACCOUNT),
      topic(ACCOUNT),
      { type: 'aws_eventbridge', event_bus_arn: `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/b`, detail_type: null, source: 'hookgate' },
      { type: 'aws_kinesis', stream_arn: `arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/s`, partition_key: 'event_id' },
      { type: 'aws_lambda', function_arn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:f` },
      { type: 'aws_s3', bucket: 'archive', key_template: '{event_id}', region: null },
      { type: 'aws_sqs', queue_url: `http://127.0.0.1:4566/${ACCOUNT}/local` },
    ];
    const role = deployed(connectionTemplate({ roleName: 'R', trustPolicy: {} }, targets, 'aws'), {}).HookgateDeliveryRole.Properties;
    expect(role.Policies?.[0]?.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: [`arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/b`] },
      { Effect: 'Allow', Action: 'kinesis:PutRecord', Resource: [`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/s`] },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [`arn:aws:lambda:eu-west-1:${ACCOUNT}:function:f`] },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: ['arn:aws:s3:::archive/*'] },
      { Effect: 'Allow', Action: 'sns:Publish', Resource: [`arn:aws:sns:eu-west-1:${ACCOUNT}:orders`] },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [`arn:aws:sqs:eu-west-1:${ACCOUNT}:orders.fifo`] },
    ]);
    expect(connectionTemplate({ roleName: 'R', trustPolicy: {} }, [], 'aws').Resources.HookgateDeliveryRole.Properties).not.toHaveProperty('Policies');
  });
});

describe('the template with and without a KMS key (SSE-KMS targets)', () => {
  const KEY = `arn:aws:kms:eu-west-1:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
  const queue: AwsTarget = { type: 'aws_sqs', queue_url: `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/orders` };
  const stream: AwsTarget = { type: 'aws_kinesis', stream_arn: `arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/s`, partition_key: 'event_id' };
  const send = { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [`arn:aws:sqs:eu-west-1:${ACCOUNT}:orders`] };
  const put = { Effect: 'Allow', Action: 'kinesis:PutRecord', Resource: [`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/s`] };
  const useKey = { Effect: 'Allow', Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: KEY };

  it.each<[string, AwsTarget[], string | undefined, unknown[] | undefined]>([
    ['a queue, no key: the send alone', [queue], undefined, [send]],
    ['a queue, an empty key: the send alone', [queue], '', [send]],
    ['a queue and a key: the send, and GenerateDataKey and Decrypt on that key', [queue], KEY, [send, useKey]],
    ['a stream and a queue with a key: both, and the key once', [stream, queue], KEY, [put, send, useKey]],
    ['no destination yet, a key: still no policy (nothing to encrypt for)', [], KEY, undefined],
  ])('%s', (_, targets, key, statements) => {
    const template = connectionTemplate({ roleName: 'R', trustPolicy: {} }, targets, 'aws');
    const role = deployed(template, key === undefined ? {} : { [KMS_KEY_PARAMETER]: key }).HookgateDeliveryRole.Properties;
    expect(role.Policies?.[0]?.PolicyDocument.Statement).toEqual(statements);
  });

  it.each<[string, string, string, boolean]>([
    ['none', 'aws', '', true],
    ['a key ARN', 'aws', KEY, true],
    ['a multi-Region key', 'aws', `arn:aws:kms:eu-west-1:${ACCOUNT}:key/mrk-1234abcd12ab34cd56ef1234567890ab`, true],
    ['a key of the connection’s partition', 'aws-cn', `arn:aws-cn:kms:cn-north-1:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`, true],
    ['a key of another partition', 'aws-cn', KEY, false],
    ['an alias (IAM grants nothing on one)', 'aws', `arn:aws:kms:eu-west-1:${ACCOUNT}:alias/orders`, false],
    ['a wildcard', 'aws', `arn:aws:kms:eu-west-1:${ACCOUNT}:key/*`, false],
    ['a bare key id', 'aws', '1234abcd-12ab-34cd-56ef-1234567890ab', false],
  ])('the parameter takes %s: %s → %s', (_, partition, value, accepted) => {
    const parameter = connectionTemplate({ roleName: 'R', trustPolicy: {} }, [queue], partition).Parameters[KMS_KEY_PARAMETER];
    expect(parameter.Default).toBe('');
    expect(new RegExp(parameter.AllowedPattern).test(value)).toBe(accepted);
  });
});

describe('how many connections a customer may have', () => {
  it.each<[number, number, string | undefined]>([
    [0, 20, undefined],
    [19, 20, undefined],
    [20, 20, 'customer cus_42 has reached its limit of 20 AWS connections'],
    [25, 20, 'customer cus_42 has reached its limit of 20 AWS connections'],
  ])('%i of %i: %s', (owned, cap, refusal) => expect(connectionCapRefusal('cus_42', owned, cap)).toBe(refusal));
});
