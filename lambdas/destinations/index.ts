import { resolveHost } from '../adapters/dns';
import { invalid, Refusal } from '../domain/errors';
import { awsTargetRefusal, isOwnQueue, mayUseOwnRole, OWN_QUEUE_REFUSAL, OWN_ROLE_REFUSAL, roleArnRefusal, type AwsTarget } from '../domain/aws-targets';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { newChallenge, newId, newSigningSecret } from '../shared/secrets';
import { pendingVerification } from '../domain/endpoint-verification';
import { CLOSED_BREAKER, type BreakerState } from '../domain/breaker';
import { headerFacts, shownDeliveryHeaders } from '../domain/delivery-headers';
import { subscribedTypes } from '../domain/portal';
import { findBreaker, listBreakers, resetBreaker } from '../store/breakers';
import { heldCount, heldPage } from '../store/held-deliveries';
import { sendReleaseBackstop, startRelease } from '../pipeline/held-deliveries';
import { endHeldDeliveries } from '../pipeline/end-held';
import { listEventTypes } from '../event-types/record';
import { findConnection } from '../aws-connections/record';
import { connectionUseRefusal } from '../domain/aws-connections';
import { deleteRoute, listRoutes } from '../routes/record';
import { endpointCapRefusal } from '../domain/endpoint-caps';
import {
  mayManage,
  newDestinationSettings,
  planDestinationChange,
  secretRotation,
  UNKNOWN_CONNECTION_MESSAGE,
  UNKNOWN_OWN_CONNECTION_MESSAGE,
  type DestinationActor,
  type DestinationInput,
} from './changes';
import { ensureSigningKeys } from '../signing-keys';
import { deleteDestination, destinationOwners, findDestination, insertDestination, listDestinations, updateDestination, type DestinationRecord } from './record';
import { endpointRoutes, subscribeEndpoint } from './subscriptions';
import { destinationUrlRefusal } from './url';
import { sendChallenge } from './verification';

/**
 * A destination's whole life: create, change (rename, move, pause, re-enable), rotate its secret,
 * delete. The management API (the account) and the consumer portal (one customer) both come here, so
 * a rule such as "re-enabling starts the breaker afresh" holds for both; what each change does is
 * decided in ./changes.ts.
 */

export interface DestinationRequest extends Omit<DestinationInput, 'external_id'> {
  /** The event types it receives (portal endpoints): routes the portal manages, from the account's catalog. */
  event_types?: readonly string[];
}

export type Created = { kind: 'created'; destination: DestinationRecord };
export type Changed = { kind: 'changed'; destination: DestinationRecord };

/** The destination, if the actor may see it; another customer's is as unknown as a missing one. */
export async function findManagedDestination(accountId: string, destinationId: string, actor: DestinationActor): Promise<DestinationRecord | undefined> {
  const destination = await findDestination(accountId, destinationId);
  return destination && mayManage(actor, destination) ? destination : undefined;
}

/** A destination with its breaker, how many deliveries it holds and since when the first waits: what the API and the portal show of it. */
export interface ShownDestination {
  destination: DestinationRecord;
  breaker: BreakerState & HeldSummary;
}

interface HeldSummary {
  held: number;
  /** The due time of the delivery held longest (the oldest by the order they are released in); null when none is held. */
  oldest_held_since: string | null;
}

/** The breaker and what one destination holds (small reads side by side; the oldest is read only when something is held). */
async function healthOf(accountId: string, destinationId: string, known?: BreakerState): Promise<ShownDestination['breaker']> {
  const [breaker, held] = await Promise.all([known ?? findBreaker(accountId, destinationId), heldCount(accountId, destinationId)]);
  const oldest = held > 0 ? (await heldPage(accountId, destinationId, 1))[0] : undefined;
  return { ...breaker, held, oldest_held_since: oldest?.due ?? null };
}

export const withHealth = async (destination: DestinationRecord): Promise<ShownDestination> => ({
  destination,
  breaker: await healthOf(destination.account_id, destination.id),
});

export async function showDestination(accountId: string, destinationId: string, actor: DestinationActor): Promise<ShownDestination | undefined> {
  const [destination, breaker] = await Promise.all([findManagedDestination(accountId, destinationId, actor), healthOf(accountId, destinationId)]);
  return destination && { destination, breaker };
}

/** The destinations the actor may see (a customer: its own), newest first; `customer` narrows the account's. */
export async function listManagedDestinations(accountId: string, actor: DestinationActor, customer?: string): Promise<ShownDestination[]> {
  const [destinations, breakers] = await Promise.all([listDestinations(accountId), listBreakers(accountId)]);
  const shown = destinations.filter((d) => mayManage(actor, d) && (customer === undefined || d.customer === customer));
  return Promise.all(shown.map(async (destination) => ({ destination, breaker: await healthOf(accountId, destination.id, breakers.get(destination.id) ?? CLOSED_BREAKER) })));
}

/** A portal endpoint: the destination, its breaker and the event types its portal routes subscribe it to. */
export async function showEndpoint(destination: DestinationRecord): Promise<ShownDestination & { eventTypes: string[] }> {
  const [breaker, routes] = await Promise.all([healthOf(destination.account_id, destination.id), listRoutes(destination.account_id)]);
  return { destination, breaker, eventTypes: subscribedTypes(endpointRoutes(routes, destination.id)) };
}

/** Every endpoint of one customer, with health and event types, from three reads. */
export async function listEndpoints(accountId: string, customer: string): Promise<Array<ShownDestination & { eventTypes: string[] }>> {
  const [shown, routes] = await Promise.all([listManagedDestinations(accountId, { kind: 'customer', customer }), listRoutes(accountId)]);
  return shown.map((s) => ({ ...s, eventTypes: subscribedTypes(endpointRoutes(routes, s.destination.id)) }));
}

/**
 * The headers each try of an event to these destinations carries, as event detail shows them (per-try
 * values described, credentials hidden), by destination id; null for one the actor may not see or that
 * is gone.
 */
export async function shownRequestHeaders(
  event: Parameters<typeof headerFacts>[0] & { account_id: string },
  storedContentType: string | null,
  destinationIds: readonly string[],
  actor: DestinationActor,
): Promise<Map<string, Record<string, string> | null>> {
  const shown = await Promise.all(
    destinationIds.map(async (id) => {
      const destination = await findManagedDestination(event.account_id, id, actor);
      return [id, destination ? shownDeliveryHeaders(headerFacts(event, storedContentType, destination, config().version)) : null] as const;
    }),
  );
  return new Map(shown);
}

/** A fresh challenge for a destination that starts waiting for proof, and whether the deployment makes proof the rule. */
const ownership = () => ({ challenge: newChallenge(), required: config().requireEndpointVerification });

const urlRefusal = (url: string) => destinationUrlRefusal(url, config().allowPrivateDestinations, resolveHost);

async function catalogRefusal(accountId: string, types: readonly string[] | undefined): Promise<Refusal | undefined> {
  if (!types?.length) return undefined;
  const catalog = new Set((await listEventTypes(accountId)).map((t) => t.name));
  return types.every((t) => catalog.has(t)) ? undefined : invalid('event_types must name event types of the catalog');
}

/** Counted from the account's destinations as stored now: two creates at the same moment may both pass. */
async function capRefusal(accountId: string, arrival: { customer: string | null; newDestination: boolean }): Promise<Refusal | undefined> {
  return endpointCapRefusal(await destinationOwners(accountId), arrival, config().endpointCaps);
}

/**
 * An http destination's URL passes the SSRF checks; an AWS destination's target the strict name and
 * ARN rules, and the role it is reached through must be in its account. `current`: the destination a
 * change applies to, whose target or role the request may keep. Without a role, only an account the
 * operator lists may use the deliver role's own grants: checked when the account creates one or
 * changes how it is reached (a rename or a pause of one stored before the list changed still goes;
 * its tries are refused at send). A customer never gets that far: its AWS endpoints need one of its
 * own connections (customerAccessRefusal), which says so in the customer's words.
 */
async function whereRefusal(
  accountId: string,
  request: { url?: string; aws_target?: AwsTarget | null; role_arn?: string | null; connection_id?: string | null },
  actor: DestinationActor,
  current?: DestinationRecord,
): Promise<Refusal | undefined> {
  const target = request.aws_target ?? current?.aws_target ?? null;
  const roleArn = request.role_arn === undefined ? (current?.role_arn ?? null) : request.role_arn;
  if (target) {
    const reaches = !current || request.aws_target !== undefined || request.role_arn !== undefined || request.connection_id !== undefined;
    const ownRoleRefused = roleArn === null && actor.kind === 'account' && reaches && !mayUseOwnRole(accountId, config().ownRoleAccounts);
    const reason =
      (request.aws_target ? awsTargetRefusal(request.aws_target, config().sqsEndpoint) : undefined) ??
      (isOwnQueue(target, config().deliveryQueueUrl) ? OWN_QUEUE_REFUSAL : undefined) ??
      (ownRoleRefused ? OWN_ROLE_REFUSAL : undefined) ??
      (roleArn === null ? undefined : roleArnRefusal(roleArn, target));
    return reason === undefined ? undefined : invalid(reason);
  }
  return request.url === undefined ? undefined : urlRefusal(request.url);
}

type Access = Pick<DestinationInput, 'role_arn' | 'connection_id' | 'external_id'>;

/**
 * How the destination reaches its AWS target, as stored: through an AWS connection (its role and
 * external id copied onto the destination, so a delivery reads no other item), a bare `role_arn` with
 * the account's external id, or neither (the deliver role). A connection must be the account's, in the
 * target's AWS account, and the destination's customer's when it has one; it is checked again when a
 * change moves the target or the customer.
 */
async function accessOf(accountId: string, request: DestinationRequest, actor: DestinationActor, current?: DestinationRecord): Promise<Access | Refusal> {
  if (request.connection_id && request.role_arn) return invalid('connection_id and role_arn cannot both be given: a connection names its role');
  const moves = request.connection_id !== undefined || request.role_arn !== undefined || request.aws_target !== undefined || request.customer !== undefined;
  if (current && !moves) return {};
  const connectionId = request.connection_id === undefined ? (request.role_arn === undefined ? current?.connection_id : null) : request.connection_id;
  if (!connectionId) {
    // Removing a connection removes its role too; a bare role_arn stays unless the request replaces it.
    if (request.connection_id === null) return { connection_id: null, external_id: null, role_arn: request.role_arn ?? (current?.connection_id ? null : (current?.role_arn ?? null)) };
    return request.role_arn === undefined ? {} : { role_arn: request.role_arn, connection_id: null, external_id: null };
  }
  const target = request.aws_target ?? current?.aws_target ?? null;
  if (target === null) return invalid('connection_id is only for AWS destination types');
  const connection = await findConnection(accountId, connectionId);
  // A customer uses its own connections only: the account's, or another customer's, are as unknown as a missing one.
  if (!connection || !mayManage(actor, connection)) return invalid(actor.kind === 'account' ? UNKNOWN_CONNECTION_MESSAGE : UNKNOWN_OWN_CONNECTION_MESSAGE);
  const customer = actor.kind === 'customer' ? actor.customer : request.customer === undefined ? (current?.customer ?? null) : request.customer;
  const refusal = connectionUseRefusal(connection, target, customer);
  if (refusal) return invalid(refusal);
  return { connection_id: connection.id, role_arn: connection.role_arn, external_id: connection.external_id };
}

/** An http destination (no `aws_target`) comes with its `url`, which the API and the portal both require. */
export async function createDestination(accountId: string, asked: DestinationRequest & { url?: string; listen_session?: string }, actor: DestinationActor, now: Date): Promise<Created | Refused> {
  const access = await accessOf(accountId, asked, actor);
  if (access instanceof Refusal) return refused(access);
  const request = { ...asked, ...access };
  const checked = (await whereRefusal(accountId, request, actor)) ?? (await catalogRefusal(accountId, request.event_types));
  if (checked) return refused(checked);
  const settings = newDestinationSettings({ ...request, url: request.url ?? '' }, actor, newSigningSecret(), ownership());
  if (settings instanceof Refusal) return refused(settings);
  const capped = await capRefusal(accountId, { customer: settings.customer, newDestination: true });
  if (capped) return refused(capped);
  // Before the destination exists, so its first delivery finds its customer's key to sign with.
  if (settings.signature_scheme === 'ed25519') await ensureSigningKeys(accountId, settings.customer, now);
  const at = now.toISOString();
  const destination: DestinationRecord = { id: newId(), account_id: accountId, ...settings, created_at: at, updated_at: at };
  await insertDestination(destination);
  if (request.event_types) await subscribeEndpoint(accountId, destination.id, request.event_types, now);
  if (pendingVerification(destination) && destination.active) await sendChallenge(destination);
  return { kind: 'created', destination };
}

/** Any change, pausing and re-enabling included; `current` is the destination as the caller found it. */
export async function changeDestination(current: DestinationRecord, asked: DestinationRequest, actor: DestinationActor, now: Date): Promise<Changed | NotFound | Refused> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  const accountId = current.account_id;
  const access = await accessOf(accountId, asked, actor, current);
  if (access instanceof Refusal) return refused(access);
  const request = { ...asked, ...access };
  const checked = (await whereRefusal(accountId, request, actor, current)) ?? (await catalogRefusal(accountId, request.event_types));
  if (checked) return refused(checked);
  const plan = planDestinationChange(current, request, actor, now, ownership());
  if (plan instanceof Refusal) return refused(plan);
  const capped = plan.joinsCustomer === null ? undefined : await capRefusal(accountId, { customer: plan.joinsCustomer, newDestination: false });
  if (capped) return refused(capped);
  // Switched back on: what it held (paused, or by its breaker) goes now, as after a successful probe;
  // the backstop, sent before the change, lets it go should the release sent after it be lost.
  // No longer waiting for its endpoint's proof lets them go the same way.
  const switchesOn = (plan.changes.active === true && !current.active) || plan.verification === 'release';
  if (switchesOn) await sendReleaseBackstop(accountId, current.id);
  // Switched to Ed25519, or moved to another customer while on it: it signs with that customer's keys from its next try.
  const after = { ...current, ...plan.changes };
  const signsAnew = plan.changes.signature_scheme !== undefined || plan.changes.customer !== undefined;
  if (after.signature_scheme === 'ed25519' && signsAnew) await ensureSigningKeys(accountId, after.customer, now);
  const destination = await updateDestination(accountId, current.id, { ...plan.changes, updated_at: now.toISOString() });
  if (!destination) return { kind: 'not_found' };
  if (plan.resetBreaker) await resetBreaker(accountId, current.id);
  if (switchesOn) await startReleaseOrLeaveItToBackstop(accountId, current.id);
  // A new wait for proof sends its challenge; so does switching a waiting destination back on, which was sent nothing while off.
  if (destination.active && pendingVerification(destination) && (plan.verification === 'start' || plan.resetBreaker)) await sendChallenge(destination);
  if (request.event_types) await subscribeEndpoint(accountId, current.id, request.event_types, now);
  return { kind: 'changed', destination };
}

/** A new generated signing secret; the previous one keeps signing for a day. */
export async function rotateSigningSecret(current: DestinationRecord, actor: DestinationActor, now: Date): Promise<Changed | NotFound> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  const changes = { ...secretRotation(current, newSigningSecret(), now), updated_at: now.toISOString() };
  const destination = await updateDestination(current.account_id, current.id, changes);
  return destination ? { kind: 'changed', destination } : { kind: 'not_found' };
}

/** Deletes a destination: its routes first, so no new event is planned for it, then the destination. */
export async function removeDestination(current: DestinationRecord, actor: DestinationActor): Promise<{ kind: 'deleted' } | NotFound> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  for (const route of (await listRoutes(current.account_id)).filter((r) => r.destination_id === current.id)) {
    await deleteRoute(current.account_id, route.id);
  }
  // What its breaker held goes, and each delivery ends (`destination_deleted`) rather than sleep for good.
  await sendReleaseBackstop(current.account_id, current.id);
  await deleteDestination(current.account_id, current.id);
  await startReleaseOrLeaveItToBackstop(current.account_id, current.id);
  return { kind: 'deleted' };
}

/** At most this many held deliveries end per request, so that one call fits well inside the API's time. */
export const END_HELD_PAGE = 200;

/**
 * Ends what the destination holds (paused, waiting for its endpoint's proof, behind its open breaker or
 * its cap): the account's explicit end for deliveries that would otherwise wait for ever, since
 * retention never ends one (the specification's rule 5). Each ends `dead_letter` (`held_ended`) and is
 * announced; `held` is what it still holds after this call (more than a page: call again).
 */
export async function endHeld(current: DestinationRecord, actor: DestinationActor, now: Date): Promise<{ kind: 'ended'; ended: number; held: number } | NotFound> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  const { ended } = await endHeldDeliveries(current.account_id, current.id, now, END_HELD_PAGE);
  return { kind: 'ended', ended, held: await heldCount(current.account_id, current.id) };
}

/** The change is written and its backstop sent: a release that fails now only delays what it lets go by the backstop's few seconds. */
async function startReleaseOrLeaveItToBackstop(accountId: string, destinationId: string): Promise<void> {
  try {
    await startRelease(accountId, destinationId);
  } catch (error) {
    log.warn('release failed: its backstop lets the held deliveries go', { account_id: accountId, destination_id: destinationId }, error);
  }
}
