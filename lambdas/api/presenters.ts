import type { Accepted } from '../pipeline/outcomes';
import type { DuplicateResponse, PublishedResponse } from './schemas';

/**
 * Response shapes, typed by the schemas the OpenAPI document is generated from (./schemas).
 * Secrets, hashes and auth values stay out unless a function says otherwise.
 */
export type PublishAnswer = { status: 201; data: PublishedResponse } | { status: 200; data: DuplicateResponse };

/**
 * A publish's answer. A new event answers `queued` (spec) even when it matched no route and ended
 * `accepted` at once, as its detail shows; a duplicate answers the first event as it stands.
 */
export const presentPublished = (outcome: Accepted): PublishAnswer =>
  outcome.kind === 'accepted'
    ? { status: 201, data: { id: outcome.event.id, status: 'queued' } }
    : { status: 200, data: { id: outcome.event.id, status: outcome.event.status, duplicate: true } };
