import { ApiGatewayManagementApiClient, DeleteConnectionCommand, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { config } from '../shared/config';

/**
 * Posts to a `hookgate listen` connection through the WebSocket API's management endpoint (in AWS the
 * API Gateway stage's callback URL; locally the gateway's WebSocket server, which answers the same
 * call). One client per process, created on the first listen delivery.
 */
let client: ApiGatewayManagementApiClient | undefined;

function managementClient(): ApiGatewayManagementApiClient {
  const endpoint = config().listenEndpoint;
  if (!endpoint) throw new Error('this deployment has no hookgate listen endpoint (HOOKGATE_LISTEN_ENDPOINT)');
  // No SDK retries: a try that fails is the pipeline's to retry, on the destination's schedule.
  client ??= new ApiGatewayManagementApiClient({ endpoint, maxAttempts: 1 });
  return client;
}

/** `gone`: API Gateway no longer has the connection (the CLI went away without a $disconnect yet). */
export async function postToConnection(connectionId: string, data: string, signal: AbortSignal): Promise<'sent' | 'gone'> {
  try {
    await managementClient().send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(data, 'utf8') }), { abortSignal: signal });
    return 'sent';
  } catch (error) {
    if ((error as { name?: string }).name === 'GoneException') return 'gone';
    throw error;
  }
}

/** Closes a connection (its key was revoked); one already gone is closed. */
export async function closeConnection(connectionId: string): Promise<void> {
  try {
    await managementClient().send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'GoneException') throw error;
  }
}
