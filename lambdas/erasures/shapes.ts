import * as z from 'zod';
import { SUBJECT_MAX_LENGTH } from '../domain/erasure';
import { ERASURE_STATUSES } from '../domain/vocabulary';
import { at, ids, later } from '../api-kit/examples';
import { named, subjectField } from '../api-kit/schemas';
import type { ErasureJobRecord } from './record';

/** An erasure's API shapes: the request, the job (typed, so the presenter cannot drift), the examples. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

export const createErasureBody = named(
  'CreateErasureRequest',
  z.strictObject({
    subject: subjectField.describe(
      `The data subject, as given in \`subject\` on publish (or found at a source's \`subject_pointer\`): 1-${SUBJECT_MAX_LENGTH} characters.`,
    ),
  }),
);

const count = (what: string) => z.int().min(0).describe(`${what} erased so far; final once the erasure is \`done\`.`);

export const erasureResponse = named(
  'Erasure',
  z.strictObject({
    id: uuid,
    status: z.enum(ERASURE_STATUSES).describe('`running`, then `done`. A failure on the way pauses the erasure and it resumes by itself.'),
    events: count('Events turned into tombstones (`payload_erased: true`)'),
    payload_objects: count('Payload objects deleted from the payload bucket (bodies over 300 KB)'),
    request_bodies: count('Stored event bodies (inline or pointing at an object), headers and payload hashes'),
    response_bodies: count('Stored response bodies of delivery attempts'),
    exports_before: z
      .array(uuid)
      .describe('Exports written before the erasure started, still listed: their files may name the subject’s events (ids, types, external ids; never a payload). Filled in when `done`.'),
    created_at: timestamp,
    finished_at: timestamp.nullable(),
  }),
);
type ErasureResponse = z.output<typeof erasureResponse>;

// The subject is never answered, not even hashed: the job id is how the caller follows it.
export const presentErasure = (job: ErasureJobRecord): ErasureResponse => ({
  id: job.id,
  status: job.status,
  ...job.counts,
  exports_before: job.exports_before,
  created_at: job.created_at,
  finished_at: job.finished_at,
});

export const exampleRunningErasure = {
  id: ids.erasure,
  status: 'running',
  events: 0,
  payload_objects: 0,
  request_bodies: 0,
  response_bodies: 0,
  exports_before: [],
  created_at: at,
  finished_at: null,
} satisfies ErasureResponse;

export const exampleDoneErasure = {
  ...exampleRunningErasure,
  status: 'done',
  events: 3,
  payload_objects: 1,
  request_bodies: 3,
  response_bodies: 5,
  exports_before: [ids.exportJob],
  finished_at: later,
} satisfies ErasureResponse;
