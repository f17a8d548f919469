import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { grantedResource, TARGET_ACTIONS, TARGET_ARNS, type AwsDestinationType } from '../../lambdas/domain/aws-targets';

/**
 * What the deliver function may call on the targets of AWS destinations in its own account: one
 * action per service, on exactly the ARNs the deployment lists (context `awsDestinationTargets`),
 * never a wildcard. An AWS destination whose target is not listed fails its tries with AccessDenied
 * (counted by its breaker, retried, then dead-lettered), so a target is granted by deploying, not by
 * whoever holds an API key.
 */

/** Each kind of target: the ARN it is granted by, the action its destination calls and the resource granted (the domain's, as the API and a connection's template have them). */
const TARGETS = (Object.keys(TARGET_ARNS) as AwsDestinationType[]).map((type) => ({
  pattern: TARGET_ARNS[type],
  action: TARGET_ACTIONS[type],
  resource: (arn: string) => grantedResource(type, arn),
}));

/** The statements granting the listed targets, one per action; an ARN of no known kind fails the synth. */
export function awsDestinationStatements(targetArns: readonly string[]): iam.PolicyStatement[] {
  const byAction = new Map<string, string[]>();
  for (const target of targetArns) {
    const kind = TARGETS.find(({ pattern }) => pattern.test(target));
    if (!kind) {
      throw new Error(
        `awsDestinationTargets: "${target}" is not the ARN of an SQS queue, SNS topic, event bus, Kinesis stream, Lambda function or S3 bucket`,
      );
    }
    byAction.set(kind.action, [...(byAction.get(kind.action) ?? []), kind.resource(target)]);
  }
  return [...byAction].map(([action, resources]) => new iam.PolicyStatement({ actions: [action], resources: [...new Set(resources)].sort() }));
}

/**
 * An AWS destination with `role_arn` is reached through a role in its own account, which the deliver
 * function assumes. Never without an external id (Hookgate's are `hookgate-<account id>`, which the
 * customer's trust policy requires), and never a role of this deployment's own account: a tenant must
 * not borrow a role that trusts this account as a whole; same-account targets are granted by
 * `awsDestinationTargets` instead.
 */
export function assumeCustomerRoles(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['sts:AssumeRole'],
    resources: [`arn:${Aws.PARTITION}:iam::*:role/*`],
    conditions: {
      StringLike: { 'sts:ExternalId': 'hookgate-*' },
      StringNotEquals: { 'aws:ResourceAccount': Aws.ACCOUNT_ID },
    },
  });
}
