import { afterEach, describe, expect, it } from 'vitest';
import { sendToListener } from '../../lambdas/adapters/listen-sender';
import type { ListenRequest } from '../../lambdas/domain/listen';
import { insertListenConnection, putListenReply } from '../../lambdas/listen/record';
import { hashApiKey, newId } from '../../lambdas/shared/secrets';
import { documentClient } from '../../lambdas/store/client';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';

// A listen try's timeout is the CLI's time to answer: it counts from the post, as an HTTP try's from
// its request being on the wire, not from the reads before it (the connection, the key), which a busy
// table can make slow. Before, a try whose reads took its timeout was cut off with the CLI holding
// the request, and sent again.

const { call } = gatewayWithSinkForFile();
const READ_DELAY_MS = 700;
const ANSWER_MS = 300;
const TIMEOUT_MS = 1_000;

afterEach(() => {
  documentClient().middlewareStack.remove('slowReads');
});

describe('a listen try', () => {
  it('has its whole timeout for the answer after the reads before its post', async () => {
    const { key, accountId } = await createAccount(call);
    const destinationId = newId();
    await insertListenConnection({ account_id: accountId, destination_id: destinationId, connection_id: 'c2xvdy1yZWFkcw', connected_at: new Date().toISOString(), key_hash: hashApiKey(key) });

    // Each table call before the post (the connection, the key) takes READ_DELAY_MS: more than the timeout together.
    let posted = false;
    documentClient().middlewareStack.add(
      (next) => async (args) => {
        if (!posted) await new Promise((resolve) => setTimeout(resolve, READ_DELAY_MS));
        return next(args);
      },
      { step: 'initialize', name: 'slowReads' },
    );
    const requests: ListenRequest[] = [];
    let postedAt = 0;
    const post = async (_connectionId: string, data: string) => {
      posted = true;
      postedAt = performance.now();
      const request = JSON.parse(data) as ListenRequest;
      requests.push(request);
      // The CLI answers well within the timeout, as the response route stores it.
      setTimeout(() => void putListenReply(accountId, destinationId, { request_id: request.request_id, status: 200, body: 'ok', answered_at: new Date().toISOString() }), ANSWER_MS);
      return 'sent' as const;
    };

    const result = await sendToListener(
      { accountId, destinationId, eventId: newId(), eventType: 'listen.slow', attempt: 1, headers: {}, body: Buffer.from('{}'), timeoutMs: TIMEOUT_MS },
      post,
      async () => undefined,
    );
    const sincePost = performance.now() - postedAt;
    expect(requests).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, responseBody: 'ok', error: null });
    // From the post: the reads before it are not in the try's duration, however long the machine took
    // over either. With them it would exceed the time since the post by at least 2 × READ_DELAY_MS; the
    // sender's own clock starts in the same tick as the post, a little before this test's.
    expect(result.durationMs).toBeLessThan(sincePost + READ_DELAY_MS);
  });
});
