import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { httpEnvelope } from '../api/http-envelope';
import { toApiRequest, type ApiResult } from '../api/http';
import { ingestWebhook } from '../events/ingest';
import { httpRequestLogKeys, invocationScoped, observability } from '../shared/observability';

async function ingest(event: APIGatewayProxyEventV2): Promise<ApiResult> {
  const { headers, body, host } = toApiRequest(event);
  const token = event.pathParameters?.token ?? event.rawPath.split('/')[2] ?? '';
  const outcome = await ingestWebhook({ token, headers, body, host }, new Date());
  if (outcome.kind === 'refused') throw outcome.reason;
  // A provider's retry of a stored webhook is answered like the first, so it stops retrying.
  return { status: 202, data: { id: outcome.event.id, status: outcome.event.status } };
}

/** `POST /ingest/{token}`: its own small function, so the hot path loads nothing of the management API. */
export const handler = invocationScoped(
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability())
    .use(httpRequestLogKeys())
    .use(httpEnvelope())
    .handler(async (event) => (await ingest(event)) as unknown as APIGatewayProxyStructuredResultV2),
);
