/**
 * Why a request is refused, in the domain's terms. Only the API layer knows how each kind travels
 * (an HTTP status), so the domain and the pipeline stay usable by any caller.
 */
export type RefusalKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'gone' | 'too_large';

/** A refusal and the exact, client-safe message the caller sees. Thrown, or carried in an outcome. */
export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

export const invalid = (message: string) => new Refusal('invalid', message);
/** Unless told otherwise, one text for every failed credential, so a caller learns nothing about which part was wrong. */
export const unauthorized = (message = 'Unauthorized') => new Refusal('unauthorized', message);
export const notFound = () => new Refusal('not_found', 'Not found');
/** It existed, and is gone for good (an export file past its lifetime). */
export const gone = (message: string) => new Refusal('gone', message);
export const tooLarge = (message = 'request body too large') => new Refusal('too_large', message);
/** The caller is known (or need not be), but this deployment does not allow the operation. */
export const forbidden = (message: string) => new Refusal('forbidden', message);
/** The resource is in a state that rules the operation out for good (an event whose payload was erased). */
export const conflict = (message: string) => new Refusal('conflict', message);
