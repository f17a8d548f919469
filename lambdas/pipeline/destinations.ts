import { resolveHost } from '../adapters/dns';
import {
  endpointCapRefusal,
  mayManage,
  newDestinationSettings,
  planDestinationChange,
  secretRotation,
  type DestinationActor,
  type DestinationInput,
} from '../domain/destination-changes';
import { invalid, Refusal } from '../domain/errors';
import { config } from '../shared/config';
import { newId, newSigningSecret } from '../shared/secrets';
import { resetBreaker } from '../store/breakers';
import { deleteDestination, destinationOwners, findDestination, insertDestination, updateDestination } from '../store/destinations';
import { listEventTypes } from '../store/event-types';
import type { DestinationRecord } from '../store/records';
import { deleteRoute, listRoutes } from '../store/routes';
import { destinationUrlRefusal } from './destination-url';
import { refused, type NotFound, type Refused } from './outcomes';
import { subscribeEndpoint } from './portal-endpoints';

/**
 * A destination's whole life: create, change (rename, move, pause, re-enable), rotate its secret,
 * delete. The management API (the account) and the consumer portal (one customer) both come here, so
 * a rule such as "re-enabling starts the breaker afresh" holds for both; what each change does is
 * decided in lambdas/domain/destination-changes.ts.
 */

export interface DestinationRequest extends DestinationInput {
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

export async function createDestination(accountId: string, request: DestinationRequest & { url: string }, actor: DestinationActor, now: Date): Promise<Created | Refused> {
  const checked = (await urlRefusal(request.url)) ?? (await catalogRefusal(accountId, request.event_types));
  if (checked) return refused(checked);
  const settings = newDestinationSettings(request, actor, newSigningSecret());
  if (settings instanceof Refusal) return refused(settings);
  const capped = await capRefusal(accountId, { customer: settings.customer, newDestination: true });
  if (capped) return refused(capped);
  const at = now.toISOString();
  const destination: DestinationRecord = { id: newId(), account_id: accountId, ...settings, created_at: at, updated_at: at };
  await insertDestination(destination);
  if (request.event_types) await subscribeEndpoint(accountId, destination.id, request.event_types, now);
  return { kind: 'created', destination };
}

/** Any change, pausing and re-enabling included; `current` is the destination as the caller found it. */
export async function changeDestination(current: DestinationRecord, request: DestinationRequest, actor: DestinationActor, now: Date): Promise<Changed | NotFound | Refused> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  const accountId = current.account_id;
  const checked = (request.url === undefined ? undefined : await urlRefusal(request.url)) ?? (await catalogRefusal(accountId, request.event_types));
  if (checked) return refused(checked);
  const plan = planDestinationChange(current, request, actor, now);
  if (plan instanceof Refusal) return refused(plan);
  const capped = plan.joinsCustomer === null ? undefined : await capRefusal(accountId, { customer: plan.joinsCustomer, newDestination: false });
  if (capped) return refused(capped);
  const destination = await updateDestination(accountId, current.id, { ...plan.changes, updated_at: now.toISOString() });
  if (!destination) return { kind: 'not_found' };
  if (plan.resetBreaker) await resetBreaker(accountId, current.id);
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
  await deleteDestination(current.account_id, current.id);
  return { kind: 'deleted' };
}
