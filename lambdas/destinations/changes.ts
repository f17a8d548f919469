import { DEFAULT_AUTO_DISABLE_HOURS } from '../domain/auto-disable';
import { invalid, type Refusal } from '../domain/errors';
import { DEFAULT_MAX_IN_FLIGHT } from '../domain/max-in-flight';
import { isStandardWebhooksSecret, SECRET_ROTATION_OVERLAP_MS } from '../domain/signing-secret';
import { targetAddress } from '../domain/aws-targets';
import { pendingVerification } from '../domain/endpoint-verification';
import type { DestinationRecord } from './record';

/**
 * What creating or changing a destination does, whoever asks: the account through the API or one of
 * its customers through the portal. Pure, so both callers share every rule and each rule is a table.
 */

/** How long a try may wait for its answer (`timeout_ms`), in milliseconds: a destination's and a listen session's. */
export const TIMEOUT_MS_RANGE = { min: 100, max: 30_000, default: 15_000 } as const;

/** A destination's settings: everything but its ids and timestamps. */
export type DestinationSettings = Omit<DestinationRecord, 'id' | 'account_id' | 'created_at' | 'updated_at'>;

/** The settings a caller may ask to change, as they are stored; `signing_secret` also rotates. */
const SETTABLE = [
  'name',
  'url',
  'aws_target',
  'role_arn',
  'connection_id',
  'external_id',
  'auth',
  'timeout_ms',
  'active',
  'customer',
  'retry_schedule',
  'auto_disable_after_hours',
  'rate_limit_per_second',
  'max_in_flight',
  'ordering',
  'signature_scheme',
  'verify_ownership',
] as const satisfies ReadonlyArray<keyof DestinationSettings>;

/**
 * What a customer may set on its own endpoint; the rest is the account's. An AWS endpoint's role and
 * external id are never the customer's words: they are copied from the customer's own AWS connection.
 */
const CUSTOMER_SETTABLE = ['name', 'url', 'active', 'aws_target', 'connection_id', 'role_arn', 'external_id'] as const satisfies ReadonlyArray<(typeof SETTABLE)[number]>;

export const UNKNOWN_CONNECTION_MESSAGE = 'connection_id must name one of the account’s AWS connections';
export const UNKNOWN_OWN_CONNECTION_MESSAGE = 'connection_id must name one of your AWS connections';
export const CUSTOMER_CONNECTION_MESSAGE = 'connection_id is required: an AWS endpoint delivers through one of your AWS connections';

/**
 * A customer's AWS endpoint goes through a connection of its own: without one it would be delivered
 * with Hookgate's own role (the deployment's same-account targets) or an account-wide external id.
 */
function customerAccessRefusal(d: Pick<DestinationSettings, 'aws_target' | 'connection_id'>, actor: DestinationActor): Refusal | undefined {
  return actor.kind === 'customer' && d.aws_target !== null && !d.connection_id ? invalid(CUSTOMER_CONNECTION_MESSAGE) : undefined;
}

/** What a caller asks for; absent fields keep their value (or take their default on create). */
export type DestinationInput = Partial<Pick<DestinationSettings, (typeof SETTABLE)[number] | 'signing_secret'>>;

/**
 * Who asks. The account (its API key) sets anything on any of its destinations; a customer (its
 * portal link) only the name, target and on/off switch of its own endpoints, and never sees or sets auth.
 */
export type DestinationActor = { kind: 'account' } | { kind: 'customer'; customer: string };

export const ACCOUNT_ACTOR: DestinationActor = { kind: 'account' };

/**
 * Whether the actor may see and change the destination: another customer's is none of its business,
 * and a `hookgate listen` destination (`--customer` gives it one) is the account developer's own.
 */
export const mayManage = (actor: DestinationActor, destination: { customer: string | null; listen_session?: string | null }): boolean =>
  actor.kind === 'account' || (destination.customer === actor.customer && !destination.listen_session);

/** The part of a request the actor may make; a customer's other fields are the account's to set. */
function allowedInput(input: DestinationInput, actor: DestinationActor): DestinationInput {
  if (actor.kind === 'account') return input;
  return Object.fromEntries(CUSTOMER_SETTABLE.map((field) => [field, input[field]]));
}

export const VERIFY_HTTP_ONLY_MESSAGE = 'verify_ownership is only for http destinations';
export const VERIFY_REQUIRED_MESSAGE = 'verify_ownership cannot be false: this deployment requires every endpoint to prove its ownership';

/**
 * How endpoint verification applies to a create or a change: `challenge`, a fresh one, sent if the
 * destination starts (or starts over) waiting for proof; `required`, the deployment's
 * `requireEndpointVerification`, which makes it the rule for the account's own http destinations too.
 */
export interface Ownership {
  challenge: string;
  required: boolean;
}

/** A standard_webhooks destination signs with a `whsec_` key of the size that scheme requires. */
function schemeRefusal(d: Pick<DestinationSettings, 'signature_scheme' | 'signing_secret'>): Refusal | undefined {
  if (d.signature_scheme === 'standard_webhooks' && !isStandardWebhooksSecret(d.signing_secret)) {
    return invalid('signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks');
  }
  return undefined;
}

/**
 * A new destination's settings. `url` has passed the URL checks (a portal endpoint without a name is
 * named after its host); `generatedSecret` signs unless the account brings its own secret. A
 * customer's endpoint belongs to that customer, with the defaults for everything it cannot set.
 */
export function newDestinationSettings(
  request: DestinationInput & { url: string; listen_session?: string | null },
  actor: DestinationActor,
  generatedSecret: string,
  ownership: Ownership,
): DestinationSettings | Refusal {
  const input = allowedInput(request, actor);
  const target = input.aws_target ?? null;
  // A `hookgate listen` destination is made for the account's own key only (lambdas/listen/).
  const listenSession = actor.kind === 'account' ? (request.listen_session ?? null) : null;
  const http = target === null && listenSession === null;
  if (!http && input.verify_ownership) return invalid(VERIFY_HTTP_ONLY_MESSAGE);
  if (http && ownership.required && input.verify_ownership === false) return invalid(VERIFY_REQUIRED_MESSAGE);
  // A customer's URL is the customer's word alone: its endpoint proves it before it is sent anything.
  const verifies = http && (actor.kind === 'customer' || ownership.required || input.verify_ownership === true);
  const settings: DestinationSettings = {
    name: input.name ?? (target ? target.type : new URL(request.url).host),
    url: target ? targetAddress(target) : listenSession ? `listen:${listenSession}` : request.url,
    aws_target: target,
    role_arn: target ? (input.role_arn ?? null) : null,
    listen_session: listenSession,
    connection_id: target ? (input.connection_id ?? null) : null,
    external_id: target ? (input.external_id ?? null) : null,
    active: input.active ?? true,
    auth: input.auth ?? null,
    timeout_ms: input.timeout_ms ?? TIMEOUT_MS_RANGE.default,
    signature_scheme: input.signature_scheme ?? 'hookgate',
    signing_secret: input.signing_secret ?? generatedSecret,
    previous_signing_secret: null,
    previous_secret_expires_at: null,
    disabled_reason: null,
    customer: actor.kind === 'customer' ? actor.customer : (input.customer ?? null),
    retry_schedule: input.retry_schedule ?? null,
    auto_disable_after_hours: input.auto_disable_after_hours ?? DEFAULT_AUTO_DISABLE_HOURS,
    rate_limit_per_second: input.rate_limit_per_second ?? null,
    max_in_flight: input.max_in_flight ?? DEFAULT_MAX_IN_FLIGHT,
    // Stored only when asked for: absent is `none`, as on destinations made before ordering existed.
    ...(input.ordering && { ordering: input.ordering }),
    verify_ownership: verifies,
    verification_challenge: verifies ? ownership.challenge : null,
    verified_at: null,
  };
  return schemeRefusal(settings) ?? customerAccessRefusal(settings, actor) ?? settings;
}

/** A new signing secret; the old one keeps verifying for a day, so consumers roll their config without downtime. */
export function secretRotation(current: Pick<DestinationSettings, 'signing_secret'>, secret: string, now: Date): Partial<DestinationSettings> {
  return {
    signing_secret: secret,
    previous_signing_secret: current.signing_secret,
    previous_secret_expires_at: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString(),
  };
}

export interface PlannedChange {
  changes: Partial<DestinationSettings>;
  /** Switched back on: its endpoint starts with a clean record, as if new. */
  resetBreaker: boolean;
  /** The customer the destination moves to (whose endpoint cap applies), or null. */
  joinsCustomer: string | null;
  /**
   * `start`: it waits for its endpoint's proof from now (a new challenge is sent); `release`: it
   * waited, and no longer does (what it held goes); null: neither.
   */
  verification: 'start' | 'release' | null;
}

/** What a change request does to a destination, or why it is refused. */
export function planDestinationChange(current: DestinationSettings, request: DestinationInput, actor: DestinationActor, now: Date, ownership: Ownership): PlannedChange | Refusal {
  const input = allowedInput(request, actor);
  const http = current.aws_target === null && current.listen_session === null;
  if (!http && input.verify_ownership) return invalid(VERIFY_HTTP_ONLY_MESSAGE);
  if (http && ownership.required && input.verify_ownership === false) return invalid(VERIFY_REQUIRED_MESSAGE);
  if (input.url !== undefined && current.aws_target !== null) return invalid(`url is only for http destinations; ${current.aws_target.type} takes config`);
  if (input.url !== undefined && current.listen_session !== null) return invalid('url is only for http destinations; a cli destination delivers to its hookgate listen');
  if (input.aws_target && input.aws_target.type !== current.aws_target?.type) return invalid('type cannot change: create a destination of the new type');
  if (input.role_arn && current.aws_target === null) return invalid('role_arn is only for AWS destination types');
  const changes: Partial<DestinationSettings> = Object.fromEntries(SETTABLE.filter((field) => input[field] !== undefined).map((field) => [field, input[field]]));
  if (input.aws_target) changes.url = targetAddress(input.aws_target);
  if (input.signing_secret !== undefined && input.signing_secret !== current.signing_secret) {
    Object.assign(changes, secretRotation(current, input.signing_secret, now));
  }
  // Whatever switched it off (the account, a 410, auto-disable) is over.
  const reenabled = input.active === true && !current.active;
  if (reenabled) changes.disabled_reason = null;
  // The account's auth is a credential for the URL the account knew: a customer who points its endpoint
  // elsewhere must not carry it there.
  if (actor.kind === 'customer' && input.url !== undefined && input.url !== current.url && current.auth !== null) changes.auth = null;
  // A URL a customer (or anyone, where the deployment requires it) points an endpoint at proves itself, as a new one would.
  if (http && input.url !== undefined && input.url !== current.url && (actor.kind === 'customer' || ownership.required)) changes.verify_ownership = true;
  // An AWS endpoint the account set up otherwise may still be renamed or paused by its customer.
  const movesTarget = changes.aws_target !== undefined || changes.connection_id !== undefined;
  const refusal = schemeRefusal({ ...current, ...changes }) ?? (movesTarget ? customerAccessRefusal({ ...current, ...changes }, actor) : undefined);
  if (refusal) return refusal;
  const joinsCustomer = changes.customer !== undefined && changes.customer !== null && changes.customer !== current.customer ? changes.customer : null;
  return { changes: { ...changes, ...verificationChanges(current, changes, ownership) }, resetBreaker: reenabled, joinsCustomer, verification: verificationStep(current, changes) };
}

/** Whether a change starts the wait for proof over (a proof is of one URL) or ends it; see `PlannedChange.verification`. */
function verificationStep(current: DestinationSettings, changes: Partial<DestinationSettings>): PlannedChange['verification'] {
  const verifies = changes.verify_ownership ?? current.verify_ownership;
  const moved = changes.url !== undefined && changes.url !== current.url;
  if (verifies && (moved || !current.verify_ownership)) return 'start';
  return pendingVerification(current) && !verifies ? 'release' : null;
}

function verificationChanges(current: DestinationSettings, changes: Partial<DestinationSettings>, ownership: Ownership): Partial<DestinationSettings> {
  const step = verificationStep(current, changes);
  if (step === 'start') return { verification_challenge: ownership.challenge, verified_at: null };
  return step === 'release' ? { verification_challenge: null } : {};
}
