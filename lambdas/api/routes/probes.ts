import { pingTable } from '../../store/table';
import { json } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { healthResponse, readyResponse } from '../../api-kit/schemas';

export const probeRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    doc: {
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      tag: 'Probes',
      responses: { 200: json('Alive.', healthResponse, { status: 'ok' }) },
    },
    handle: async (_ctx) => ({ status: 200, data: { status: 'ok' } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    doc: {
      operationId: 'readyz',
      summary: 'Readiness: the table answers a read',
      tag: 'Probes',
      responses: { 200: json('Ready to serve.', readyResponse, { status: 'ready' }) },
    },
    handle: async (_ctx) => {
      await pingTable();
      return { status: 200, data: { status: 'ready' } };
    },
  }),
];
