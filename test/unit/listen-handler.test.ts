import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyWebsocketEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEEP_ALIVE_MESSAGE } from '../../lambdas/domain/listen';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { UNIT_ENV } from '../fixtures/apigw';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
});

/** A message on the listen WebSocket API, as API Gateway hands it to the function for `routeKey`. */
const message = (routeKey: string, body: string) =>
  ({
    requestContext: { routeKey, eventType: 'MESSAGE', connectionId: 'conn-1', connectedAt: 0, messageId: 'm-1', requestId: 'r-1', stage: 'live', apiId: 'api', domainName: 'x', messageDirection: 'IN', extendedRequestId: 'x', requestTime: '', requestTimeEpoch: 0 },
    body,
    isBase64Encoded: false,
  }) as APIGatewayProxyWebsocketEventV2;

describe('listen handler: the CLI’s keep-alive', () => {
  it('is answered on $default without a read, a write or a log line', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const { handler } = await import('../../lambdas/handlers/listen');
    expect(await handler(message('$default', KEEP_ALIVE_MESSAGE), {} as Context)).toEqual({ statusCode: 200 });
    expect(ddb.calls()).toEqual([]);
    expect(info).not.toHaveBeenCalled();
  });

  it('while an answer to a try does reach the table (the mock above sees the function’s calls)', async () => {
    const { handler } = await import('../../lambdas/handlers/listen');
    const reply = JSON.stringify({ action: 'response', request_id: 'req-1', status: 200 });
    // No connection item: the answer is refused, after the lookup.
    expect(await handler(message('response', reply), {} as Context)).toEqual({ statusCode: 404 });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });
});
