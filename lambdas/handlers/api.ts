import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createRouter } from '../api/router';
import { routeGroups } from '../api/routes/groups';
import { httpEnvelope } from '../api/http-envelope';
import { toApiRequest } from '../api/http';
import { httpRequestLogKeys, invocationScoped, observability } from '../shared/observability';

const route = createRouter(routeGroups);

/** The management API: one function behind `ANY /{proxy+}`, routing in process. */
export const handler = invocationScoped(
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability())
    .use(httpRequestLogKeys())
    .use(httpEnvelope())
    .handler(async (event) => (await route(toApiRequest(event))) as unknown as APIGatewayProxyStructuredResultV2),
);

