import { invalid, notFound, unauthorized } from '../domain/errors';
import { isSendableHeaderValue, unsendableHeaderMessage } from '../domain/header-values';
import { isReservedType } from '../domain/operational-events';
import { deliveryIdFor, verifySignature } from '../domain/provider-signatures';
import { parseTraceparent } from '../domain/trace-context';
import { orderingKeyAt } from '../domain/ordering';
import { parseJsonPayload } from '../domain/payload-filter';
import { appendLogKeys, log } from '../shared/log';
import { newTrace } from '../shared/secrets';
import { recordVerificationRejected } from '../shared/metrics';
import { findSourceByToken } from '../sources/record';
import { acceptEvent } from './accept';
import { hashSubject } from './subject-index';
import { subjectAt } from '../domain/erasure';
import { servedOnHost } from '../custom-domains/host-binding';
import { acceptedOutcome, refused, type Accepted, type Refused } from '../domain/outcomes';
import { noticeFanoutLimited } from '../pipeline/delivery-notices';
import { config } from '../shared/config';

/** Never stored: credentials meant for us or for the provider's own hop. */
const DROPPED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-api-key']);
/** Added by API Gateway, not sent by the provider: storing them would only cost write units. */
const GATEWAY_HEADERS = new Set(['x-amzn-trace-id', 'x-forwarded-port', 'x-forwarded-proto', 'content-length']);
export const MAX_EVENT_TYPE_LENGTH = 200;
export const MAX_EXTERNAL_ID_LENGTH = 256;
const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

/** A webhook as its provider sent it: the path token, lowercased header names, the raw body, the host it came to. */
export interface IncomingWebhook {
  token: string;
  headers: Record<string, string>;
  body: Buffer;
  host: string;
}

export type IngestOutcome = Accepted | Refused;

export async function ingestWebhook(request: IncomingWebhook, now: Date): Promise<IngestOutcome> {
  const { token } = request;
  // An invalid traceparent is no reason to refuse a webhook: the event starts a trace of its own instead.
  const trace = parseTraceparent(request.headers.traceparent) ?? newTrace();
  appendLogKeys({ trace_id: trace.id });
  if (!TOKEN.test(token)) return refused(unauthorized());
  const source = await findSourceByToken(token);
  if (!source) return refused(unauthorized());
  appendLogKeys({ account_id: source.account_id, source_id: source.source_id });
  // Another account's token on a custom domain: the host is not theirs, whatever the token.
  if (!(await servedOnHost(request.host, { kind: 'account', accountId: source.account_id }, now))) return refused(notFound());
  if (source.verification) {
    const verdict = verifySignature(source.verification, { headers: request.headers, body: request.body }, now);
    if (!verdict.ok) {
      // Not stored, but counted: a rising count means an attack or a misconfigured secret.
      recordVerificationRejected(source.verification.provider);
      log.warn('webhook signature rejected', { account_id: source.account_id, source_id: source.source_id, reason: verdict.reason });
      return refused(unauthorized('invalid signature'));
    }
  }

  const eventType = request.headers['x-event-type'] ?? null;
  if (eventType !== null && eventType.length > MAX_EVENT_TYPE_LENGTH) {
    return refused(invalid(`X-Event-Type must be at most ${MAX_EVENT_TYPE_LENGTH} characters`));
  }
  // Only Hookgate speaks in its own name: a provider's hookgate.* type would pass for an operational event.
  if (isReservedType(eventType)) return refused(invalid('X-Event-Type must not start with hookgate. (reserved for operational events)'));
  // Both go out again as headers of every delivery: what cannot be sent byte for byte is refused now.
  for (const [field, value] of [['X-Event-Type', eventType], ['Content-Type', request.headers['content-type']]] as const) {
    if (value && !isSendableHeaderValue(value)) return refused(invalid(unsendableHeaderMessage(field)));
  }
  const externalEventId = deliveryIdFor(source.verification?.provider ?? null, request.headers, request.body);
  if (externalEventId !== null && externalEventId.length > MAX_EXTERNAL_ID_LENGTH) {
    return refused(invalid(`the delivery id header must be at most ${MAX_EXTERNAL_ID_LENGTH} characters`));
  }

  // Parsed once, and only for a source that reads its events (an ordering key, a subject): others never pay for it.
  const parsed = source.ordering_key_pointer || source.subject_pointer ? parseJsonPayload(request.body) : undefined;
  const result = await acceptEvent({
    accountId: source.account_id,
    direction: 'inbound',
    sourceId: source.source_id,
    eventType,
    customer: null,
    orderingKey: parsed && source.ordering_key_pointer ? orderingKeyAt(parsed.json, source.ordering_key_pointer) : null,
    externalEventId,
    body: request.body,
    contentType: request.headers['content-type'] ?? null,
    headers: storedHeaders(request.headers),
    trace,
    createdBy: 'ingest',
    ...(parsed && source.subject_pointer && (await subjectHashAt(source.account_id, parsed.json, source.subject_pointer))),
    now,
  });
  if (!result.duplicate && result.beyondLimit.length > 0) {
    log.warn('event reached more destinations than the fan-out limit', { account_id: source.account_id, event_id: result.event.id, not_reached: result.beyondLimit.length });
    await noticeFanoutLimited(result.event, config().maxFanout, result.beyondLimit, now);
  }
  return acceptedOutcome(result);
}

/** The event's subject, hashed, when its JSON payload has one at the source's pointer; nothing otherwise (never a refusal). */
async function subjectHashAt(accountId: string, json: unknown, pointer: string): Promise<{ subjectHash?: string }> {
  const subject = subjectAt(json, pointer);
  return subject === undefined ? {} : { subjectHash: await hashSubject(accountId, subject) };
}

function storedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !DROPPED_HEADERS.has(name) && !GATEWAY_HEADERS.has(name)));
}
