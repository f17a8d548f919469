import { describe, expect, it } from 'vitest';
import { connectionCapRefusal, connectionRoleArn, connectionTemplate, connectionUseRefusal, partitionOf, roleNameOf, trustPolicy } from '../../lambdas/domain/aws-connections';
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

describe('the role and its template', () => {
  it('names the role after the connection and puts it in the principals’ partition', () => {
    expect(roleNameOf('01970c74-5000-7399-8a4b-c5d6e7f8a1b2')).toBe('HookgateDelivery-c5d6e7f8a1b2');
    expect(partitionOf(['arn:aws-cn:iam::111111111111:role/d'])).toBe('aws-cn');
    expect(connectionRoleArn('aws', ACCOUNT, 'R')).toBe(`arn:aws:iam::${ACCOUNT}:role/R`);
  });

  it('trusts the principals only under the external id', () => {
    expect(trustPolicy(['arn:aws:iam::1:role/d'], 'hookgate-x').Statement).toEqual([
      { Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::1:role/d' }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'sts:ExternalId': 'hookgate-x' } } },
    ]);
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
    const role = connectionTemplate({ roleName: 'R', trustPolicy: {} }, targets, 'aws').Resources.HookgateDeliveryRole.Properties;
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

describe('how many connections a customer may have', () => {
  it.each<[number, number, string | undefined]>([
    [0, 20, undefined],
    [19, 20, undefined],
    [20, 20, 'customer cus_42 has reached its limit of 20 AWS connections'],
    [25, 20, 'customer cus_42 has reached its limit of 20 AWS connections'],
  ])('%i of %i: %s', (owned, cap, refusal) => expect(connectionCapRefusal('cus_42', owned, cap)).toBe(refusal));
});
