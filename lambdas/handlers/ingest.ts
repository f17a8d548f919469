import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ingestWebhook } from '../pipeline/ingest-webhook';
import { httpEnvelope } from '../shared/http-envelope';
import { toApiRequest } from '../shared/http';
import { httpRequestLogKeys, invocationScoped, observability } from '../shared/observability';

/** `POST /ingest/{token}`: its own small function, so the hot path loads nothing of the management API. */
export const handler = invocationScoped(
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability())
    .use(httpRequestLogKeys())
    .use(httpEnvelope())
    .handler(
      async (event) =>
        (await ingestWebhook(
          toApiRequest(event),
          event.pathParameters?.token ?? event.rawPath.split('/')[2] ?? '',
          new Date(),
        )) as unknown as APIGatewayProxyStructuredResultV2,
    ),
);
