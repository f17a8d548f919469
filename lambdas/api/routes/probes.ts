import { getItem } from '../../store/table';
import { keys } from '../../store/keys';
import { z } from 'zod';
import type { Route } from '../router';

export const probeRoutes: Route[] = [
  { method: 'GET', path: '/healthz', auth: 'none', handle: async () => ({ status: 200, data: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    // Ready means the table answers: one small read that the function's grants already allow.
    handle: async () => {
      await getItem(keys.health(), z.unknown(), false);
      return { status: 200, data: { status: 'ready' } };
    },
  },
];
