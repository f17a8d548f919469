import * as z from 'zod';
import { at, ids } from '../api-kit/examples';
import { CUSTOMER_MESSAGE, customerField, named } from '../api-kit/schemas';
import { invalid, Refusal } from '../domain/errors';
import { trustPolicy } from '../domain/aws-connections';
import { parseJsonBody } from '../api-kit/validation';
import type { AwsConnectionRecord } from './record';

/** The AWS connections' API shapes: request, answers, examples, and the refusal of AWS keys. */

export const AWS_ACCOUNT_MESSAGE = 'aws_account_id must be a 12-digit AWS account id';
export const AWS_SECRET_MESSAGE =
  'AWS access keys are never accepted: Hookgate assumes a role in your account instead (POST /v1/aws-connections, see docs/aws-destinations.md)';

/** Field names that would carry an AWS secret, anywhere in a body: refused by name rather than as merely unknown (with the fields a typed config takes, or not). */
const AWS_SECRET_FIELD = /^unknown field: (?:[\w.]+\.)?(?:aws_)?(?:access_key(?:_id)?|secret(?:_access)?_key|session_token|secret_key_id|credentials)(?: \(.*\))?$/i;

/** `parseJsonBody`, where a body that tries to hand over AWS keys is told that none is ever taken. */
export function parseKeylessBody<T>(request: { body: Buffer }, schema: z.ZodType<T>): T {
  try {
    return parseJsonBody(request, schema);
  } catch (error) {
    if (error instanceof Refusal && AWS_SECRET_FIELD.test(error.message)) throw invalid(AWS_SECRET_MESSAGE);
    throw error;
  }
}

export const createAwsConnectionBody = named(
  'CreateAwsConnectionRequest',
  z.strictObject({
    aws_account_id: z
      .string({ error: (issue) => (issue.input === undefined ? 'aws_account_id is required' : AWS_ACCOUNT_MESSAGE) })
      .regex(/^\d{12}$/, { error: () => AWS_ACCOUNT_MESSAGE })
      .describe('The AWS account the role is created in: the account of the targets its destinations deliver to.'),
    customer: customerField
      .nullable()
      .optional()
      .describe('Your own id for the customer it belongs to: only that customer’s destinations may use it. Default null: any destination of the account.'),
  }),
  'A role in an AWS account that Hookgate will assume. No credential is given: the external id is generated here.',
);

export const listAwsConnectionsQuery = z.object({ customer: customerField.optional().describe('Only the connections of this customer.') });

const timestamp = z.iso.datetime();

const connectionStatus = z
  .enum(['unverified', 'verified', 'failed'])
  .describe('`unverified` until `POST /v1/aws-connections/{id}/verify`; then whether Hookgate could assume the role at `checked_at`.');

export const awsConnectionResponse = named(
  'AwsConnection',
  z.strictObject({
    id: z.uuid(),
    aws_account_id: z.string(),
    customer: z.string().nullable(),
    external_id: z.string().describe('Generated for this connection, unguessable: the `sts:ExternalId` the role’s trust policy requires.'),
    role_name: z.string().describe('The name the template gives the role (`HookgateDelivery-…`).'),
    role_arn: z.string(),
    trust_policy: z.record(z.string(), z.unknown()).describe('The role’s trust policy: Hookgate’s principals, under the external id.'),
    cloudformation_template_url: z.url().describe('`GET` it with your API key: the CloudFormation template that creates the role.'),
    status: connectionStatus,
    error: z.string().nullable().describe('Why the last verify failed (STS’s answer); null otherwise.'),
    checked_at: timestamp.nullable(),
    created_at: timestamp,
  }),
  'A role in a customer’s AWS account that Hookgate assumes to deliver there.',
);

export const awsConnectionCheckResponse = named(
  'AwsConnectionCheck',
  z.strictObject({
    status: z.enum(['verified', 'failed']),
    error: z.string().nullable(),
    checked_at: timestamp,
  }),
  'The result of assuming the connection’s role now.',
);

export const awsConnectionTemplateResponse = named(
  'AwsConnectionTemplate',
  z.record(z.string(), z.unknown()),
  'A CloudFormation template (JSON): the role, its trust policy, and the least privilege its destinations need.',
);

export type AwsConnectionResponse = z.output<typeof awsConnectionResponse>;

/** What a customer sees of its own connection in the portal: no customer field, and a template URL of the portal's. */
export const portalAwsConnectionResponse = named(
  'PortalAwsConnection',
  awsConnectionResponse.omit({ customer: true }).extend({
    cloudformation_template_url: z.url().describe('`GET` it with the portal link’s secret: the CloudFormation template that creates the role.'),
  }),
  'An AWS connection of the customer’s: a role in its AWS account that Hookgate assumes to deliver there.',
);

export const createPortalAwsConnectionBody = named(
  'CreatePortalAwsConnectionRequest',
  createAwsConnectionBody.omit({ customer: true }),
  'A role in the customer’s AWS account that Hookgate will assume. The external id is generated here.',
);

/** `templateUrl`: where the caller fetches the template (the API's route, or the portal's). */
export function presentConnection(c: AwsConnectionRecord, trustPolicy: Record<string, unknown>, templateUrl: string): AwsConnectionResponse {
  return {
    id: c.id,
    aws_account_id: c.aws_account_id,
    customer: c.customer,
    external_id: c.external_id,
    role_name: c.role_name,
    role_arn: c.role_arn,
    trust_policy: trustPolicy,
    cloudformation_template_url: templateUrl,
    status: c.status,
    error: c.error,
    checked_at: c.checked_at,
    created_at: c.created_at,
  };
}

const exampleExternalId = 'hookgate-Xb2lL3r0kVq6cJ4yT8sN1w';
export const exampleAwsConnection = {
  id: ids.awsConnection,
  aws_account_id: '123456789012',
  customer: 'cus_42',
  external_id: exampleExternalId,
  role_name: 'HookgateDelivery-3b4c5d6e7f8a',
  role_arn: 'arn:aws:iam::123456789012:role/HookgateDelivery-3b4c5d6e7f8a',
  trust_policy: trustPolicy(['arn:aws:iam::999999999999:role/hookgate-prod-eu-west-1-deliver', 'arn:aws:iam::999999999999:role/hookgate-prod-eu-west-1-api'], exampleExternalId),
  cloudformation_template_url: `https://api.hookgate.example/v1/aws-connections/${ids.awsConnection}/template`,
  status: 'unverified',
  error: null,
  checked_at: null,
  created_at: at,
} satisfies AwsConnectionResponse;

export const awsConnectionErrors = {
  create: ['aws_account_id is required', AWS_ACCOUNT_MESSAGE, CUSTOMER_MESSAGE, AWS_SECRET_MESSAGE, 'unknown field: region', 'customer cus_42 has reached its limit of 20 AWS connections'],
};
