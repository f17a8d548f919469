import { notFound } from '../domain/errors';
import type { NotFound, Refused } from '../domain/outcomes';

/** A use case's success; its `not_found` or refusal is thrown, for the envelope to answer with the status of its kind. */
export function settled<O extends { kind: string }>(outcome: O): Exclude<O, NotFound | Refused> {
  if (outcome.kind === 'not_found') throw notFound();
  if (outcome.kind === 'refused') throw (outcome as unknown as Refused).reason;
  return outcome as Exclude<O, NotFound | Refused>;
}
