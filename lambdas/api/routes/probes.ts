import { pingTable } from '../../store/table';
import type * as z from 'zod';
import { json } from '../route-doc';
import type { Route } from '../router';
import { healthResponse, readyResponse } from '../schemas';

export const probeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    doc: {
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      tag: 'Probes',
      responses: { 200: json('Alive.', healthResponse, { status: 'ok' }) },
    },
    handle: async () => ({ status: 200, data: { status: 'ok' } satisfies z.output<typeof healthResponse> }),
  },
  {
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    doc: {
      operationId: 'readyz',
      summary: 'Readiness: the table answers a read',
      tag: 'Probes',
      responses: { 200: json('Ready to serve.', readyResponse, { status: 'ready' }) },
    },
    handle: async () => {
      await pingTable();
      return { status: 200, data: { status: 'ready' } satisfies z.output<typeof readyResponse> };
    },
  },
];
