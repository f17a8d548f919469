import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fromApiGatewayResult,
  isTextualContentType,
  toApiGatewayEvent,
  type RequestLike,
} from '../../local/apigw-event';
import { API_ROUTE_KEY, INGEST_ROUTE_KEY, resolveRoute } from '../../local/routes';

function request(url: string, rawHeaders: string[], method = 'GET'): RequestLike {
  return { method, url, rawHeaders, httpVersion: '1.1', socket: { remoteAddress: '::ffff:10.1.2.3', localPort: 3000 } };
}

const apiRoute = { routeKey: API_ROUTE_KEY, pathParameters: { proxy: 'v1/things' } };

describe('toApiGatewayEvent', () => {
  it('base64-encodes a binary body so it round-trips byte for byte', () => {
    // Prepare: every byte value, plus bytes that are not valid UTF-8.
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(4096)]);

    // Act
    const event = toApiGatewayEvent(
      request('/ingest/tok', ['Content-Type', 'application/octet-stream'], 'POST'),
      body,
      { routeKey: INGEST_ROUTE_KEY, pathParameters: { token: 'tok' } },
    );
    const back = fromApiGatewayResult({ statusCode: 200, body: event.body, isBase64Encoded: event.isBase64Encoded });

    // Assess
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64').equals(body)).toBe(true);
    expect(back.body.equals(body)).toBe(true);
  });

  it('passes textual bodies as strings and an empty body as undefined', () => {
    const json = toApiGatewayEvent(request('/v1/things', ['content-type', 'application/json; charset=utf-8'], 'POST'), Buffer.from('{"a":"é"}'), apiRoute);
    const empty = toApiGatewayEvent(request('/v1/things', []), Buffer.alloc(0), apiRoute);

    expect(json).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
    expect(empty.body).toBeUndefined();
    expect(empty.isBase64Encoded).toBe(false);
  });

  it('keeps a "textual" body that is not UTF-8 byte-exact by base64-encoding it', () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);

    const event = toApiGatewayEvent(request('/v1/x', ['Content-Type', 'text/plain; charset=latin1'], 'POST'), latin1, apiRoute);

    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64').equals(latin1)).toBe(true);
  });

  it('lowercases header names, joins repeated headers with commas and splits cookies out', () => {
    const event = toApiGatewayEvent(
      request('/v1/things', [
        'X-Multi', 'one',
        'x-multi', 'two',
        'Host', 'localhost:3000',
        'User-Agent', 'test-agent',
        'Cookie', 'a=1; b=2',
        'Cookie', 'c=3',
      ]),
      Buffer.alloc(0),
      apiRoute,
    );

    expect(event.headers['x-multi']).toBe('one,two');
    expect(event.headers.host).toBe('localhost:3000');
    expect(event.headers.cookie).toBeUndefined();
    expect(event.cookies).toEqual(['a=1', 'b=2', 'c=3']);
    expect(event.headers['x-forwarded-for']).toBe('10.1.2.3');
    expect(event.requestContext.http).toEqual({
      method: 'GET',
      path: '/v1/things',
      protocol: 'HTTP/1.1',
      sourceIp: '10.1.2.3',
      userAgent: 'test-agent',
    });
  });

  it('decodes query parameters, joining repeats with commas, and keeps the raw query string', () => {
    const event = toApiGatewayEvent(request('/v1/events?status=a&status=b&q=hello%20world&plus=a+b&flag', []), Buffer.alloc(0), apiRoute);

    expect(event.rawPath).toBe('/v1/events');
    expect(event.rawQueryString).toBe('status=a&status=b&q=hello%20world&plus=a+b&flag');
    expect(event.queryStringParameters).toEqual({ status: 'a,b', q: 'hello world', plus: 'a b', flag: '' });
  });

  it('fills the request context like an HTTP API $default stage', () => {
    const now = new Date('2025-11-21T13:22:01.123Z');

    const event = toApiGatewayEvent(request('/v1/things', ['Host', 'localhost:3000']), Buffer.alloc(0), apiRoute, now);

    expect(event).toMatchObject({
      version: '2.0',
      routeKey: API_ROUTE_KEY,
      pathParameters: { proxy: 'v1/things' },
      requestContext: {
        accountId: '123456789012',
        domainName: 'localhost:3000',
        routeKey: API_ROUTE_KEY,
        stage: '$default',
        time: '21/Nov/2025:13:22:01 +0000',
        timeEpoch: now.getTime(),
      },
    });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.queryStringParameters).toBeUndefined();
    expect(event.cookies).toBeUndefined();
  });
});

describe('isTextualContentType', () => {
  it.each([
    ['text/plain', true],
    ['text/csv; charset=utf-8', true],
    ['application/json', true],
    ['application/vnd.api+json', true],
    ['application/xml', true],
    ['application/x-www-form-urlencoded', true],
    ['application/octet-stream', false],
    ['image/png', false],
    [undefined, false],
  ])('%s → %s', (contentType, textual) => {
    expect(isTextualContentType(contentType)).toBe(textual);
  });
});

describe('fromApiGatewayResult', () => {
  it('writes headers, multi-value headers and cookies as set-cookie', () => {
    const result = fromApiGatewayResult({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'X-Count': 2 },
      multiValueHeaders: { 'X-Multi': ['a', 'b'] },
      cookies: ['a=1; Path=/', 'b=2'],
      body: '{"ok":true}',
    });

    expect(result.statusCode).toBe(201);
    expect(result.headers).toEqual({
      'content-type': 'application/json',
      'x-count': '2',
      'x-multi': ['a', 'b'],
      'set-cookie': ['a=1; Path=/', 'b=2'],
    });
    expect(result.body.toString()).toBe('{"ok":true}');
  });

  it('answers 200 JSON for a result without statusCode, as payload format 2.0 does', () => {
    const result = fromApiGatewayResult({ hello: 'world' });

    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.body.toString()).toBe('{"hello":"world"}');
  });
});

describe('resolveRoute', () => {
  it('sends POST /ingest/{token} to ingest and everything else to the api', () => {
    expect(resolveRoute('POST', '/ingest/abc%2Ddef')).toEqual({
      target: 'ingest',
      routeKey: INGEST_ROUTE_KEY,
      pathParameters: { token: 'abc-def' },
    });
    expect(resolveRoute('GET', '/ingest/abc')).toMatchObject({ target: 'api', pathParameters: { proxy: 'ingest/abc' } });
    expect(resolveRoute('POST', '/ingest/a/b')).toMatchObject({ target: 'api' });
    expect(resolveRoute('POST', '/ingest/')).toMatchObject({ target: 'api' });
    expect(resolveRoute('DELETE', '/v1/api-keys/k1')).toEqual({
      target: 'api',
      routeKey: API_ROUTE_KEY,
      pathParameters: { proxy: 'v1/api-keys/k1' },
    });
  });

  it('matches nothing at / (a greedy {proxy+} needs a segment)', () => {
    expect(resolveRoute('GET', '/')).toBeUndefined();
  });
});
