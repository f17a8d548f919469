import { deleteRoute, listRoutes } from '../routes/record';
import { deleteSource, findSource } from '../store/sources';
import type { NotFound } from './outcomes';

/**
 * Deletes a source and the routes that name it (they could never match again). The URL stops first;
 * the source's events stay, and so do their deliveries.
 */
export async function removeSource(accountId: string, sourceId: string): Promise<{ kind: 'deleted' } | NotFound> {
  const source = await findSource(accountId, sourceId);
  if (!source) return { kind: 'not_found' };
  await deleteSource(source);
  for (const route of (await listRoutes(accountId)).filter((r) => r.source_id === sourceId)) await deleteRoute(accountId, route.id);
  return { kind: 'deleted' };
}
