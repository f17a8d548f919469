import * as z from 'zod';
import { autoDisableHours, DEFAULT_AUTO_DISABLE_HOURS, MAX_AUTO_DISABLE_HOURS, MIN_AUTO_DISABLE_HOURS } from '../domain/auto-disable';
import { RETRY_SCHEDULE_LIMITS, scheduleFor } from '../domain/backoff';
import { HEALTH_STATES, healthState, type BreakerState } from '../domain/breaker';
import { DEFAULT_MAX_IN_FLIGHT, MAX_MAX_IN_FLIGHT, maxInFlight } from '../domain/max-in-flight';
import { unsendableHeaderMessage } from '../domain/header-values';
import { config } from '../shared/config';
import { exampleSigningSecret, ids, at } from '../api-kit/examples';
import { CUSTOMER_MESSAGE, customerField, eventTypeName, named } from '../api-kit/schemas';
import { hasControlChars, isHeaderName, issueMessage, sendableHeaderRule, textField } from '../api-kit/validation';
import {
  CUSTOMER_CONNECTION_MESSAGE,
  TIMEOUT_MS_RANGE,
  UNKNOWN_CONNECTION_MESSAGE,
  UNKNOWN_OWN_CONNECTION_MESSAGE,
  VERIFY_HTTP_ONLY_MESSAGE,
  VERIFY_REQUIRED_MESSAGE,
} from './changes';
import { accountCapMessage, customerCapMessage, DEFAULT_ENDPOINT_CAPS } from '../domain/endpoint-caps';
import type { DestinationRecord } from './record';
import { AWS_SECRET_MESSAGE } from '../aws-connections/shapes';
import { SIGNATURE_SCHEMES } from '../domain/vocabulary';
import { ORDERING_MODES } from '../domain/ordering';
import { DESTINATION_STATUSES, destinationStatus, MISMATCH_MESSAGE, NOT_PENDING_MESSAGE } from '../domain/endpoint-verification';
import { AWS_MESSAGE_LIMITS, OWN_ROLE_REFUSAL, DEFAULT_EVENTBRIDGE_SOURCE, DEFAULT_KEY_TEMPLATE, DEFAULT_PARTITION_KEY, DESTINATION_TYPES, externalIdOf, type AwsDestinationType, type AwsTarget } from '../domain/aws-targets';

/**
 * A destination's API shapes, in the management API and the consumer portal: what a caller may
 * send, what it gets back (derived from one another by pick/extend), how a record is shown, and the
 * documented examples. The OpenAPI document and the TypeScript client are generated from these.
 */

const uuid = z.uuid();
const timestamp = z.iso.datetime();
const nullableTimestamp = timestamp.nullable();

// ------------------------------------------------------------------ delivery settings

/** A destination's own delivery settings: how it is retried. Inputs of create and PATCH, and their answer. */
const retryScheduleInput = z
  .array(z.int().min(0).max(RETRY_SCHEDULE_LIMITS.maxStepSeconds))
  .min(1)
  .max(RETRY_SCHEDULE_LIMITS.maxSteps)
  .nullable()
  .optional()
  .describe(
    'Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`.',
  );

const AUTO_DISABLE_TOO_SMALL = `auto_disable_after_hours must be 0 (never) or at least ${MIN_AUTO_DISABLE_HOURS}`;
const autoDisableInput = z
  .number()
  .min(0)
  .max(MAX_AUTO_DISABLE_HOURS)
  .refine((hours) => hours === 0 || hours >= MIN_AUTO_DISABLE_HOURS, { error: AUTO_DISABLE_TOO_SMALL })
  .optional()
  .describe(
    `Hours during which every try failed after which Hookgate disables the destination (\`active: false\`, \`health.state: disabled\`, \`disabled_reason\`) and publishes \`hookgate.destination.disabled\`. Decimals allowed; 0: never. Default ${DEFAULT_AUTO_DISABLE_HOURS} (five days).`,
  );

export const MAX_RATE_LIMIT_PER_SECOND = 1000;

const rateLimitInput = z
  .int()
  .min(1)
  .max(MAX_RATE_LIMIT_PER_SECOND)
  .nullable()
  .optional()
  .describe(
    'Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit.',
  );

const orderingInput = z
  .enum(ORDERING_MODES)
  .optional()
  .describe(
    '`per_key`: the deliveries of each `ordering_key` are tried one after the other, in the order their events were accepted: one is not tried before every earlier one of its key has ended (delivered, dead-lettered or ended), and the next goes as soon as it has. Other keys and unkeyed events never wait for them. Default `none`.',
  );

const rateLimitResponse = z.int().min(1).nullable().describe('Deliveries per second at most; null: no limit.');

const maxInFlightInput = z
  .int()
  .min(1)
  .max(MAX_MAX_IN_FLIGHT)
  .optional()
  .describe(
    `Tries in flight at once to this destination, across every deliver function: a delivery over the cap waits for a place (never dropped, no try spent), so a hanging endpoint holds at most this many. Default ${DEFAULT_MAX_IN_FLIGHT}.`,
  );

const maxInFlightResponse = z.int().min(1).max(MAX_MAX_IN_FLIGHT).describe('Tries in flight at once at most.');

const autoDisableResponse = z.number().min(0).describe('Hours of nothing but failures before Hookgate disables it; 0: never.');

const retryScheduleResponse = z.array(z.int().min(0)).describe('The schedule its deliveries follow (its own, or the default).');

const DELIVERY_SETTINGS_ERRORS = [
  'retry_schedule must contain at least 1 item(s)',
  'retry_schedule must contain at most 20 items',
  'retry_schedule.0 must be at most 86400',
  'rate_limit_per_second must be an integer',
  'rate_limit_per_second must be at least 1',
  `rate_limit_per_second must be at most ${MAX_RATE_LIMIT_PER_SECOND}`,
  'max_in_flight must be a number',
  'max_in_flight must be an integer',
  'max_in_flight must be at least 1',
  `max_in_flight must be at most ${MAX_MAX_IN_FLIGHT}`,
  'auto_disable_after_hours must be at least 0',
  `auto_disable_after_hours must be at most ${MAX_AUTO_DISABLE_HOURS}`,
  AUTO_DISABLE_TOO_SMALL,
];

// ------------------------------------------------------------------ requests

// Headers the gateway sets itself or that would break the HTTP exchange.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'user-agent',
  'webhook-signature',
  'webhook-id',
  'webhook-timestamp',
  'x-webhook-id',
  'x-hookgate-event-id',
  'x-event-type',
  'traceparent',
]);

const headerName = z
  .string()
  .min(1)
  .max(256)
  .refine((v) => isHeaderName(v), { error: () => 'auth.name must be a valid HTTP header name' })
  .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()), { error: () => 'auth.name is a header the gateway sets itself' });

const headerValue = (field: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine(...sendableHeaderRule(field));

const authInput = named(
  'DestinationAuth',
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('bearer'), token: headerValue('auth.token') }),
    z.strictObject({ type: z.literal('header'), name: headerName, value: headerValue('auth.value') }),
  ]),
  'Sent with every delivery: `Authorization: Bearer <token>`, or a custom header. Write-only.',
);

const signingSecret = z
  .string()
  .min(8)
  .max(512)
  .refine((v) => !hasControlChars(v), { error: () => 'signing_secret must not contain control characters' });

// ------------------------------------------------------------------ AWS targets

const awsName = (field: string, max: number) => z.string().min(1).max(max).describe(field);

/** Each AWS type's `config`, as sent and as answered (defaults filled in). Checked strictly by `awsTargetRefusal`. */
const AWS_CONFIGS = {
  aws_sqs: named('SqsDestinationConfig', z.strictObject({ queue_url: awsName('https://sqs.<region>.amazonaws.com/<account id>/<queue name>; a `.fifo` queue gets the destination id as its message group and the event id as its de-duplication id.', 2048) })),
  aws_sns: named('SnsDestinationConfig', z.strictObject({ topic_arn: awsName('arn:aws:sns:<region>:<account id>:<topic name>.', 1024) })),
  aws_eventbridge: named(
    'EventBridgeDestinationConfig',
    z.strictObject({
      event_bus_arn: awsName('arn:aws:events:<region>:<account id>:event-bus/<name>.', 1024),
      detail_type: z.string().min(1).max(128).nullable().optional().describe('Default null: the event’s type (`webhook` when it has none).'),
      source: z.string().min(1).max(256).optional().describe(`Default \`${DEFAULT_EVENTBRIDGE_SOURCE}\`; must not start with \`aws.\`.`),
    }),
  ),
  aws_kinesis: named(
    'KinesisDestinationConfig',
    z.strictObject({
      stream_arn: awsName('arn:aws:kinesis:<region>:<account id>:stream/<name>.', 1024),
      partition_key: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe(`\`event_id\` (default) or a JSON pointer into the body such as \`/order/id\`; the event id when the pointer finds no scalar.`),
    }),
  ),
  aws_lambda: named('LambdaDestinationConfig', z.strictObject({ function_arn: awsName('arn:aws:lambda:<region>:<account id>:function:<name>[:<alias or version>]; invoked asynchronously.', 1024) })),
  aws_s3: named(
    'S3DestinationConfig',
    z.strictObject({
      bucket: z.string().min(3).max(63),
      key_template: z
        .string()
        .min(1)
        .max(1024)
        .optional()
        .describe(`Must contain \`{event_id}\`; may use \`{event_type}\` and \`{date}\` (YYYY-MM-DD of receipt). Default \`${DEFAULT_KEY_TEMPLATE}\`.`),
      region: z.string().min(1).max(32).nullable().optional().describe('The bucket’s region. Default null: the deployment’s region (S3 redirects to the right one).'),
    }),
  ),
} as const;

type AwsConfigInput = z.output<(typeof AWS_CONFIGS)[keyof typeof AWS_CONFIGS]>;

/**
 * Documented as the union of the types' configs, but checked against its own type's schema alone
 * (`configIssue`, which every use runs): the union, checked as a whole, cannot tell which field of
 * which type is missing or wrong, so the catch hands the value on for that check to name it.
 */
const configInput = z
  .union(Object.values(AWS_CONFIGS))
  // The OpenAPI generator calls it without a context, looking for a default: there is none.
  .catch((ctx: { input: unknown } | undefined) => ctx?.input as AwsConfigInput)
  .optional()
  .describe(`An AWS destination’s target, by \`type\`. Messages over the service’s limit (${AWS_MESSAGE_LIMITS.aws_sqs} bytes for SQS, EventBridge, Kinesis and Lambda, ${AWS_MESSAGE_LIMITS.aws_sns} for SNS) are not sent: such a delivery ends \`payload_too_large\`.`);

const typeInput = z
  .enum(DESTINATION_TYPES)
  .optional()
  .describe('Default `http` (a POST to `url`). An AWS type delivers through the AWS API to the target in `config`, signed with the deliver function’s own role.');

/** The stored target of an AWS type's config, defaults filled in; the config has been checked against its type's schema. */
function targetOf(type: AwsDestinationType, config: AwsConfigInput): AwsTarget {
  const c = config as Record<string, string | null | undefined>;
  const text = (field: string) => c[field] ?? '';
  switch (type) {
    case 'aws_sqs':
      return { type, queue_url: text('queue_url') };
    case 'aws_sns':
      return { type, topic_arn: text('topic_arn') };
    case 'aws_eventbridge':
      return { type, event_bus_arn: text('event_bus_arn'), detail_type: c.detail_type ?? null, source: c.source ?? DEFAULT_EVENTBRIDGE_SOURCE };
    case 'aws_kinesis':
      return { type, stream_arn: text('stream_arn'), partition_key: c.partition_key ?? DEFAULT_PARTITION_KEY };
    case 'aws_lambda':
      return { type, function_arn: text('function_arn') };
    case 'aws_s3':
      return { type, bucket: text('bucket'), key_template: c.key_template ?? DEFAULT_KEY_TEMPLATE, region: c.region ?? null };
  }
}

/** The config's first issue against its type's own schema, naming the field and the type. */
function configIssue(type: AwsDestinationType, config: unknown): string | undefined {
  const schema = AWS_CONFIGS[type];
  const parsed = schema.safeParse(config, { reportInput: true });
  const issue = parsed.error?.issues[0];
  if (!issue) return undefined;
  const message = issueMessage({ ...issue, path: ['config', ...issue.path] });
  return issue.code === 'unrecognized_keys' ? `${message} (${type} takes ${Object.keys(schema.shape).join(', ')})` : `${message} for type ${type}`;
}

const roleArnInput = z
  .string()
  .min(1)
  .max(2048)
  .nullable()
  .optional()
  .describe(
    'AWS types only: a role in the target’s account that Hookgate assumes to deliver, whose trust policy allows Hookgate’s deliver role with `sts:ExternalId` = the destination’s `external_id`. null or absent: the deliver role itself (a same-account target listed in `awsDestinationTargets`, for an account listed in `awsOwnRoleAccounts`).',
  );

const connectionIdInput = z
  .uuid({ error: () => 'connection_id must be the id of an AWS connection' })
  .nullable()
  .optional()
  .describe(
    'AWS types only: the AWS connection (`POST /v1/aws-connections`) Hookgate delivers through: it assumes the connection’s role with the connection’s external id. The preferred form of `role_arn`; the connection must be in the target’s AWS account, and a customer’s connection serves only that customer’s destinations. null removes it.',
  );

const requestFields = {
  name: textField('name'),
  config: configInput,
  role_arn: roleArnInput,
  connection_id: connectionIdInput,
  url: z
    .string()
    .min(1)
    .max(2048)
    .describe('An http destination’s http(s) URL without credentials; private, loopback and reserved addresses are refused. Not for AWS types.'),
  signing_secret: signingSecret
    .optional()
    .describe('Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours.'),
  auth: authInput.nullable().optional(),
  timeout_ms: z.int().min(TIMEOUT_MS_RANGE.min).max(TIMEOUT_MS_RANGE.max).optional().describe(`Default ${TIMEOUT_MS_RANGE.default}.`),
  active: z.boolean().optional().describe('Default true.'),
  signature_scheme: z
    .enum(SIGNATURE_SCHEMES)
    .optional()
    .describe('Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes; `ed25519` signs with the account’s Ed25519 key (`v1a`, public keys at the account’s `jwks_url`).'),
  customer: customerField.nullable().optional().describe('Your own id for the customer it belongs to (the consumer portal’s scope). Default null.'),
  retry_schedule: retryScheduleInput,
  auto_disable_after_hours: autoDisableInput,
  rate_limit_per_second: rateLimitInput,
  max_in_flight: maxInFlightInput,
  ordering: orderingInput,
  verify_ownership: z
    .boolean()
    .optional()
    .describe(
      'http only. true: the destination starts `pending_verification`; Hookgate POSTs one signed `hookgate.endpoint.verification` event with a random `challenge`, and sends nothing else until the endpoint answers 2xx echoing it (or you post it to `POST /v1/destinations/{id}/verify`). A new `url` starts over. Default false; always true where the deployment requires it (`requireEndpointVerification`) and for endpoints customers make in the portal.',
    ),
};

export const listDestinationsQuery = z.object({ customer: customerField.optional().describe('Only the destinations of this customer.') });

/** Which fields go with which type: an http destination has a `url`, an AWS one a `config` and no auth. */
function pairingIssue(body: { type?: string; url?: string; config?: unknown; auth?: unknown; role_arn?: string | null; connection_id?: string | null }): string | undefined {
  const type = body.type ?? 'http';
  if (type === 'http') {
    if (body.config !== undefined) return 'config is only for AWS destination types';
    if (body.role_arn !== undefined && body.role_arn !== null) return 'role_arn is only for AWS destination types';
    if (body.connection_id !== undefined && body.connection_id !== null) return 'connection_id is only for AWS destination types';
    return body.url === undefined ? 'url is required' : undefined;
  }
  if (body.url !== undefined) return `url is only for http destinations; ${type} takes config`;
  if (body.auth !== undefined && body.auth !== null) return 'auth is only for http destinations';
  if (body.config === undefined) return `config is required for ${type}`;
  return configIssue(type as AwsDestinationType, body.config);
}

export const createDestinationBody = named(
  'CreateDestinationRequest',
  z.strictObject({ ...requestFields, type: typeInput, url: requestFields.url.optional() }).superRefine((body, ctx) => {
    const issue = pairingIssue(body);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  }),
);

export const updateDestinationBody = named(
  'UpdateDestinationRequest',
  z.strictObject({
    ...requestFields,
    name: requestFields.name.optional(),
    url: requestFields.url.optional(),
    config: configInput.describe('A new target of the same type (an AWS destination only; its type never changes).'),
  }),
);

/** The AWS target a create asks for (null: http). The body has passed `createDestinationBody`. */
export const requestedTarget = (body: { type?: z.output<typeof typeInput>; config?: AwsConfigInput }): AwsTarget | null =>
  body.type === undefined || body.type === 'http' || body.config === undefined ? null : targetOf(body.type, body.config);

/** The new target a change asks for, for the destination's own type; a string: why it is refused. */
export function changedTarget(current: AwsTarget | null, config: AwsConfigInput | undefined): AwsTarget | string | undefined {
  if (config === undefined) return undefined;
  if (current === null) return 'config is only for AWS destination types';
  return configIssue(current.type, config) ?? targetOf(current.type, config);
}

/** How an AWS destination's type, config and target are refused (the target's rules: lambdas/domain/aws-targets.ts). */
const AWS_TARGET_ERRORS = [
  'type must be one of: http, aws_sqs, aws_sns, aws_eventbridge, aws_kinesis, aws_lambda, aws_s3',
  'config is only for AWS destination types',
  'url is only for http destinations; aws_sqs takes config',
  'config is required for aws_sqs',
  'config.queue_url is required for type aws_sqs',
  'config.queue_url must be a string for type aws_sqs',
  'config must be an object for type aws_sqs',
  'unknown field: config.topic_arn (aws_sqs takes queue_url)',
  'config.queue_url must be an SQS queue URL: https://sqs.<region>.amazonaws.com/<12-digit account id>/<queue name>',
  'config.topic_arn must be an SNS topic ARN: arn:aws:sns:<region>:<12-digit account id>:<topic name>',
  'config.event_bus_arn must be an event bus ARN: arn:aws:events:<region>:<12-digit account id>:event-bus/<name>',
  'config.source must not start with aws. (reserved for AWS services)',
  'config.stream_arn must be a Kinesis stream ARN: arn:aws:kinesis:<region>:<12-digit account id>:stream/<name>',
  'config.partition_key must be event_id or a JSON pointer into the body, such as /order/id',
  'config.function_arn must be a Lambda function ARN: arn:aws:lambda:<region>:<12-digit account id>:function:<name>[:<alias or version>]',
  'config.bucket must be an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens',
  'config.region must be an AWS region such as eu-west-1',
  'config.key_template must contain {event_id}, so that no event overwrites another',
  'config.key_template may only use the placeholders {event_id}, {event_type} and {date}',
  'config.key_template must not start with /',
  'config.key_template makes keys of up to 1836 bytes; S3 keys are at most 1024',
  'type cannot change: create a destination of the new type',
  'connection_id must be the id of an AWS connection',
  'connection_id is only for AWS destination types',
  'connection_id is for AWS account 210987654321; the target is in account 123456789012',
];

/** How the API refuses what reaches an AWS target: a role, the account's connections, AWS keys. */
const AWS_ACCESS_ERRORS = [
  OWN_ROLE_REFUSAL,
  'auth is only for http destinations',
  'role_arn is only for AWS destination types',
  'role_arn must be an IAM role ARN: arn:aws:iam::<12-digit account id>:role/<name>',
  "role_arn must be in the target's account (123456789012)",
  'connection_id and role_arn cannot both be given: a connection names its role',
  UNKNOWN_CONNECTION_MESSAGE,
  "connection_id belongs to customer cus_42; the destination is not that customer's",
  AWS_SECRET_MESSAGE,
];

export const destinationErrors = [
  CUSTOMER_MESSAGE,
  ...DELIVERY_SETTINGS_ERRORS,
  'url must be an http or https URL',
  'url must not contain credentials',
  'url must not point to a private or reserved address',
  'url must be at most 2048 characters',
  'timeout_ms must be at least 100',
  'timeout_ms must be at most 30000',
  'auth.type must be one of: bearer, header',
  'auth.token is required',
  'auth.name must be a valid HTTP header name',
  'auth.name is a header the gateway sets itself',
  unsendableHeaderMessage('auth.value'),
  'signing_secret must be at least 8 characters',
  'signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks',
  'signature_scheme must be one of: hookgate, standard_webhooks, ed25519',
  'unknown field: nmae',
  ...AWS_TARGET_ERRORS,
  ...AWS_ACCESS_ERRORS,
  VERIFY_HTTP_ONLY_MESSAGE,
  VERIFY_REQUIRED_MESSAGE,
];

export const verifyDestinationBody = named(
  'VerifyDestinationRequest',
  z.strictObject({
    challenge: z.string().min(1).max(256).describe('The `challenge` of the `hookgate.endpoint.verification` event your endpoint received (from its logs).'),
  }),
);

export const VERIFICATION_ERRORS = { mismatch: MISMATCH_MESSAGE, notPending: NOT_PENDING_MESSAGE };

/** Over an endpoint cap, as the OpenAPI document shows it (with the default caps). */
export const CAP_ERRORS = {
  customer: customerCapMessage('cus_42', DEFAULT_ENDPOINT_CAPS.perCustomer),
  account: accountCapMessage(DEFAULT_ENDPOINT_CAPS.perAccount),
};

// ------------------------------------------------------------------ answers

const destinationAuthResponse = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('bearer') }),
    z.strictObject({ type: z.literal('header'), header_name: z.string() }),
  ])
  .nullable()
  .describe('The kind of auth sent to the destination; tokens and header values are never returned.');

const destinationHealthResponse = named(
  'DestinationHealth',
  z.strictObject({
    state: z
      .enum(HEALTH_STATES)
      .describe(
        '`failing`: its last tries failed; `open`: its circuit breaker holds its deliveries (no try spent) until `open_until`, then lets one probe through; `disabled`: `active` is false.',
      ),
    consecutive_failures: z.int().min(0),
    last_success_at: nullableTimestamp.describe('Refreshed at most once a minute while deliveries succeed.'),
    last_failure_at: nullableTimestamp,
    open_until: nullableTimestamp.describe('While `open`: when the next probe may go.'),
    held: z
      .int()
      .min(0)
      .describe(
        'Deliveries it holds, parked until what holds them lets go (its open breaker closes, it is switched back on, its endpoint is verified, a place under its cap frees up), then released in due order. Retention never ends them (they wait as long as it takes); `POST /v1/destinations/{id}/end-held` does.',
      ),
    oldest_held_since: nullableTimestamp.describe('When the delivery it has held longest was due: how long its oldest has waited. null when it holds none.'),
  }),
  'How the destination’s endpoint has been answering, from its circuit breaker.',
);

/** A `cli` destination's config: made by `hookgate listen` through `POST /v1/listen-sessions`, never by a create. */
export const endHeldResponse = named(
  'EndedHeld',
  z.strictObject({
    ended: z.int().min(0).describe('Deliveries this call ended `dead_letter` (`end_reason: held_ended`), each announced as `hookgate.delivery.dead_lettered`.'),
    held: z.int().min(0).describe('What the destination still holds: more than one call ends (call again), or deliveries parked since.'),
  }),
  'What ending a destination’s held deliveries did.',
);

const cliConfigResponse = named(
  'CliDestinationConfig',
  z.strictObject({
    session_id: z.string().describe('The `hookgate listen` session it belongs to.'),
    websocket_url: z.string().nullable().describe('Where the CLI connects; null: this deployment has no listen endpoint.'),
  }),
);

const responseFields = {
  id: uuid,
  account_id: uuid,
  name: z.string(),
  type: z.enum([...DESTINATION_TYPES, 'cli']).describe('`cli`: a `hookgate listen` session’s, delivering over its WebSocket connection.'),
  config: z
    .union([...Object.values(AWS_CONFIGS), cliConfigResponse])
    .nullable()
    .describe('An AWS destination’s target, defaults filled in; a cli destination’s session; null for http.'),
  role_arn: z.string().nullable().describe('The role Hookgate assumes to deliver to an AWS target in another account (its AWS connection’s, with `connection_id`); null: its own deliver role.'),
  connection_id: z.uuid().nullable().describe('The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role).'),
  external_id: z
    .string()
    .nullable()
    .describe('AWS types: the `sts:ExternalId` Hookgate sends when it assumes `role_arn`: its AWS connection’s, or else the account’s own (`hookgate-<account id>`, the same for every destination of the account); null for http.'),
  url: z.string().describe('Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`.'),
  active: z.boolean(),
  auth: destinationAuthResponse,
  timeout_ms: z.int().min(TIMEOUT_MS_RANGE.min).max(TIMEOUT_MS_RANGE.max),
  signature_scheme: z.enum(SIGNATURE_SCHEMES),
  disabled_reason: z
    .string()
    .nullable()
    .describe('Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it.'),
  status: z
    .enum(DESTINATION_STATUSES)
    .describe(
      '`paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has.',
    ),
  verify_ownership: z.boolean().describe('Its endpoint must prove ownership of its URL before it is sent anything (see `status`).'),
  verified_at: nullableTimestamp.describe('When its endpoint proved ownership of its current URL; null: not (yet), or not asked.'),
  health: destinationHealthResponse,
  customer: z
    .string()
    .nullable()
    .describe('Your own id for the customer this endpoint belongs to; a portal session for that customer manages it. null: none.'),
  retry_schedule: retryScheduleResponse,
  auto_disable_after_hours: autoDisableResponse,
  rate_limit_per_second: rateLimitResponse,
  max_in_flight: maxInFlightResponse,
  ordering: z.enum(ORDERING_MODES).describe('`per_key`: each ordering key’s deliveries go one after the other; `none`: no order.'),
  created_at: timestamp,
  updated_at: timestamp,
};

export const destinationResponse = named('Destination', z.strictObject(responseFields), 'A destination as listed and as PATCH answers it.');

export const destinationWithSecretResponse = named(
  'DestinationWithSecret',
  z.strictObject({ ...responseFields, signing_secret: z.string().describe('Signs every delivery (`Webhook-Signature`).') }),
  'A destination with its signing secret: the create answer and `GET /v1/destinations/{id}`.',
);

export type DestinationResponse = z.output<typeof destinationResponse>;
export type DestinationWithSecretResponse = z.output<typeof destinationWithSecretResponse>;

/** A destination as lists and PATCH show it: no signing secret. */
export function presentDestination(d: DestinationRecord, breaker: BreakerState & { held?: number; oldest_held_since?: string | null }): DestinationResponse {
  return {
    id: d.id,
    account_id: d.account_id,
    name: d.name,
    type: d.listen_session === null ? (d.aws_target?.type ?? 'http') : 'cli',
    config: d.listen_session === null ? configOf(d.aws_target) : { session_id: d.listen_session, websocket_url: config().listenUrl ?? null },
    role_arn: d.role_arn,
    connection_id: d.connection_id,
    external_id: d.aws_target ? (d.external_id ?? externalIdOf(d.account_id)) : null,
    url: d.url,
    active: d.active,
    auth: d.auth === null ? null : d.auth.type === 'bearer' ? { type: 'bearer' } : { type: 'header', header_name: d.auth.name },
    timeout_ms: d.timeout_ms,
    signature_scheme: d.signature_scheme,
    disabled_reason: d.disabled_reason,
    status: destinationStatus(d),
    verify_ownership: d.verify_ownership,
    verified_at: d.verified_at,
    health: {
      state: healthState(breaker, d.active),
      consecutive_failures: breaker.consecutive_failures,
      last_success_at: breaker.last_success_at,
      last_failure_at: breaker.last_failure_at,
      open_until: breaker.state === 'open' ? breaker.open_until : null,
      held: breaker.held ?? 0,
      oldest_held_since: breaker.oldest_held_since ?? null,
    },
    customer: d.customer,
    retry_schedule: [...scheduleFor(d, config().retrySchedule)],
    auto_disable_after_hours: autoDisableHours(d),
    rate_limit_per_second: d.rate_limit_per_second ?? null,
    max_in_flight: maxInFlight(d),
    ordering: d.ordering ?? 'none',
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

function configOf(target: AwsTarget | null): AwsConfigInput | null {
  if (target === null) return null;
  const { type: _type, ...config } = target;
  return config;
}

/** The create answer and the detail: with the signing secret. */
export const presentDestinationWithSecret = (d: DestinationRecord, breaker: BreakerState): DestinationWithSecretResponse => ({
  ...presentDestination(d, breaker),
  signing_secret: d.signing_secret,
});

// ------------------------------------------------------------------ the portal's endpoints

/** What a customer sees of its endpoint: no account, auth or customer fields. */
const ENDPOINT_FIELDS = {
  id: true,
  name: true,
  type: true,
  config: true,
  connection_id: true,
  url: true,
  active: true,
  disabled_reason: true,
  status: true,
  verified_at: true,
  health: true,
  signature_scheme: true,
  max_in_flight: true,
  created_at: true,
  updated_at: true,
} as const;
const endpointFields = destinationResponse.pick(ENDPOINT_FIELDS);

export const portalEndpointResponse = named(
  'PortalEndpoint',
  endpointFields.extend({
    event_types: z.array(z.string()).describe('The event types it receives (`*`: every type, set up by the account).'),
  }),
  'An endpoint as its customer sees it: no account, auth or customer fields, no secret.',
);

export const portalEndpointWithSecretResponse = named(
  'PortalEndpointWithSecret',
  portalEndpointResponse.extend({
    signing_secret: z.string(),
    previous_secret_expires_at: timestamp.nullable().describe('After a rotation: until when the previous secret still signs too.'),
  }),
);

export type PortalEndpointResponse = z.output<typeof portalEndpointResponse>;
export type PortalEndpointWithSecretResponse = z.output<typeof portalEndpointWithSecretResponse>;

const eventTypesField = z
  .array(eventTypeName('event_types', 'event_types must name event types of the catalog'))
  .max(100)
  .describe('Event types of the catalog it receives; replaces the current choice.');

const endpointUrl = z.string().min(1).max(2048).describe('An http(s) URL; private, loopback and reserved addresses are refused.');

const portalConnectionId = connectionIdInput.describe('AWS types: one of the customer’s AWS connections (`POST /v1/portal/aws-connections`), in the target’s AWS account. Required for an AWS endpoint.');

export const createPortalEndpointBody = named(
  'CreatePortalEndpointRequest',
  z
    .strictObject({
      type: typeInput,
      url: endpointUrl.optional().describe('An http endpoint’s http(s) URL; private, loopback and reserved addresses are refused. Not for AWS types.'),
      config: configInput,
      connection_id: portalConnectionId,
      name: textField('name').optional().describe('Default: the URL’s host, or the AWS type.'),
      event_types: eventTypesField.optional(),
    })
    .superRefine((body, ctx) => {
      const issue = pairingIssue(body);
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    }),
);

export const updatePortalEndpointBody = named(
  'UpdatePortalEndpointRequest',
  z.strictObject({
    url: endpointUrl.optional(),
    config: configInput.describe('A new target of the same type (an AWS endpoint only).'),
    connection_id: portalConnectionId,
    name: textField('name').optional(),
    active: z.boolean().optional().describe('false pauses deliveries to it; true resumes them.'),
    event_types: eventTypesField.optional(),
  }),
);

export const endpointErrors = [
  'url must be an http or https URL',
  'url must not contain credentials',
  'url must not point to a private or reserved address',
  'event_types must name event types of the catalog',
  CUSTOMER_CONNECTION_MESSAGE,
  UNKNOWN_OWN_CONNECTION_MESSAGE,
  AWS_SECRET_MESSAGE,
  ...AWS_TARGET_ERRORS,
];

/** An endpoint as its customer sees it, with the event types it receives. */
export function presentEndpoint(d: DestinationRecord, breaker: BreakerState & { held?: number; oldest_held_since?: string | null }, types: string[]): PortalEndpointResponse {
  return { ...endpointPart(presentDestination(d, breaker)), event_types: types };
}

function endpointPart(shown: DestinationResponse): Pick<DestinationResponse, keyof typeof ENDPOINT_FIELDS> {
  return Object.fromEntries(Object.keys(ENDPOINT_FIELDS).map((field) => [field, shown[field as keyof typeof ENDPOINT_FIELDS]])) as Pick<DestinationResponse, keyof typeof ENDPOINT_FIELDS>;
}

/** An endpoint with its secret, and until when a rotated-out secret still signs. */
export const presentEndpointWithSecret = (d: DestinationRecord, breaker: BreakerState, types: string[]): PortalEndpointWithSecretResponse => ({
  ...presentEndpoint(d, breaker, types),
  signing_secret: d.signing_secret,
  previous_secret_expires_at: d.previous_signing_secret ? d.previous_secret_expires_at : null,
});

// ------------------------------------------------------------------ examples

export const exampleDestination = {
  id: ids.destination,
  account_id: ids.account,
  name: 'orders',
  type: 'http',
  config: null,
  role_arn: null,
  connection_id: null,
  external_id: null,
  url: 'https://consumer.example.com/hooks',
  active: true,
  auth: { type: 'bearer' },
  timeout_ms: 15000,
  signature_scheme: 'hookgate',
  disabled_reason: null,
  status: 'active',
  verify_ownership: false,
  verified_at: null,
  health: { state: 'healthy', consecutive_failures: 0, last_success_at: at, last_failure_at: null, open_until: null, held: 0, oldest_held_since: null },
  customer: 'cus_42',
  retry_schedule: [0, 30, 120, 600, 3600],
  auto_disable_after_hours: 120,
  rate_limit_per_second: null,
  max_in_flight: 10,
  ordering: 'none',
  created_at: at,
  updated_at: at,
} satisfies DestinationResponse;

export const exampleDestinationWithSecret = {
  ...exampleDestination,
  signing_secret: exampleSigningSecret,
} satisfies DestinationWithSecretResponse;

export const exampleEndpoint = { ...endpointPart(exampleDestination), event_types: ['invoice.paid'] } satisfies PortalEndpointResponse;
export const exampleEndpointWithSecret = {
  ...exampleEndpoint,
  signing_secret: exampleSigningSecret,
  previous_secret_expires_at: null,
} satisfies PortalEndpointWithSecretResponse;
