import { ingestOperation } from '../ingest-doc';
import type { DocumentedOperation } from '../openapi';
import type { Route } from '../router';
import { accountRoutes } from './accounts';
import { apiKeyRoutes } from './api-keys';
import { brandSettingsRoutes } from './brand-settings';
import { customDomainRoutes } from './custom-domains';
import { destinationRoutes } from './destinations';
import { eventRoutes } from './events';
import { exportRoutes } from './exports';
import { openApiRoutes } from './openapi';
import { outboundEventRoutes } from './outbound-events';
import { portalApiRoutes } from './portal';
import { portalPageRoutes } from './portal-page';
import { portalSessionRoutes } from './portal-sessions';
import { eventTypeRoutes } from './event-types';
import { probeRoutes } from './probes';
import { replayRoutes } from './replays';
import { routeRoutes } from './routes';
import { sourceRoutes } from './sources';

export const allRoutes: Route[] = [
  ...probeRoutes,
  ...accountRoutes,
  ...apiKeyRoutes,
  ...sourceRoutes,
  ...destinationRoutes,
  ...routeRoutes,
  ...eventRoutes('/v1/events', 'inbound'),
  ...outboundEventRoutes,
  ...exportRoutes,
  ...replayRoutes,
  ...brandSettingsRoutes,
  ...customDomainRoutes,
  ...eventTypeRoutes,
  ...portalSessionRoutes,
  ...portalApiRoutes,
  ...portalPageRoutes,
  ...openApiRoutes(apiOperations),
];

/** Every operation of the HTTP API, documented: the router's routes and the ingest function's. */
export function apiOperations(): DocumentedOperation[] {
  return [...allRoutes, ingestOperation];
}
