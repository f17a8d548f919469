import { REPLAY_JOB_LIMIT } from '../../domain/bulk-replay';
import { countReplay, listReplays, showReplay, startReplay } from '../../replays';
import {
  createReplayBody,
  exampleDoneReplayJob,
  exampleReplayJob,
  presentReplayJob,
  replayableStatus,
  replayDryRunResponse,
  replayJobResponse,
} from '../../replays/shapes';
import { ids } from '../../api-kit/examples';
import { settled } from '../outcomes';
import { json, jsonBody, list } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { JOB_LIST_ERRORS, jobListQuery, parseJsonBody, parsePathId, parseWith } from '../../api-kit/validation';

export const replayRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/replays',
    auth: 'api_key',
    doc: {
      operationId: 'createReplay',
      summary: 'Replay many events at once',
      description: `Replays every event that matches, oldest first, each as \`POST /v1/events/{id}/replay\` would (a new event, the original \`replayed\`), in the background: the job moves to \`running\`, then \`done\` or \`failed\`. Only events received before the job was created are considered, and no job replays one event twice, even across a crash. At most ${REPLAY_JOB_LIMIT.toLocaleString('en-US')} events per job (\`truncated\`); with \`dry_run: true\` the answer is how many would be replayed.`,
      tag: 'Replays',
      body: jsonBody(createReplayBody, { direction: 'inbound', destination_id: ids.destination, date_from: '2026-05-01T00:00:00Z' }),
      responses: {
        200: json('A dry run: how many events match now.', replayDryRunResponse, { matched: 1312, truncated: false }),
        202: json('The job, queued.', replayJobResponse, exampleReplayJob),
      },
      errors: {
        400: [
          'direction must be one of: inbound, outbound',
          `status.0 must be one of: ${replayableStatus.options.join(', ')}`,
          'status must not repeat a value',
          'invalid destination_id',
          'destination_id does not match a destination of this account',
          'source_id applies to inbound events only',
          'source_id does not match a source of this account',
          'date_from must be an ISO 8601 timestamp',
          'date_from must not be after date_to',
          'dry_run must be a boolean',
          'unknown field: colour',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const { dry_run: dryRun, ...replay } = parseJsonBody(request, createReplayBody);
      if (dryRun) {
        const { matched, truncated } = settled(await countReplay(principal.accountId, replay, now));
        return { status: 200, data: { matched, truncated } };
      }
      const { job } = settled(await startReplay(principal.accountId, replay, now));
      return { status: 202, data: presentReplayJob(job) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/replays',
    auth: 'api_key',
    doc: {
      operationId: 'listReplays',
      summary: 'List bulk replays',
      description: 'Finished jobs are kept 30 days.',
      tag: 'Replays',
      query: jobListQuery,
      responses: { 200: list('The account’s jobs, newest first.', replayJobResponse, [exampleDoneReplayJob]) },
      errors: { 400: JOB_LIST_ERRORS },
    },
    handle: async ({ request, principal, now }) => {
      const query = parseWith(jobListQuery, request.query);
      const jobs = await listReplays(principal.accountId, query.limit ?? 25, query.offset ?? 0, now);
      return { status: 200, data: jobs.map(presentReplayJob) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/replays/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getReplay',
      summary: 'Show a bulk replay',
      tag: 'Replays',
      responses: { 200: json('The job.', replayJobResponse, exampleDoneReplayJob) },
    },
    handle: async ({ params, principal, now }) => {
      const { job } = settled(await showReplay(principal.accountId, parsePathId(params.id), now));
      return { status: 200, data: presentReplayJob(job) };
    },
  }),
];
