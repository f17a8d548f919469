import { notFound } from '../../domain/errors';
import { closeListenSession, openListenSession } from '../../listen';
import { exampleListenSession, listenSessionErrors, listenSessionResponse, openListenSessionBody, presentListenSession } from '../../listen/shapes';
import { config } from '../../shared/config';
import { CAP_ERRORS } from '../../destinations/shapes';
import { settled } from '../outcomes';
import { json, jsonBody, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../../api-kit/validation';
import { SESSION_ID_PATTERN } from '../../domain/listen';

export const listenSessionRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/listen-sessions',
    auth: 'api_key',
    doc: {
      operationId: 'openListenSession',
      summary: 'Open or resume a hookgate listen session',
      description:
        'What `hookgate listen` calls: creates a destination of type `cli` and a route to it with the given filters, or, for a `session_id` it has seen, answers the same destination (its route changed to the filters given), so deliveries that waited while the CLI was away reach it. The CLI then connects to `websocket_url`. API keys only: a portal session cannot open one.',
      tag: 'Listen sessions',
      body: jsonBody(openListenSessionBody, { session_id: exampleListenSession.session_id, event_type_pattern: 'payment.*' }),
      responses: {
        201: json('A new session.', listenSessionResponse, exampleListenSession),
        200: json('The session resumed.', listenSessionResponse, { ...exampleListenSession, resumed: true }),
      },
      errors: { 400: [...listenSessionErrors, CAP_ERRORS.customer, CAP_ERRORS.account] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, openListenSessionBody);
      const opened = settled(await openListenSession(principal.accountId, body, now));
      return { status: opened.kind === 'created' ? 201 : 200, data: presentListenSession(opened, config().listenUrl) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/listen-sessions/:session_id',
    auth: 'api_key',
    doc: {
      operationId: 'closeListenSession',
      summary: 'Close a hookgate listen session',
      description:
        'What `hookgate listen` calls when it exits: its route and destination are deleted; deliveries still waiting for it end `dead_letter` with `end_reason: destination_deleted`. Events and their attempts stay.',
      tag: 'Listen sessions',
      responses: { 204: noContent('Closed.') },
    },
    handle: async ({ params, principal }) => {
      const sessionId = params.session_id ?? '';
      if (!SESSION_ID_PATTERN.test(sessionId)) throw notFound();
      settled(await closeListenSession(principal.accountId, sessionId));
      return { status: 204 };
    },
  }),
];
