import { notFound } from '../domain/errors';
import type { ApiRequest, ApiResult } from './http';
import { appendLogKeys } from '../shared/log';
import { authenticate, type Principal } from './auth';
import { authenticatePortal, type PortalPrincipal } from './portal-auth';
import type { ResponseDocs, ResultOf, RouteDoc } from './route-doc';
import type { HostCaller } from '../domain/domain-ownership';
import { servedOnHost } from '../custom-domains/host-binding';

interface RouteContext {
  request: ApiRequest;
  params: Record<string, string>;
  now: Date;
}
interface AuthedContext extends RouteContext {
  principal: Principal;
}
/** A consumer portal request: one customer of one account, never an API key's powers. */
interface PortalContext extends RouteContext {
  portal: PortalPrincipal;
}

/**
 * A route: its handler, and its documentation (the OpenAPI document is generated from it). On a
 * verified custom domain, routes with a credential serve only the domain's owner (`servesOnHost`); an
 * open route is served there unless it is `signUp`.
 */
export type Route =
  | { method: string; path: string; auth: 'none'; signUp?: true; doc: RouteDoc; handle: (ctx: RouteContext) => Promise<ApiResult> }
  | { method: string; path: string; auth: 'api_key'; doc: RouteDoc; handle: (ctx: AuthedContext) => Promise<ApiResult> }
  | { method: string; path: string; auth: 'portal_session'; doc: RouteDoc; handle: (ctx: PortalContext) => Promise<ApiResult> };

interface Contexts {
  none: RouteContext;
  api_key: AuthedContext;
  portal_session: PortalContext;
}

/**
 * The handler's type once `R` is inferred from the doc: being a conditional type, TypeScript types the
 * handler's answer against the doc's own schemas, so literals such as `status: 'queued'` stay literal.
 * A handler without parameters is typed before the doc is read: it names its context (`_ctx`).
 */
type Settled<C, R extends ResponseDocs> = R extends unknown ? (ctx: C) => Promise<ResultOf<R>> : never;

/**
 * A route whose handler may answer only what its `doc.responses` document, with the data their
 * schemas describe. Generic over the credential rather than a union of the three kinds, which would
 * leave the handler's answer without a contextual type.
 */
export function defineRoute<R extends ResponseDocs, K extends keyof Contexts>(route: {
  method: string;
  path: string;
  auth: K;
  signUp?: K extends 'none' ? true : never;
  doc: RouteDoc<R>;
  handle: Settled<Contexts[K], R>;
}): Route;
export function defineRoute(route: Route): Route {
  return route;
}

type Match = { route: Route; params: Record<string, string> };

/**
 * Routes imported on first use (`load`), by the paths they serve: a request's path equals one of the
 * `prefixes` or continues it with a `/`, and no other group's. Every route of the group is under them.
 */
export interface RouteGroup {
  prefixes: readonly string[];
  load: () => Promise<Route[]>;
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i] ?? '';
    const actual = have[i] ?? '';
    if (segment.startsWith(':')) {
      // `:name.json`: a parameter with a fixed extension (the JWKS file is named after its account).
      const [name = '', extension] = segment.slice(1).split('.', 2);
      const suffix = extension === undefined ? '' : `.${extension}`;
      if (!actual.endsWith(suffix) || actual.length === suffix.length) return undefined;
      params[name] = decodeURIComponent(actual.slice(0, actual.length - suffix.length));
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

/** A wrong method on a known path is a 404 as well (contract), so only exact matches count. */
function findRoute(routes: Route[], method: string, path: string): Match | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}

/** The group that holds any route the path can match (trailing slashes aside, as in `matchPath`). */
export function groupOf<G extends RouteGroup>(groups: readonly G[], path: string): G | undefined {
  const trimmed = path.replace(/\/+$/, '');
  return groups.find((group) => group.prefixes.some((prefix) => trimmed === prefix || trimmed.startsWith(`${prefix}/`)));
}

export function createRouter(groups: readonly RouteGroup[], clock: () => Date = () => new Date()) {
  // Loaded once per group, as a static import would be: a group's routes may keep state (the OpenAPI
  // document, built once).
  const loaded = new Map<RouteGroup, Promise<Route[]>>();
  const routesOf = (group: RouteGroup): Promise<Route[]> => {
    let routes = loaded.get(group);
    if (!routes) loaded.set(group, (routes = group.load()));
    return routes;
  };
  return async (request: ApiRequest): Promise<ApiResult> => {
    const group = groupOf(groups, request.path);
    if (!group) throw notFound();
    const routes = await routesOf(group);
    let match: Match | undefined;
    try {
      match = findRoute(routes, request.method, request.path);
    } catch {
      throw notFound(); // a malformed percent-escape in the path names no resource
    }
    if (!match) throw notFound();
    const ctx: RouteContext = { request, params: match.params, now: clock() };
    // Another account's credential on a custom domain is answered like an unknown id: the host is not theirs.
    const refuseOffHost = async (caller: HostCaller) => {
      if (!(await servedOnHost(request.host, caller, ctx.now))) throw notFound();
    };
    if (match.route.auth === 'none') {
      if (match.route.signUp) await refuseOffHost({ kind: 'sign_up' });
      return match.route.handle(ctx);
    }
    if (match.route.auth === 'portal_session') {
      const portal = await authenticatePortal(request, ctx.now);
      appendLogKeys({ account_id: portal.accountId });
      await refuseOffHost({ kind: 'account', accountId: portal.accountId });
      return match.route.handle({ ...ctx, portal });
    }
    const principal = await authenticate(request, ctx.now);
    appendLogKeys({ account_id: principal.accountId });
    await refuseOffHost({ kind: 'account', accountId: principal.accountId });
    return match.route.handle({ ...ctx, principal });
  };
}
