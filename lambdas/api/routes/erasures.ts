import { showErasure, startErasure } from '../../erasures';
import { createErasureBody, exampleDoneErasure, exampleRunningErasure, erasureResponse, presentErasure } from '../../erasures/shapes';
import { SUBJECT_MESSAGE } from '../../api-kit/schemas';
import { settled } from '../outcomes';
import { json, jsonBody } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody, parsePathId } from '../../api-kit/validation';

export const erasureRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/erasures',
    auth: 'api_key',
    doc: {
      operationId: 'createErasure',
      summary: 'Erase a data subject’s payloads',
      description:
        'Finds the account’s events given this `subject` (on publish, or at a source’s `subject_pointer`) through an index of their own, never a scan, and removes in the background every payload (stored inline or as an object in the payload bucket), the stored headers and payload hash, and every stored response body of their attempts. Each event stays as a tombstone with `payload_erased: true`, so lists, counts and the audit trail hold; replaying or resending it answers 409 `payload erased`. The subject is kept only as an HMAC under a key of the account’s own and never logged.',
      tag: 'Erasures',
      body: jsonBody(createErasureBody, { subject: 'user_8412' }),
      responses: { 202: json('The erasure, running.', erasureResponse, exampleRunningErasure) },
      errors: { 400: ['subject is required', SUBJECT_MESSAGE, 'unknown field: email'] },
    },
    handle: async ({ request, principal, now }) => {
      const { subject } = parseJsonBody(request, createErasureBody);
      return { status: 202, data: presentErasure(await startErasure(principal.accountId, subject, now)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/erasures/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getErasure',
      summary: 'Show an erasure',
      tag: 'Erasures',
      responses: { 200: json('The erasure and what it has erased so far.', erasureResponse, exampleDoneErasure) },
    },
    handle: async ({ params, principal }) => {
      const { job } = settled(await showErasure(principal.accountId, parsePathId(params.id)));
      return { status: 200, data: presentErasure(job) };
    },
  }),
];
