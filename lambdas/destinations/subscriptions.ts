import { planSubscription, subscribedTypes } from '../domain/portal';
import { newId } from '../shared/secrets';
import type { RouteRecord } from '../routes/record';
import { deleteRoute, insertRoute, listRoutes } from '../routes/record';

/** The routes that feed an endpoint outbound events: those of any source-less route to it. */
export const endpointRoutes = (routes: readonly RouteRecord[], destinationId: string) =>
  routes.filter((r) => r.destination_id === destinationId && r.source_id === null);

/**
 * Makes an endpoint receive exactly the chosen types, as routes the portal manages (outbound events
 * only). New routes go in before old ones go, so a type kept through the change never misses an event.
 */
export async function subscribeEndpoint(accountId: string, destinationId: string, types: readonly string[], now: Date): Promise<string[]> {
  const current = endpointRoutes(await listRoutes(accountId), destinationId);
  const { add, remove } = planSubscription(current, types);
  const at = now.toISOString();
  const added: RouteRecord[] = [];
  for (const type of add) {
    const route: RouteRecord = {
      id: newId(),
      account_id: accountId,
      source_id: null,
      destination_id: destinationId,
      event_type_pattern: type,
      active: true,
      managed_by: 'portal',
      created_at: at,
      updated_at: at,
    };
    await insertRoute(route);
    added.push(route);
  }
  for (const routeId of remove) await deleteRoute(accountId, routeId);
  return subscribedTypes([...current.filter((r) => !remove.includes(r.id)), ...added]);
}
