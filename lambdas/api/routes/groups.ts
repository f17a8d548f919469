import { PORTAL_PATH } from '../public-url';
import type { RouteGroup } from '../router';

/**
 * The api function's routes, by the paths they serve, each group imported on its first request: a
 * cold start evaluates none of them (their zod schemas and OpenAPI docs were most of the function's
 * import time), and a request evaluates only its own group. The bundle keeps each group in a chunk of
 * its own (lib/constructs/lambda-bundle.ts splits at `import()`). The OpenAPI document lists them in
 * this order.
 */
export const routeGroups: RouteGroup[] = [
  { prefixes: ['/healthz', '/readyz'], load: async () => (await import('./probes')).probeRoutes },
  { prefixes: ['/v1/account', '/v1/accounts'], load: async () => (await import('./accounts')).accountRoutes },
  { prefixes: ['/v1/signing-keys', '/.well-known/jwks'], load: async () => (await import('./signing-keys')).signingKeyRoutes },
  { prefixes: ['/v1/api-keys'], load: async () => (await import('./api-keys')).apiKeyRoutes },
  { prefixes: ['/v1/sources'], load: async () => (await import('./sources')).sourceRoutes },
  { prefixes: ['/v1/destinations'], load: async () => (await import('./destinations')).destinationRoutes },
  { prefixes: ['/v1/aws-connections'], load: async () => (await import('./aws-connections')).awsConnectionRoutes },
  { prefixes: ['/v1/routes'], load: async () => (await import('./routes')).routeRoutes },
  { prefixes: ['/v1/listen-sessions'], load: async () => (await import('./listen-sessions')).listenSessionRoutes },
  { prefixes: ['/v1/events'], load: async () => (await import('./events')).eventRoutes('/v1/events', 'inbound') },
  { prefixes: ['/v1/outbound-events'], load: async () => (await import('./outbound-events')).outboundEventRoutes },
  { prefixes: ['/v1/exports'], load: async () => (await import('./exports')).exportRoutes },
  { prefixes: ['/v1/replays'], load: async () => (await import('./replays')).replayRoutes },
  { prefixes: ['/v1/erasures'], load: async () => (await import('./erasures')).erasureRoutes },
  { prefixes: ['/v1/brand-settings'], load: async () => (await import('./brand-settings')).brandSettingsRoutes },
  { prefixes: ['/v1/custom-domains'], load: async () => (await import('./custom-domains')).customDomainRoutes },
  { prefixes: ['/v1/event-types'], load: async () => (await import('./event-types')).eventTypeRoutes },
  { prefixes: ['/v1/portal-sessions'], load: async () => (await import('./portal-sessions')).portalSessionRoutes },
  {
    prefixes: ['/v1/portal'],
    load: async () => {
      const [{ portalApiRoutes }, { portalAwsConnectionRoutes }] = await Promise.all([import('./portal'), import('./portal-aws-connections')]);
      return [...portalApiRoutes, ...portalAwsConnectionRoutes];
    },
  },
  { prefixes: [PORTAL_PATH], load: async () => (await import('./portal-page')).portalPageRoutes },
  { prefixes: ['/openapi.json'], load: async () => (await import('./openapi')).openApiRoutes(routeGroups) },
];
