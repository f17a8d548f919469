import type { DocumentedOperation } from '../openapi';
import { routeGroups } from './groups';
import { documentedOperations } from './openapi';

const operations = await documentedOperations(routeGroups);

/**
 * Every operation of the HTTP API, documented (every route group loaded): what `npm run openapi`
 * writes to docs/openapi.json, as `GET /openapi.json` serves it.
 */
export function apiOperations(): DocumentedOperation[] {
  return [...operations];
}
