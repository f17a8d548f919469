import { invalid } from '../domain/errors';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { deleteRoute, listRoutes } from '../routes/record';
import { newId, newPathToken } from '../shared/secrets';
import { DELETING, findCustomDomain, listCustomDomains, type CustomDomainRecord } from '../custom-domains/record';
import { deleteSource, findSource, insertSource, listSources as listSourceRecords, updateSource, type SourceRecord } from './record';

/**
 * A source's life through the management API: create, list, show, change, delete. Each comes back
 * with the hostname its ingest URL uses (its custom domain once verified; null: the gateway's own).
 */

export interface ShownSource {
  source: SourceRecord;
  ingestHost: string | null;
}

export type SourceInput = Partial<Pick<SourceRecord, 'name' | 'verification' | 'custom_domain_id' | 'subject_pointer' | 'ordering_key_pointer'>>;

/** A source may be tied to any of the account's domains that has not failed nor been deleted; it serves once verified. */
async function domainRefusal(accountId: string, domainId: string | null | undefined): Promise<Refused | undefined> {
  if (!domainId) return undefined;
  const domain = await findCustomDomain(accountId, domainId);
  if (!domain || domain.status === 'failed' || domain.status === DELETING) {
    return refused(invalid('custom_domain_id does not match a custom domain of this account'));
  }
  return undefined;
}

async function domainsFor(accountId: string, sources: SourceRecord[]): Promise<Map<string, CustomDomainRecord>> {
  const linked = sources.filter((s) => s.custom_domain_id !== null);
  if (linked.length === 0) return new Map();
  if (linked.length === 1 && linked[0]?.custom_domain_id) {
    const domain = await findCustomDomain(accountId, linked[0].custom_domain_id);
    return new Map(domain ? [[domain.id, domain]] : []);
  }
  return new Map((await listCustomDomains(accountId)).map((d) => [d.id, d]));
}

async function shown(accountId: string, sources: SourceRecord[]): Promise<ShownSource[]> {
  const domains = await domainsFor(accountId, sources);
  return sources.map((source) => {
    const domain = source.custom_domain_id ? domains.get(source.custom_domain_id) : undefined;
    return { source, ingestHost: domain?.status === 'verified' ? domain.domain : null };
  });
}

const shownOne = async (accountId: string, source: SourceRecord): Promise<ShownSource> => (await shown(accountId, [source]))[0] as ShownSource;

export async function createSource(accountId: string, request: SourceInput & { name: string }, now: Date): Promise<{ kind: 'created'; source: ShownSource } | Refused> {
  const refusal = await domainRefusal(accountId, request.custom_domain_id);
  if (refusal) return refusal;
  const at = now.toISOString();
  const source: SourceRecord = {
    id: newId(),
    account_id: accountId,
    name: request.name,
    path_token: newPathToken(),
    verification: request.verification ?? null,
    custom_domain_id: request.custom_domain_id ?? null,
    subject_pointer: request.subject_pointer ?? null,
    ordering_key_pointer: request.ordering_key_pointer ?? null,
    created_at: at,
    updated_at: at,
  };
  await insertSource(source);
  return { kind: 'created', source: await shownOne(accountId, source) };
}

/** The account's sources, newest first. */
export async function listSources(accountId: string): Promise<ShownSource[]> {
  return shown(accountId, await listSourceRecords(accountId));
}

export async function showSource(accountId: string, sourceId: string): Promise<ShownSource | undefined> {
  const source = await findSource(accountId, sourceId);
  return source && shownOne(accountId, source);
}

const CHANGEABLE = ['name', 'verification', 'custom_domain_id', 'subject_pointer', 'ordering_key_pointer'] as const;

export async function changeSource(accountId: string, sourceId: string, request: SourceInput, now: Date): Promise<{ kind: 'changed'; source: ShownSource } | NotFound | Refused> {
  const current = await findSource(accountId, sourceId);
  if (!current) return { kind: 'not_found' };
  const refusal = await domainRefusal(accountId, request.custom_domain_id);
  if (refusal) return refusal;
  const changes: Parameters<typeof updateSource>[1] = { updated_at: now.toISOString() };
  for (const field of CHANGEABLE) if (request[field] !== undefined) Object.assign(changes, { [field]: request[field] });
  const source = await updateSource(current, changes);
  return source ? { kind: 'changed', source: await shownOne(accountId, source) } : { kind: 'not_found' };
}

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
