/**
 * AWS destinations: where each type delivers, which names and ARNs are accepted, and what fits. Pure:
 * the API checks a target with these rules when a destination is created or changed, the planner and
 * the transport check sizes with them, so the three cannot disagree.
 */

const AWS_DESTINATION_TYPES = ['aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3'] as const;
export type AwsDestinationType = (typeof AWS_DESTINATION_TYPES)[number];
/** `http`: a POST to the destination's URL; the others go through the AWS API. */
export const DESTINATION_TYPES = ['http', ...AWS_DESTINATION_TYPES] as const;

/** A destination's target as stored, defaults resolved (null: the event's type, for `detail_type`). */
export type AwsTarget =
  | { type: 'aws_sqs'; queue_url: string }
  | { type: 'aws_sns'; topic_arn: string }
  | { type: 'aws_eventbridge'; event_bus_arn: string; detail_type: string | null; source: string }
  | { type: 'aws_kinesis'; stream_arn: string; partition_key: string }
  | { type: 'aws_lambda'; function_arn: string }
  | { type: 'aws_s3'; bucket: string; key_template: string; region: string | null };

export const DEFAULT_EVENTBRIDGE_SOURCE = 'hookgate';
export const DEFAULT_PARTITION_KEY = 'event_id';
export const DEFAULT_KEY_TEMPLATE = 'hookgate/{date}/{event_id}';
const KEY_PLACEHOLDERS = ['{event_id}', '{event_type}', '{date}'] as const;

/**
 * What each service takes in one message, in bytes: what a target takes as created, so that a message
 * that fits never depends on how a customer set its target up (one set below its default refuses the
 * rest: a failed try with the service's error). AWS raised SQS, EventBridge and asynchronous Lambda
 * from 256 KB to 1 MB (AWS Compute Blog, 29 January 2026); its KB and MB are binary here, as its
 * 256 KB was 262,144 bytes. What AWS's documents say (the API references as this project's SDK ships
 * them; Kinesis's developer guide, Handle large records):
 * - SQS SendMessage: "The maximum size is 1 MiB or 1,048,576 bytes", attributes included; CreateQueue:
 *   MaximumMessageSize "Default: 1,048,576 bytes (1 MiB)".
 * - SNS Publish: "By default, a message can be at most 256 KiB in size (262,144 bytes)"; a topic's
 *   MaximumMessageSize goes up to 1 MiB, but its default is 262144.
 * - EventBridge PutEvents: "the total entry size must be less than 1MB" (one entry per call here).
 * - Kinesis: "The default maximum record size for existing, and newly created streams is set to 1 MiB"
 *   (data and partition key; a stream may be raised to 10 MiB).
 * - Lambda Invoke: "For asynchronous invocations, the maximum payload size is 1 MB".
 * - S3: none that a webhook (5 MB at most) reaches.
 */
export const AWS_MESSAGE_LIMITS: Record<AwsDestinationType, number | null> = {
  aws_sqs: 1_048_576,
  aws_sns: 262_144,
  aws_eventbridge: 1_048_576,
  aws_kinesis: 1_048_576,
  aws_lambda: 1_048_576,
  aws_s3: null,
};

/**
 * Kept free around the body for the attributes or the envelope (ids, type, signature, timestamp). A
 * body within its limit less this fits once encoded, unless it is binary or full of characters JSON
 * escapes; the transport checks the exact size before it sends.
 */
const MESSAGE_HEADROOM_BYTES = 8 * 1024;

/** The largest body an event may have to be planned for a destination of this type (null: no limit). */
export function maxBodyBytes(type: AwsDestinationType): number | null {
  const limit = AWS_MESSAGE_LIMITS[type];
  return limit === null ? null : limit - MESSAGE_HEADROOM_BYTES;
}

/** The attempt error of a message over its service's limit: refused before any call, no S3 pointer. */
export const tooLargeMessage = (type: AwsDestinationType, bytes: number): string =>
  `the message is ${bytes} bytes; ${type} takes at most ${AWS_MESSAGE_LIMITS[type]} bytes`;

// ------------------------------------------------------------------ names and ARNs

/** Commercial regions and the GovCloud and China partitions' (`us-gov-west-1`, `cn-north-1`). */
const REGION = '[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\\d{1,2}';
const REGION_ONLY = new RegExp(`^${REGION}$`);
const PARTITION = 'aws(?:-cn|-us-gov)?';
const ACCOUNT = '\\d{12}';

const SQS_URL = new RegExp(`^https://sqs\\.(${REGION})\\.amazonaws\\.com(?:\\.cn)?/(${ACCOUNT})/([A-Za-z0-9_-]{1,75}(?:\\.fifo)?|[A-Za-z0-9_-]{1,80})$`);
/** The path of a queue URL on an SQS emulator: `/<account>/<name>`. */
const QUEUE_PATH = new RegExp(`^/${ACCOUNT}/[A-Za-z0-9_-]{1,75}(?:\\.fifo)?$|^/${ACCOUNT}/[A-Za-z0-9_-]{1,80}$`);
const arn = (service: string, resource: string) => new RegExp(`^arn:${PARTITION}:${service}:(${REGION}):(${ACCOUNT}):${resource}$`);
const TOPIC_ARN = arn('sns', '[A-Za-z0-9_-]{1,251}(?:\\.fifo)?');
const EVENT_BUS_ARN = arn('events', 'event-bus/[A-Za-z0-9._/-]{1,256}');
const STREAM_ARN = arn('kinesis', 'stream/[A-Za-z0-9_.-]{1,128}');
const FUNCTION_ARN = arn('lambda', 'function:[A-Za-z0-9_-]{1,64}(?::(?:\\$LATEST|[A-Za-z0-9_-]{1,128}))?');
const BUCKET_NAME = '(?!xn--|sthree-|amzn-s3-demo-)(?!.*(?:-s3alias|--ol-s3|--x-s3|--table-s3)$)(?!.*\\.\\.)(?!\\d+\\.\\d+\\.\\d+\\.\\d+$)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]';
const BUCKET = new RegExp(`^${BUCKET_NAME}$`);

/** What each type's destination calls on its target: the one action granted for it, by the stack (awsDestinationTargets) or a connection's template. */
export const TARGET_ACTIONS: Readonly<Record<AwsDestinationType, string>> = {
  aws_sqs: 'sqs:SendMessage',
  aws_sns: 'sns:Publish',
  aws_eventbridge: 'events:PutEvents',
  aws_kinesis: 'kinesis:PutRecord',
  aws_lambda: 'lambda:InvokeFunction',
  aws_s3: 's3:PutObject',
};

/**
 * Each type's target as an operator lists it in `awsDestinationTargets`: by its ARN (a queue's too,
 * `arn:…:sqs:<region>:<account>:<name>`; a bucket's, `arn:…:s3:::<name>`), by the same name rules the
 * API applies to a destination's config, so the stack grants nothing the API would refuse.
 */
export const TARGET_ARNS: Readonly<Record<AwsDestinationType, RegExp>> = {
  aws_sqs: arn('sqs', '(?:[A-Za-z0-9_-]{1,75}\\.fifo|[A-Za-z0-9_-]{1,80})'),
  aws_sns: TOPIC_ARN,
  aws_eventbridge: EVENT_BUS_ARN,
  aws_kinesis: STREAM_ARN,
  aws_lambda: FUNCTION_ARN,
  aws_s3: new RegExp(`^arn:${PARTITION}:s3:::${BUCKET_NAME}$`),
};
/** A pointer into the body, RFC 6901 (`/order/id`). */
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)+$/;

const EVENTBRIDGE_DETAIL_TYPE_MAX = 128;
const EVENTBRIDGE_SOURCE_MAX = 256;
const PARTITION_KEY_SPEC_MAX = 256;
const S3_KEY_MAX_BYTES = 1024;
/** What `{event_type}` and `{date}` may add to a key at most: an event type's 200 characters, a date's 10. */
const KEY_PLACEHOLDER_GROWTH = { '{event_id}': 36, '{event_type}': 4 * 200, '{date}': 10 } as const;

/**
 * Hookgate's own delivery queue is never a target: a message in it is read as a delivery task, so a
 * tenant could forge tasks for any account (the deliver role may send to it). Compared by account and
 * name, whatever the host's spelling.
 */
export function isOwnQueue(target: AwsTarget, deliveryQueueUrl: string): boolean {
  if (target.type !== 'aws_sqs' || !URL.canParse(target.queue_url) || !URL.canParse(deliveryQueueUrl)) return false;
  const path = (url: string) => new URL(url).pathname.replace(/\/+$/, '');
  return path(target.queue_url) === path(deliveryQueueUrl);
}
export const OWN_QUEUE_REFUSAL = 'config.queue_url must not be Hookgate’s own delivery queue';

export const OWN_ROLE_REFUSAL =
  'connection_id or role_arn is required: this deployment delivers with its own role only for the accounts its operator lists (awsOwnRoleAccounts)';

/**
 * Whether an account's AWS destinations may go without a role, on the deliver role's own grants (the
 * deployment's `awsDestinationTargets`): those grants are the deployment's, not a tenant's, so only
 * the accounts the operator lists (`*`: all, as the local runtime has it) may use them.
 */
export const mayUseOwnRole = (accountId: string, allowed: readonly string[]): boolean => allowed.includes('*') || allowed.includes(accountId);

/**
 * Why a target is refused (a message for the 400), or undefined. `localSqs`: the origin of the SQS
 * emulator the local runtime points the SDK at, whose queue URLs are accepted too (null in AWS).
 */
export function awsTargetRefusal(target: AwsTarget, localSqs: string | null): string | undefined {
  switch (target.type) {
    case 'aws_sqs':
      return SQS_URL.test(target.queue_url) || isLocalQueue(target.queue_url, localSqs)
        ? undefined
        : 'config.queue_url must be an SQS queue URL: https://sqs.<region>.amazonaws.com/<12-digit account id>/<queue name>';
    case 'aws_sns':
      return TOPIC_ARN.test(target.topic_arn) ? undefined : 'config.topic_arn must be an SNS topic ARN: arn:aws:sns:<region>:<12-digit account id>:<topic name>';
    case 'aws_eventbridge':
      if (!EVENT_BUS_ARN.test(target.event_bus_arn)) return 'config.event_bus_arn must be an event bus ARN: arn:aws:events:<region>:<12-digit account id>:event-bus/<name>';
      if (target.detail_type !== null && target.detail_type.length > EVENTBRIDGE_DETAIL_TYPE_MAX) return `config.detail_type must be at most ${EVENTBRIDGE_DETAIL_TYPE_MAX} characters`;
      if (target.source.length > EVENTBRIDGE_SOURCE_MAX) return `config.source must be at most ${EVENTBRIDGE_SOURCE_MAX} characters`;
      return target.source.startsWith('aws.') ? 'config.source must not start with aws. (reserved for AWS services)' : undefined;
    case 'aws_kinesis':
      if (!STREAM_ARN.test(target.stream_arn)) return 'config.stream_arn must be a Kinesis stream ARN: arn:aws:kinesis:<region>:<12-digit account id>:stream/<name>';
      return target.partition_key === DEFAULT_PARTITION_KEY || (target.partition_key.length <= PARTITION_KEY_SPEC_MAX && JSON_POINTER.test(target.partition_key))
        ? undefined
        : 'config.partition_key must be event_id or a JSON pointer into the body, such as /order/id';
    case 'aws_lambda':
      return FUNCTION_ARN.test(target.function_arn) ? undefined : 'config.function_arn must be a Lambda function ARN: arn:aws:lambda:<region>:<12-digit account id>:function:<name>[:<alias or version>]';
    case 'aws_s3':
      if (!BUCKET.test(target.bucket)) return 'config.bucket must be an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens';
      if (target.region !== null && !REGION_ONLY.test(target.region)) return 'config.region must be an AWS region such as eu-west-1';
      return keyTemplateRefusal(target.key_template);
  }
}

function isLocalQueue(queueUrl: string, localSqs: string | null): boolean {
  if (localSqs === null || !URL.canParse(queueUrl) || !URL.canParse(localSqs)) return false;
  const url = new URL(queueUrl);
  return url.origin === new URL(localSqs).origin && url.search === '' && url.hash === '' && QUEUE_PATH.test(url.pathname);
}

/** A key template names every object apart (it holds `{event_id}`) and stays within S3's 1,024-byte keys. */
function keyTemplateRefusal(template: string): string | undefined {
  const unknown = template.replaceAll(/\{(?:event_id|event_type|date)\}/g, '');
  if (/[{}]/.test(unknown)) return 'config.key_template may only use the placeholders {event_id}, {event_type} and {date}';
  if (!template.includes('{event_id}')) return 'config.key_template must contain {event_id}, so that no event overwrites another';
  if (template.startsWith('/')) return 'config.key_template must not start with /';
  const fixed = new TextEncoder().encode(unknown).length;
  const longest = KEY_PLACEHOLDERS.reduce((bytes, placeholder) => bytes + (template.split(placeholder).length - 1) * KEY_PLACEHOLDER_GROWTH[placeholder], fixed);
  return longest > S3_KEY_MAX_BYTES ? `config.key_template makes keys of up to ${longest} bytes; S3 keys are at most ${S3_KEY_MAX_BYTES}` : undefined;
}

const ROLE_ARN = new RegExp(`^arn:${PARTITION}:iam::(${ACCOUNT}):role/[A-Za-z0-9+=,.@_/-]{1,512}$`);

/**
 * Why a role to assume is refused, or undefined: an IAM role ARN, in the account of the target when
 * the target names one (a role elsewhere could not reach it without a grant of its own).
 */
export function roleArnRefusal(roleArn: string, target: AwsTarget): string | undefined {
  const roleAccount = ROLE_ARN.exec(roleArn)?.[1];
  if (roleAccount === undefined) return 'role_arn must be an IAM role ARN: arn:aws:iam::<12-digit account id>:role/<name>';
  const targetAccount = accountOf(target);
  return targetAccount === null || targetAccount === roleAccount ? undefined : `role_arn must be in the target's account (${targetAccount})`;
}

export function accountOf(target: AwsTarget): string | null {
  if (target.type === 'aws_s3') return null;
  const address = targetAddress(target);
  return (target.type === 'aws_sqs' ? SQS_URL.exec(address)?.[2] : /^arn:[^:]+:[^:]+:[^:]*:(\d{12}):/.exec(address)?.[1]) ?? null;
}

/**
 * The external id a customer's role requires of Hookgate (its trust policy's `sts:ExternalId`
 * condition): the account's own id, which no other Hookgate account can make Hookgate send, so no
 * tenant can have Hookgate assume another tenant's role (the confused deputy).
 */
export const externalIdOf = (accountId: string): string => `hookgate-${accountId}`;

/**
 * The region a target lives in; null: the deployment's own (an S3 bucket without `region`, found by
 * redirect when it is elsewhere; a queue on the local emulator).
 */
export function regionOf(target: AwsTarget): string | null {
  switch (target.type) {
    case 'aws_sqs':
      return SQS_URL.exec(target.queue_url)?.[1] ?? null;
    case 'aws_sns':
      return TOPIC_ARN.exec(target.topic_arn)?.[1] ?? null;
    case 'aws_eventbridge':
      return EVENT_BUS_ARN.exec(target.event_bus_arn)?.[1] ?? null;
    case 'aws_kinesis':
      return STREAM_ARN.exec(target.stream_arn)?.[1] ?? null;
    case 'aws_lambda':
      return FUNCTION_ARN.exec(target.function_arn)?.[1] ?? null;
    case 'aws_s3':
      return target.region;
  }
}

/** What a grant of a target's action names: its ARN, or a bucket's objects (its destination writes under any key its template makes). */
export const grantedResource = (type: AwsDestinationType, arn: string): string => (type === 'aws_s3' ? `${arn}/*` : arn);

/**
 * The target's ARN, in `partition` (an SQS queue's from its URL, a bucket's `arn:…:s3:::<name>`); null
 * for a queue URL that is no AWS one (the local emulator's).
 */
export function targetArn(target: AwsTarget, partition: string): string | null {
  if (target.type === 'aws_sqs') {
    const match = SQS_URL.exec(target.queue_url);
    return match ? `arn:${partition}:sqs:${match[1]}:${match[2]}:${match[3]}` : null;
  }
  return target.type === 'aws_s3' ? `arn:${partition}:s3:::${target.bucket}` : targetAddress(target);
}

/** What the destination's `url` shows for an AWS target: the queue URL, the ARN, or `s3://bucket/template`. */
export function targetAddress(target: AwsTarget): string {
  switch (target.type) {
    case 'aws_sqs':
      return target.queue_url;
    case 'aws_sns':
      return target.topic_arn;
    case 'aws_eventbridge':
      return target.event_bus_arn;
    case 'aws_kinesis':
      return target.stream_arn;
    case 'aws_lambda':
      return target.function_arn;
    case 'aws_s3':
      return `s3://${target.bucket}/${target.key_template}`;
  }
}

/** FIFO queues and topics need a group and a de-duplication id. */
export const isFifo = (target: AwsTarget): boolean =>
  (target.type === 'aws_sqs' && target.queue_url.endsWith('.fifo')) || (target.type === 'aws_sns' && target.topic_arn.endsWith('.fifo'));

/** An object key from its template: `{date}` is the event's receipt day (UTC), `{event_type}` `untyped` when it has none. */
export function objectKey(template: string, event: { id: string; type: string | null; receivedAt: string }): string {
  return template
    .replaceAll('{event_id}', event.id)
    .replaceAll('{event_type}', event.type ?? 'untyped')
    .replaceAll('{date}', event.receivedAt.slice(0, 10));
}

// ------------------------------------------------------------------ errors

/**
 * How a failed AWS call counts. Every class is a failed try, recorded with the AWS request id and
 * error code, counted by the breaker and retried on the destination's schedule until it dead-letters:
 * nothing is dropped. `throttled` and `server` are transient (the SDK has already retried them within
 * the try); `refused` (permissions, a missing queue, topic, bus, stream, function or bucket, a bad
 * request) lasts until the customer fixes it, which is what the breaker is for.
 */
export type AwsErrorClass = 'throttled' | 'server' | 'refused';

const THROTTLING_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'KMSThrottlingException',
  'SlowDown',
  'EC2ThrottledException',
]);

export function awsErrorClass(code: string, httpStatus: number | null): AwsErrorClass {
  if (THROTTLING_CODES.has(code) || httpStatus === 429) return 'throttled';
  if (httpStatus === null || httpStatus >= 500) return 'server';
  return 'refused';
}
