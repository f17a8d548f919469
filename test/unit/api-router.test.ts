import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../lambdas/api/http';
import { noContent } from '../../lambdas/api/route-doc';
import { createRouter, defineRoute, groupOf, type Route, type RouteGroup } from '../../lambdas/api/router';
import { routeGroups } from '../../lambdas/api/routes/groups';

const request = (method: string, path: string): ApiRequest => ({
  method,
  path,
  headers: {},
  query: {},
  body: Buffer.alloc(0),
  requestId: 'r',
  sourceIp: '192.0.2.1',
  host: 'hooks.example.com',
});

const openRoute = (method: string, path: string): Route =>
  defineRoute({
    method,
    path,
    auth: 'none',
    doc: { operationId: `${method}${path}`, summary: path, tag: 'Probes', responses: { 204: noContent('Done.') } },
    handle: async (_ctx) => ({ status: 204 }),
  });

/** A group that counts its loads. */
function countedGroup(prefixes: string[], routes: Route[]): RouteGroup & { loads: number } {
  const group = {
    prefixes,
    loads: 0,
    load: async () => {
      group.loads += 1;
      return routes;
    },
  };
  return group;
}

describe('the api router, route groups loaded on first use', () => {
  it('loads only the group of the requested path, once; a path under no group loads nothing', async () => {
    const sources = countedGroup(['/v1/sources'], [openRoute('GET', '/v1/sources'), openRoute('GET', '/v1/sources/:id')]);
    const portal = countedGroup(['/v1/portal'], [openRoute('GET', '/v1/portal/session')]);
    const route = createRouter([sources, portal]);

    await expect(route(request('GET', '/v1/unknown'))).rejects.toMatchObject({ kind: 'not_found' });
    await expect(route(request('GET', '/v1/portal-sessions'))).rejects.toMatchObject({ kind: 'not_found' });
    expect([sources.loads, portal.loads]).toEqual([0, 0]);

    await expect(route(request('GET', '/v1/sources'))).resolves.toMatchObject({ status: 204 });
    await expect(route(request('GET', '/v1/sources/abc/'))).resolves.toMatchObject({ status: 204 });
    await expect(route(request('DELETE', '/v1/sources/abc'))).rejects.toMatchObject({ kind: 'not_found' });
    expect([sources.loads, portal.loads]).toEqual([1, 0]);
  });

  it.each([
    { path: '/files/abc.json', params: { name: 'abc' } },
    { path: '/files/a%2Eb.json', params: { name: 'a.b' } },
    { path: '/files/abc', params: undefined },
    { path: '/files/.json', params: undefined },
    { path: '/files/abc.jsonx', params: undefined },
  ])('a parameter with a fixed extension (`:name.json`): $path', async ({ path, params }) => {
    let seen: Record<string, string> | undefined;
    const files = defineRoute({
      method: 'GET',
      path: '/files/:name.json',
      auth: 'none',
      doc: { operationId: 'file', summary: 'file', tag: 'Probes', responses: { 204: noContent('Done.') } },
      handle: async (ctx) => {
        seen = ctx.params;
        return { status: 204 };
      },
    });
    const route = createRouter([countedGroup(['/files'], [files])]);
    if (params) await expect(route(request('GET', path))).resolves.toMatchObject({ status: 204 });
    else await expect(route(request('GET', path))).rejects.toMatchObject({ kind: 'not_found' });
    expect(seen).toEqual(params);
  });

  it('finds every route of the api in the group that holds it, and in no other', async () => {
    let checked = 0;
    for (const group of routeGroups) {
      for (const route of await group.load()) {
        const path = route.path.replace(/:[a-z_]+/g, 'x');
        const holders = routeGroups.filter((other) => groupOf([other], path));
        expect(holders, `${route.method} ${route.path}`).toEqual([group]);
        expect(groupOf(routeGroups, `${path}/`), `${route.method} ${route.path}/`).toBe(group);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
