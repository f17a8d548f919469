import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_EVENTS } from '../../lambdas/api/routes/outbound-events';
import { TIMEOUT_MS_RANGE } from '../../lambdas/destinations/changes';
import { DEFAULT_ENDPOINT_CAPS } from '../../lambdas/domain/endpoint-caps';
import { MAX_RATE_LIMIT_PER_SECOND } from '../../lambdas/destinations/shapes';
import { DEFAULT_AUTO_DISABLE_HOURS, MAX_AUTO_DISABLE_HOURS } from '../../lambdas/domain/auto-disable';
import { RETRY_SCHEDULE_LIMITS } from '../../lambdas/domain/backoff';
import { REPLAY_JOB_LIMIT } from '../../lambdas/domain/bulk-replay';
import { DEFAULT_MAX_FANOUT } from '../../lambdas/domain/delivery-plan';
import { MAX_EXPORT_ROWS } from '../../lambdas/domain/export-rows';
import { LISTEN_MAX_BODY_BYTES, LISTEN_MAX_RESPONSE_BODY_BYTES, WEBSOCKET_IDLE_TIMEOUT_MS, WEBSOCKET_MAX_CONNECTION_MS } from '../../lambdas/domain/listen';
import { DEFAULT_MAX_IN_FLIGHT, MAX_MAX_IN_FLIGHT } from '../../lambdas/domain/max-in-flight';
import { FILTER_MAX_BYTES } from '../../lambdas/domain/payload-filter';
import { LAMBDA_PAYLOAD_LIMIT_BYTES, MAX_BINARY_BODY_BYTES, MAX_BODY_BYTES } from '../../lambdas/domain/payload-limits';
import { AWS_MESSAGE_LIMITS } from '../../lambdas/domain/aws-targets';
import { BRAND_LIMITS } from '../../lambdas/domain/brand';
import { MAX_MESSAGE_DELAY_SECONDS } from '../../lambdas/domain/queue-wait';
import { MAX_RETENTION_DAYS } from '../../lambdas/domain/plans';
import { PORTAL_SESSION_SECONDS } from '../../lambdas/domain/portal';
import { MAX_EVENT_TYPE_LENGTH, MAX_EXTERNAL_ID_LENGTH } from '../../lambdas/events/ingest';
import { DEFAULT_ROUTE_THROTTLES } from '../../lib/service-stack';
import { CARRIED_BODY_MAX_BYTES } from '../../lambdas/events/record';
import { DELIVERY_DLQ, DELIVERY_QUEUE } from '../../lambdas/shared/resource-definitions';

// Every limit README.md and docs/*.md state as a number, against the constant the code enforces
// (issue 38 item 6: the docs said 100 destinations an event where the code allowed 1,000). Each
// limit lists the sentence shapes that state it; every mention of that shape in any document must
// give the constant, so a new mention with a wrong number fails as well as a stale old one. Each shape
// must be found at least once, so a reworded sentence cannot quietly leave its limit unchecked.

const DOCUMENTS = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** A document's prose as one line: wrapped sentences joined, code and bold marks dropped. */
const prose = (path: string) =>
  readFileSync(path, 'utf8')
    .replace(/`|\*\*/g, '')
    .replace(/\s*\n\s*/g, ' ');

const TEXTS = DOCUMENTS.map((path) => ({ path, text: prose(path) }));

/** A stated number: digits with thousands commas, or a decimal. */
const N = String.raw`(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)`;
const number = (stated: string) => Number(stated.replaceAll(',', ''));
const shape = (source: string) => new RegExp(source.replaceAll('<n>', N), 'gi');

interface Limit {
  limit: string;
  value: number;
  /** Sentence shapes stating it; `<n>` is the number. */
  shapes: string[];
}

const MB = 1024 * 1024;
const { ingest, management, signup } = DEFAULT_ROUTE_THROTTLES;

const DAY = 24 * 3600;

const LIMITS: Limit[] = [
  // What outlives an erasure (issue 45): the payload bytes a queue message carries, and how long each queue keeps one.
  { limit: 'body a delivery task carries, KB', value: CARRIED_BODY_MAX_BYTES / 1024, shapes: [String.raw`up to <n> KB of body`] },
  { limit: 'delivery queue retention, days', value: DELIVERY_QUEUE.retentionSeconds / DAY, shapes: [String.raw`the delivery queue keeps a message at most <n> days`] },
  { limit: 'delivery DLQ retention, days', value: DELIVERY_DLQ.retentionSeconds / DAY, shapes: [String.raw`<n> days in the dead-letter queue`] },
  {
    limit: 'destinations one event reaches (HOOKGATE_MAX_FANOUT)',
    value: DEFAULT_MAX_FANOUT,
    shapes: [
      String.raw`<n> destinations (?:per|an|a|each) event`,
      String.raw`one event (?:may )?reach(?:es)? at most <n>`,
      String.raw`HOOKGATE_MAX_FANOUT (?:destinations )?\(<n>`,
      String.raw`\| HOOKGATE_MAX_FANOUT \| <n> \|`,
      String.raw`first <n> by route age`,
    ],
  },
  { limit: 'request body, MB', value: MAX_BODY_BYTES / MB, shapes: [String.raw`(?:over|up to|the full) <n> MB\b(?! JSON)`] },
  { limit: 'request body, bytes', value: MAX_BODY_BYTES, shapes: [String.raw`\b5 MB \(<n> bytes\)`] },
  {
    limit: 'events in one publish batch',
    value: MAX_BATCH_EVENTS,
    shapes: [String.raw`up to <n> events in one call`, String.raw`<n> events per publish batch`, String.raw`events must contain at most <n> items`],
  },
  {
    limit: 'max_in_flight, highest',
    value: MAX_MAX_IN_FLIGHT,
    shapes: [String.raw`max_in_flight must be at most <n>`, String.raw`max_in_flight \| integer 1\.\.<n>`, String.raw`max_in_flight \(default \d+, up to <n>`],
  },
  {
    limit: 'max_in_flight, default',
    value: DEFAULT_MAX_IN_FLIGHT,
    shapes: [String.raw`max_in_flight \(default <n>`, String.raw`max_in_flight \| integer 1\.\.[\d,]+ \| <n> \|`],
  },
  {
    limit: 'retry schedule, steps',
    value: RETRY_SCHEDULE_LIMITS.maxSteps,
    shapes: [String.raw`retry_schedule \| array of 1\.\.<n> integers`, String.raw`up to <n> steps`, String.raw`at most <n> tries per delivery`],
  },
  {
    limit: 'retry schedule, seconds a step',
    value: RETRY_SCHEDULE_LIMITS.maxStepSeconds,
    shapes: [String.raw`integers, each 0\.\.<n> \(seconds\)`],
  },
  {
    limit: 'timeout_ms, lowest',
    value: TIMEOUT_MS_RANGE.min,
    shapes: [String.raw`timeout_ms (?:\| int |\()<n>\.\.`, String.raw`timeout_ms must be at least <n>`],
  },
  {
    limit: 'timeout_ms, highest',
    value: TIMEOUT_MS_RANGE.max,
    shapes: [String.raw`timeout_ms (?:\| int |\()\d+\.\.<n>`, String.raw`timeout_ms must be at (?:least \d+ \(or at )?most <n>`],
  },
  {
    limit: 'timeout_ms, default',
    value: TIMEOUT_MS_RANGE.default,
    shapes: [String.raw`timeout_ms \| int \d+\.\.\d+ \| <n>`, String.raw`timeout_ms \(\d+\.\.\d+, default <n>`],
  },
  {
    limit: 'rate_limit_per_second, highest',
    value: MAX_RATE_LIMIT_PER_SECOND,
    shapes: [String.raw`rate_limit_per_second \| integer 1\.\.<n>`],
  },
  {
    limit: 'auto_disable_after_hours, highest',
    value: MAX_AUTO_DISABLE_HOURS,
    shapes: [String.raw`auto_disable_after_hours \| number 0\.\.<n>`],
  },
  {
    limit: 'auto_disable_after_hours, default',
    value: DEFAULT_AUTO_DISABLE_HOURS,
    shapes: [String.raw`auto_disable_after_hours \| number [^|]*\| <n>`],
  },
  { limit: 'retention_days, highest', value: MAX_RETENTION_DAYS, shapes: [String.raw`retention_days[^.]{0,60}\(1\.\.<n>\)`] },
  {
    limit: 'portal session seconds, highest',
    value: PORTAL_SESSION_SECONDS.max,
    shapes: [String.raw`expires_in_seconds\?\} \(1\.\.<n>`, String.raw`expires_in_seconds must be at most <n>`],
  },
  {
    limit: 'portal session seconds, default',
    value: PORTAL_SESSION_SECONDS.default,
    shapes: [String.raw`expires_in_seconds\?\} \(1\.\.[\d,]+; default <n>`],
  },
  { limit: 'event type, characters', value: MAX_EVENT_TYPE_LENGTH, shapes: [String.raw`X-Event-Type[^.]{0,40}?(?:at most|≤) <n> characters`] },
  { limit: 'a provider delivery id, characters', value: MAX_EXTERNAL_ID_LENGTH, shapes: [String.raw`delivery ids ≤ <n>`] },
  { limit: 'rows of an export', value: MAX_EXPORT_ROWS, shapes: [String.raw`<n> rows per export`, String.raw`at most <n> rows`] },
  { limit: 'events of a bulk replay job', value: REPLAY_JOB_LIMIT, shapes: [String.raw`<n> events per job`, String.raw`counted up to <n>`] },
  {
    limit: 'destinations (and AWS connections) a customer may have',
    value: DEFAULT_ENDPOINT_CAPS.perCustomer,
    shapes: [String.raw`<n> destinations per customer`, String.raw`at most <n> per customer`, String.raw`customer \S+ has reached its limit of <n> (?:endpoints|AWS connections)`],
  },
  {
    limit: 'destinations an account may have',
    value: DEFAULT_ENDPOINT_CAPS.perAccount,
    shapes: [String.raw`per customer and <n> per account`, String.raw`the account has reached its limit of <n> endpoints`, String.raw`within your account's <n>`],
  },
  { limit: 'an event Lambda takes, bytes', value: LAMBDA_PAYLOAD_LIMIT_BYTES, shapes: [String.raw`Lambda takes at most <n> bytes`, String.raw`fits the <n> bytes`, String.raw`Lambda's <n>-byte limit`] },
  { limit: 'a binary request body, bytes', value: MAX_BINARY_BODY_BYTES, shapes: [String.raw`other bodies up to <n> bytes`, String.raw`base64: 4 bytes per 3 \| <n> bytes`] },
  {
    limit: 'a message SQS, EventBridge, Kinesis and Lambda take, bytes',
    value: AWS_MESSAGE_LIMITS.aws_sqs ?? 0,
    shapes: [String.raw`asynchronous invoke\) take <n> bytes a message`, String.raw`Kinesis <n> a record`, String.raw`1 MiB a message \(<n> bytes`],
  },
  { limit: 'a message SNS takes, bytes', value: AWS_MESSAGE_LIMITS.aws_sns ?? 0, shapes: [String.raw`a record \(data and partition key\), SNS <n>`, String.raw`aws_sns takes at most <n> bytes`, String.raw`SNS 256 KiB \(<n> bytes\)`] },
  { limit: 'SQS DelaySeconds', value: MAX_MESSAGE_DELAY_SECONDS, shapes: [String.raw`DelaySeconds \(≤ <n> s`] },
  {
    limit: 'brand company_name, characters',
    value: BRAND_LIMITS.company_name,
    shapes: [String.raw`company_name \| string or null \| [^|]* \| 1\.\.<n> characters`, String.raw`company_name must be at most <n> characters`],
  },
  { limit: 'brand docs_title, characters', value: BRAND_LIMITS.docs_title, shapes: [String.raw`docs_title \| string or null \| [^|]* \| 1\.\.<n> characters`] },
  { limit: 'payload filter, bytes', value: FILTER_MAX_BYTES, shapes: [String.raw`filter[^.]{0,30}? at most <n> bytes`, String.raw`filter must be at most <n> bytes`] },
  {
    limit: 'hookgate listen, body bytes',
    value: LISTEN_MAX_BODY_BYTES,
    shapes: [String.raw`a body over <n> bytes (?:is|is not)`, String.raw`hookgate listen carries at most <n>`],
  },
  {
    limit: 'hookgate listen, answer bytes kept',
    value: LISTEN_MAX_RESPONSE_BODY_BYTES,
    shapes: [String.raw`the first <n> bytes of the local answer`, String.raw`the first <n> bytes, as an HTTP attempt keeps`],
  },
  {
    limit: 'WebSocket idle minutes',
    value: WEBSOCKET_IDLE_TIMEOUT_MS / 60_000,
    shapes: [String.raw`idle for <n> minutes`, String.raw`API Gateway's <n> idle minutes`, String.raw`carried no message for <n> minutes`],
  },
  {
    limit: 'WebSocket connection hours',
    value: WEBSOCKET_MAX_CONNECTION_MS / 3_600_000,
    shapes: [String.raw`idle for \d+ minutes and any after <n> hours`, String.raw`every connection after <n> hours`, String.raw`ends it \(after <n> hours\)`],
  },
  {
    limit: 'ingest route, requests a second',
    value: ingest.rateLimit,
    shapes: [
      String.raw`\| POST /ingest/\{token\} \| <n>/s \|`,
      String.raw`ingest \(POST /ingest/\{token\}\) <n> requests/s`,
      String.raw`ingest route throttle: <n> req/s`,
      String.raw`ingest route's throttle \(<n> requests/s`,
      String.raw`spend ingest's <n>/s`,
      String.raw`\| ingestRateLimit, ingestBurstLimit \| <n>,`,
    ],
  },
  {
    limit: 'ingest route, burst',
    value: ingest.burstLimit,
    shapes: [
      String.raw`\| POST /ingest/\{token\} \| [\d,]+/s \| <n> \|`,
      String.raw`[\d,]+ requests/s with a burst of <n>`,
      String.raw`ingest route throttle: [\d,]+ req/s, burst <n>`,
      String.raw`\| ingestRateLimit, ingestBurstLimit \| [\d,]+, <n> \|`,
    ],
  },
  {
    limit: 'management routes, requests a second',
    value: management.rateLimit,
    shapes: [String.raw`\(ANY /\{proxy\+\}\) \| <n>/s \|`, String.raw`management API \(ANY /\{proxy\+\}\) <n>/s`, String.raw`\| managementRateLimit, managementBurstLimit \| <n>,`],
  },
  {
    limit: 'management routes, burst',
    value: management.burstLimit,
    shapes: [String.raw`\(ANY /\{proxy\+\}\) \| [\d,]+/s \| <n> \|`, String.raw`management API \(ANY /\{proxy\+\}\) [\d,]+/s \(burst <n>\)`, String.raw`\| managementRateLimit, managementBurstLimit \| [\d,]+, <n> \|`],
  },
  {
    limit: 'sign-up route, requests a second',
    value: signup.rateLimit,
    shapes: [String.raw`\| POST /v1/accounts \| <n>/s \|`, String.raw`sign-up \(POST /v1/accounts\) <n>/s`],
  },
  {
    limit: 'sign-up route, burst',
    value: signup.burstLimit,
    shapes: [String.raw`\| POST /v1/accounts \| [\d,]+/s \| <n> \|`, String.raw`sign-up \(POST /v1/accounts\) [\d,]+/s \(burst <n>\)`],
  },
];

interface Mention {
  path: string;
  shape: string;
  stated: number;
  sentence: string;
}

function mentions(limit: Limit): Mention[] {
  return limit.shapes.flatMap((source) =>
    TEXTS.flatMap(({ path, text }) =>
      [...text.matchAll(shape(source))].map((match) => ({
        path,
        shape: source,
        stated: number(match[1] ?? 'NaN'),
        sentence: text.slice(Math.max(0, match.index - 60), match.index + match[0].length + 20),
      })),
    ),
  );
}

describe('limits stated in README.md and docs/*.md', () => {
  it.each(LIMITS.map((l) => [l.limit, l] as const))('%s: every mention states the constant', (_name, limit) => {
    const found = mentions(limit);
    const wrong = found.filter((m) => m.stated !== limit.value).map((m) => `${m.path}: states ${m.stated}, the code ${limit.value}: …${m.sentence}…`);
    expect(wrong).toEqual([]);
    const unused = limit.shapes.filter((source) => !found.some((m) => m.shape === source));
    expect(unused, 'each sentence shape must find a mention: reword it with the docs').toEqual([]);
  });

  it('the write units a webhook costs: every statement of the total agrees with bench/results.json', () => {
    const results = JSON.parse(readFileSync('bench/results.json', 'utf8')) as { cost_breakdown: { happy_path: { lines: Array<{ unit: string; quantity: number }> } } };
    const measured = results.cost_breakdown.happy_path.lines.find((line) => line.unit === 'WRU')?.quantity;
    expect(measured).toBeGreaterThan(0);
    // What a part of the total costs (an index that was removed, the sweeper's deletes) is worded apart.
    const total = /(?<!(?:was|cost|index,) ~?)(\d+(?:\.\d+)?) (?:write units|WRU|writes) (?:per|a) webhook/gi;
    const statements = TEXTS.flatMap(({ path, text }) => [...text.matchAll(total)].map((match) => ({ path, stated: Number(match[1]), sentence: text.slice(Math.max(0, match.index - 60), match.index + match[0].length) })));
    expect(statements.length).toBeGreaterThan(0);
    const wrong = statements.filter((s) => Math.round(s.stated) !== Math.round(measured ?? 0)).map((s) => `${s.path}: ${s.stated}, measured ${measured}: …${s.sentence}`);
    expect(wrong).toEqual([]);
  });

  it('the README’s route throttle settings are the code’s defaults', () => {
    const readme = prose('README.md');
    const row = /\| ingestRateLimit\/ingestBurstLimit, managementRateLimit\/managementBurstLimit, signupRateLimit\/signupBurstLimit \| (\d+)\/(\d+), (\d+)\/(\d+), (\d+)\/(\d+) \|/.exec(readme);
    expect(row?.slice(1).map(Number)).toEqual([ingest.rateLimit, ingest.burstLimit, management.rateLimit, management.burstLimit, signup.rateLimit, signup.burstLimit]);
  });
});
