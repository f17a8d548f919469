#!/usr/bin/env node
// A webhook receiver as your app would write one, on Node's standard library alone: it checks each
// delivery's Webhook-Signature (Hookgate's default scheme, `t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<raw body>">` keyed with the secret's UTF-8 bytes) before it trusts the body, and answers 2xx
// only to a genuine one, so a forged or stale request is refused and a genuine one is not retried.
// The clients' verifiers do the same check (README: TypeScript client, Python client).
//
//   HOOKGATE_SIGNING_SECRET=whsec_… node examples/receiver.mjs 4000
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 4000);
const secret = process.env.HOOKGATE_SIGNING_SECRET;
if (!secret) {
  console.error('Set HOOKGATE_SIGNING_SECRET to the destination\'s signing secret (whsec_…)');
  process.exit(2);
}
// A replayed old request is refused even with a valid signature.
const TOLERANCE_SECONDS = 5 * 60;

/** Why the request is not genuine, or undefined when one of its `v1=` signatures verifies. */
function refusal(header, body, now) {
  if (!header) return 'no Webhook-Signature header';
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp)) return 'no timestamp in Webhook-Signature';
  if (Math.abs(now - timestamp) > TOLERANCE_SECONDS) return 'timestamp more than 5 minutes away';
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const genuine = parts
    .filter(([name]) => name === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  return genuine ? undefined : 'no v1 signature matches the secret';
}

// What a sender wrote is printed without its control characters, so a header cannot rewrite the terminal.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const shown = (value) => String(value ?? '-').replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const why = refusal(request.headers['webhook-signature'], Buffer.concat(chunks), Math.floor(Date.now() / 1000));
    const delivery = `${shown(request.headers['x-webhook-id'])} (${shown(request.headers['x-event-type'])})`;
    if (why) {
      console.log(`receiver: REFUSED ${delivery}: ${why}`);
      response.writeHead(400, { 'content-type': 'text/plain' }).end(`${why}\n`);
      return;
    }
    console.log(`receiver: signature verified for ${delivery}`);
    response.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver: listening on http://127.0.0.1:${port}`));
