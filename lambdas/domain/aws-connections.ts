import { accountOf, grantedResource, TARGET_ACTIONS, targetArn, type AwsTarget } from './aws-targets';

/**
 * AWS connections: a role in a customer's account that Hookgate assumes to deliver there, under an
 * external id of its own. Pure: the role's name and ARN, its trust policy, the CloudFormation template
 * that creates it, and which destinations may use it.
 */

/** Fixed, so the customer's template and Hookgate's AssumeRole name the same role. */
export const roleNameOf = (connectionId: string): string => `HookgateDelivery-${connectionId.replaceAll('-', '').slice(-12)}`;

/** The partition (aws, aws-cn, aws-us-gov) of Hookgate's own principals: STS assumes roles only within it. */
export function partitionOf(principalArns: readonly string[]): string {
  return /^arn:([^:]+):/.exec(principalArns[0] ?? '')?.[1] ?? 'aws';
}

export const connectionRoleArn = (partition: string, awsAccountId: string, roleName: string): string => `arn:${partition}:iam::${awsAccountId}:role/${roleName}`;

/**
 * The role's trust policy: Hookgate's principals (the deliver function's role, and the API's, which
 * verifies the connection) may assume it, only with the connection's external id. The principal is
 * their account, narrowed to those role ARNs by `aws:PrincipalArn`: IAM saves a role named as the
 * Principal as that role's unique id, so a Service stack replaced (its roles deleted and made again
 * under the same names) would no longer match; a condition compares the ARN itself.
 */
export function trustPolicy(principalArns: readonly string[], externalId: string) {
  const accounts = [...new Set(principalArns.map((arn) => arn.replace(/^(arn:[^:]+:iam::[^:]+):.*$/, '$1:root')))];
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: accounts.length === 1 ? accounts[0] : accounts },
        Action: 'sts:AssumeRole',
        Condition: {
          StringEquals: { 'sts:ExternalId': externalId },
          ArnEquals: { 'aws:PrincipalArn': principalArns.length === 1 ? principalArns[0] : [...principalArns] },
        },
      },
    ],
  };
}

/** What a destination calls on its target, and the resource that call needs; null: nothing to grant (a local queue). */
function targetGrant(target: AwsTarget, partition: string): { action: string; resource: string } | null {
  const arn = targetArn(target, partition);
  return arn === null ? null : { action: TARGET_ACTIONS[target.type], resource: grantedResource(target.type, arn) };
}

/** The template's parameter that names a customer-managed KMS key its targets are encrypted with. */
export const KMS_KEY_PARAMETER = 'KmsKeyArn';
const HAS_KMS_KEY = 'HasKmsKey';

/**
 * What a producer needs of the key that encrypts its target (SSE-KMS): kms:GenerateDataKey for each
 * message, record or object (SQS, SNS, Kinesis, S3), and kms:Decrypt, which the SQS and SNS guides
 * require of a sender too and S3 of a multipart upload. One key for every target of the connection:
 * a second key means a statement edited into the stack by hand.
 */
const KMS_PRODUCER_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'];

/** The key's parameter: empty (no KMS permission at all), or a key ARN in the connection's partition (an alias grants nothing in IAM). */
const kmsKeyParameter = (partition: string) => ({
  Type: 'String',
  Default: '',
  AllowedPattern: `^$|^arn:${partition}:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$`,
  ConstraintDescription: `empty, or a KMS key ARN: arn:${partition}:kms:<region>:<account>:key/<key id>`,
  Description:
    'The ARN of the customer-managed KMS key your targets are encrypted with (SSE-KMS), if any: the role may then use it to encrypt and decrypt (kms:GenerateDataKey, kms:Decrypt). Empty: no KMS permission. AWS-managed keys (aws/sqs, aws/sns…) need none.',
});

/**
 * The CloudFormation template (JSON) a customer deploys: the role, its trust policy, and one statement
 * per action on exactly the targets of the connection's destinations as they are now (none yet: the
 * role may be assumed but do nothing, which verify shows). Adding a destination means updating the
 * stack. One template serves targets with and without SSE-KMS: the stack's `KmsKeyArn` parameter adds
 * the key's statement when it names one, so nothing of the key passes through Hookgate.
 */
export function connectionTemplate(connection: { roleName: string; trustPolicy: object }, targets: readonly AwsTarget[], partition: string) {
  const byAction = new Map<string, Set<string>>();
  for (const grant of targets.map((t) => targetGrant(t, partition))) {
    if (grant) byAction.set(grant.action, (byAction.get(grant.action) ?? new Set()).add(grant.resource));
  }
  const statements = [...byAction]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([action, resources]) => ({ Effect: 'Allow', Action: action, Resource: [...resources].sort() }));
  const kmsStatement = { Effect: 'Allow', Action: KMS_PRODUCER_ACTIONS, Resource: { Ref: KMS_KEY_PARAMETER } };
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: 'Lets Hookgate deliver webhooks to this account’s targets, by assuming this role with its external id. No access key is created.',
    // Always there, used or not, so a stack created with the key can take the template of any later update.
    Parameters: { [KMS_KEY_PARAMETER]: kmsKeyParameter(partition) },
    ...(statements.length === 0 ? {} : { Conditions: { [HAS_KMS_KEY]: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: KMS_KEY_PARAMETER }, ''] }] } } }),
    Resources: {
      HookgateDeliveryRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          RoleName: connection.roleName,
          AssumeRolePolicyDocument: connection.trustPolicy,
          ...(statements.length === 0
            ? {}
            : {
                Policies: [
                  {
                    PolicyName: 'HookgateDelivery',
                    PolicyDocument: { Version: '2012-10-17', Statement: [...statements, { 'Fn::If': [HAS_KMS_KEY, kmsStatement, { Ref: 'AWS::NoValue' }] }] },
                  },
                ],
              }),
        },
      },
    },
    Outputs: { RoleArn: { Value: { 'Fn::GetAtt': ['HookgateDeliveryRole', 'Arn'] } } },
  };
}

/**
 * A customer's AWS connections at most: as many as its endpoints may be (each uses one), so a portal
 * link cannot fill the account's partition with them. Undefined: one more may be made.
 */
export function connectionCapRefusal(customer: string, owned: number, cap: number): string | undefined {
  return owned >= cap ? `customer ${customer} has reached its limit of ${cap} AWS connections` : undefined;
}

/**
 * Why a destination may not use a connection, or undefined: the target must be in the connection's
 * AWS account, and a customer's connection serves only that customer's destinations.
 */
export function connectionUseRefusal(connection: { aws_account_id: string; customer: string | null }, target: AwsTarget, destinationCustomer: string | null): string | undefined {
  if (connection.customer !== null && connection.customer !== destinationCustomer) return `connection_id belongs to customer ${connection.customer}; the destination is not that customer's`;
  const targetAccount = accountOf(target);
  return targetAccount === null || targetAccount === connection.aws_account_id
    ? undefined
    : `connection_id is for AWS account ${connection.aws_account_id}; the target is in account ${targetAccount}`;
}
