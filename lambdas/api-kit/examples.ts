
/**
 * Example values for the OpenAPI document, typed by the response schemas (and checked against the
 * generated document in a test), so an example cannot show a field the API does not return.
 */
export const ids = {
  account: '01970c6e-5b1a-7c3d-8e4f-1a2b3c4d5e6f',
  apiKey: '01970c6e-5b1b-7a10-9b21-0c1d2e3f4a5b',
  source: '01970c6e-6a00-7b11-a2c3-4d5e6f708192',
  destination: '01970c6e-6b00-7c22-b3d4-5e6f708192a3',
  route: '01970c6e-6c00-7d33-84e5-6f708192a3b4',
  event: '01970c6f-1000-7e44-95f6-708192a3b4c5',
  outboundEvent: '01970c6f-2000-7e45-85f6-708192a3b4c6',
  replay: '01970c71-2000-7f55-a607-8192a3b4c5d6',
  attempt: '01970c6f-1001-7066-b718-92a3b4c5d6e7',
  exportJob: '01970c72-3000-7177-8829-a3b4c5d6e7f8',
  replayJob: '01970c72-5000-7399-8a4b-c5d6e7f8091a',
  erasure: '01970c72-6000-74aa-9b5c-d6e7f8091a2b',
  customDomain: '01970c73-4000-7288-993a-b4c5d6e7f809',
  awsConnection: '01970c74-5000-7399-8a4b-c5d6e7f8a1b2',
} as const;

export const at = '2026-06-01T12:00:00.000Z';
export const later = '2026-06-01T12:00:01.250Z';
export const exampleSigningSecret = 'whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ=';
