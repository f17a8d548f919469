/** Route matching (spec "Route matching"): pure, so ingest, publish and replay share one rule. */
export interface RouteRule {
  source_id: string | null;
  event_type_pattern: string | null;
  active: boolean;
  /** `portal`: a route a customer chose in the consumer portal. */
  managed_by?: 'portal' | null;
}

export function isValidPattern(pattern: string): boolean {
  const star = pattern.indexOf('*');
  return star === -1 || star === pattern.length - 1;
}

export function patternMatches(pattern: string | null, eventType: string | null): boolean {
  if (pattern === null) return true;
  if (pattern.endsWith('*')) return eventType !== null && eventType.startsWith(pattern.slice(0, -1));
  return eventType === pattern;
}

export function routeMatches(route: RouteRule, event: { source_id: string | null; event_type: string | null }): boolean {
  if (!route.active) return false;
  // A customer's endpoint takes the account's outbound events only, never the webhooks the account
  // itself receives; inbound events always carry their source, outbound ones never do.
  if (route.managed_by === 'portal' && event.source_id !== null) return false;
  if (route.source_id !== null && route.source_id !== event.source_id) return false;
  return patternMatches(route.event_type_pattern, event.event_type);
}
