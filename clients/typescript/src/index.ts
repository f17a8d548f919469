import {
  operations,
  type CreateAccountRequest,
  type CreateApiKeyRequest,
  type CreateCustomDomainRequest,
  type CreateDestinationRequest,
  type CreateExportRequest,
  type CreateRouteRequest,
  type CreateSourceRequest,
  type EventListItem,
  type OpenListenSessionRequest,
  type CreateAwsConnectionRequest,
  type OperationId,
  type Operations,
  type PublishOutboundEventBatchRequest,
  type PublishOutboundEventRequest,
  type RotateSigningKeysRequest,
  type UpdateAccountRequest,
  type UpdateBrandSettingsRequest,
  type UpdateDestinationRequest,
  type UpdateRouteRequest,
  type UpdateSourceRequest,
} from './generated.js';

export * from './generated.js';
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook, verifyWebhookWithJwks, type VerifyWebhookOptions, type VerifyWithJwksOptions, type WebhookHeaders } from './verify.js';

/**
 * A request that failed. An error answer of the API: `status` is its HTTP status and `message` its
 * exact `error` (`{"error": "…"}`). No HTTP answer at all (connection refused, DNS failure, timeout,
 * a connection cut before the answer ended): `status` is 0, `message` is `cannot reach <url>: <cause>`,
 * and `cause` is the underlying error.
 */
export class HookgateError extends Error {
  override readonly name = 'HookgateError';
  constructor(
    readonly status: number,
    message: string,
    /** The parsed answer, when there was one. */
    readonly body?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Why a request got no answer, in words that name the failure (`connect ECONNREFUSED 127.0.0.1:3000`, `getaddrinfo ENOTFOUND …`). */
function networkFailure(error: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'timed out';
  // fetch says only "fetch failed"; the cause says what failed. With several addresses (localhost
  // as ::1 and 127.0.0.1) the cause is an AggregateError whose message is empty but whose code is set.
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  if (typeof cause?.code === 'string') return cause.code;
  return error.message;
}

export interface HookgateOptions {
  /** The gateway's base URL: `http://127.0.0.1:3000` under `npm start`, the stack's `ApiUrl` in AWS. */
  baseUrl: string;
  /** `hk_…`; not needed to create an account. */
  apiKey?: string;
  /** Default: the global fetch (Node 20+). */
  fetch?: typeof fetch;
  /** A request with no whole answer by then throws a `HookgateError` with status 0. Default 30 000 (30 s). */
  timeoutMs?: number;
}

// API Gateway gives up on an integration after 30 s, so in AWS an answer later than that is not coming.
const DEFAULT_TIMEOUT_MS = 30_000;

type Answer<K extends OperationId> = Operations[K]['responses'][keyof Operations[K]['responses']];
/** The `data` of an operation's successful answers. */
export type Data<K extends OperationId> = Extract<Answer<K>, { data: unknown }>['data'];
export type Query<K extends OperationId> = Exclude<Operations[K]['query'], undefined>;
/** Filters and paging of both event lists. */
export type EventQuery = Query<'listEvents'>;
/** A page of events: pass `next_cursor` as `cursor` for the next one; null on the last page. */
export type EventPage = Omit<Extract<Answer<'listEvents'>, { next_cursor: unknown }>, 'duration_ms'>;

export interface RequestInput {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A small typed client of the Hookgate API. Types come from the OpenAPI document
 * (./generated.ts, by `npm run openapi`); every error answer, and every request that gets no answer,
 * throws a `HookgateError`.
 */
export class Hookgate {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: HookgateOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The same client, authenticated with `apiKey`. */
  withApiKey(apiKey: string): Hookgate {
    return new Hookgate({ baseUrl: this.baseUrl, apiKey, fetch: this.#fetch, timeoutMs: this.#timeoutMs });
  }

  /**
   * Calls one operation by its `operationId`; resolves with the raw answer, throws `HookgateError` on
   * 4xx/5xx and, with status 0, when no answer came.
   */
  async request(operationId: OperationId, input: RequestInput = {}): Promise<RawAnswer> {
    const { method, path } = operations[operationId];
    const url = new URL(
      this.baseUrl +
        path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = input.params?.[name];
          if (value === undefined) throw new TypeError(`${operationId}: missing path parameter ${name}`);
          return encodeURIComponent(value);
        }),
    );
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, { method, headers, body, redirect: 'manual', signal });
      text = await response.text();
    } catch (error) {
      // An abort the caller asked for (its own signal, through `fetch`) is no failure of the gateway.
      if (error instanceof Error && error.name === 'AbortError') throw error;
      throw new HookgateError(0, `cannot reach ${url.href}: ${networkFailure(error, this.#timeoutMs, signal.aborted)}`, undefined, {
        cause: error,
      });
    }
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.status >= 400) {
      const message =
        typeof parsed === 'object' && parsed !== null && 'error' in parsed && typeof parsed.error === 'string'
          ? parsed.error
          : `HTTP ${response.status}`;
      throw new HookgateError(response.status, message, parsed);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async #data<K extends OperationId>(operationId: K, input: RequestInput = {}): Promise<Data<K>> {
    const answer = await this.request(operationId, input);
    return (answer.body as { data: Data<K> }).data;
  }

  async #page(operationId: 'listEvents' | 'listOutboundEvents', query: EventQuery = {}): Promise<EventPage> {
    const answer = await this.request(operationId, { query: { ...query } });
    const { data, next_cursor } = answer.body as EventPage;
    return { data, next_cursor };
  }

  /** Every event matching `query`, page after page, newest first. */
  async *#all(operationId: 'listEvents' | 'listOutboundEvents', query: EventQuery = {}): AsyncGenerator<EventListItem> {
    let cursor: string | undefined;
    do {
      const page = await this.#page(operationId, { ...query, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  readonly accounts = {
    /** Open: creates an account and answers its bootstrap API key (shown once). */
    create: (body: CreateAccountRequest = {}) => this.#data('createAccount', { body }),
  };

  readonly account = {
    get: () => this.#data('getAccount'),
    update: (body: UpdateAccountRequest) => this.#data('updateAccount', { body }),
  };

  readonly signingKeys = {
    /**
     * A new current Ed25519 key for `{ customer }`'s endpoints (each customer has its own key pair), or
     * with no argument for the account's own destinations; the old one signs alongside it for 24 hours.
     * Answers the public halves only, and the JWKS URL they are served at.
     */
    rotate: (body: RotateSigningKeysRequest = {}) => this.#data('rotateSigningKeys', { body }),
  };

  readonly apiKeys = {
    create: (body: CreateApiKeyRequest = {}) => this.#data('createApiKey', { body }),
    list: () => this.#data('listApiKeys'),
    revoke: async (id: string): Promise<void> => void (await this.request('revokeApiKey', { params: { id } })),
  };

  readonly sources = {
    create: (body: CreateSourceRequest) => this.#data('createSource', { body }),
    list: () => this.#data('listSources'),
    get: (id: string) => this.#data('getSource', { params: { id } }),
    update: (id: string, body: UpdateSourceRequest) => this.#data('updateSource', { params: { id }, body }),
  };

  readonly destinations = {
    create: (body: CreateDestinationRequest) => this.#data('createDestination', { body }),
    list: () => this.#data('listDestinations'),
    /** With its signing secret. */
    get: (id: string) => this.#data('getDestination', { params: { id } }),
    update: (id: string, body: UpdateDestinationRequest) => this.#data('updateDestination', { params: { id }, body }),
    /** Verifies its endpoint with the challenge the endpoint received (a receiver that cannot echo it). */
    verify: (id: string, challenge: string) => this.#data('verifyDestination', { params: { id }, body: { challenge } }),
    /** Sends its endpoint a new ownership challenge, while it is `pending_verification`. */
    resendVerification: (id: string) => this.#data('resendDestinationVerification', { params: { id } }),
    /** Ends what it holds (`held_ended` dead letters), at most a page a call: call again while `held` > 0. */
    endHeld: (id: string) => this.#data('endHeldDeliveries', { params: { id } }),
  };

  readonly routes = {
    create: (body: CreateRouteRequest) => this.#data('createRoute', { body }),
    list: () => this.#data('listRoutes'),
    get: (id: string) => this.#data('getRoute', { params: { id } }),
    update: (id: string, body: UpdateRouteRequest) => this.#data('updateRoute', { params: { id }, body }),
    delete: async (id: string): Promise<void> => void (await this.request('deleteRoute', { params: { id } })),
  };

  /** AWS connections: a role in a customer's AWS account that AWS destinations deliver through (docs/aws-destinations.md). */
  readonly awsConnections = {
    create: (body: CreateAwsConnectionRequest) => this.#data('createAwsConnection', { body }),
    list: (query?: Query<'listAwsConnections'>) => this.#data('listAwsConnections', { query }),
    get: (id: string) => this.#data('getAwsConnection', { params: { id } }),
    /** The CloudFormation template that creates the role. */
    template: (id: string) => this.#data('getAwsConnectionTemplate', { params: { id } }),
    /** Assumes the role now and says whether it worked. */
    verify: (id: string) => this.#data('verifyAwsConnection', { params: { id } }),
    delete: async (id: string): Promise<void> => void (await this.request('deleteAwsConnection', { params: { id } })),
  };

  /** `hookgate listen`'s sessions: a `cli` destination and its route. */
  readonly listenSessions = {
    /** Creates the session, or resumes the one with this `session_id`. */
    open: (body: OpenListenSessionRequest) => this.#data('openListenSession', { body }),
    close: async (sessionId: string): Promise<void> => void (await this.request('closeListenSession', { params: { session_id: sessionId } })),
  };

  /** Inbound events (received on sources' ingest URLs). */
  readonly events = {
    list: (query?: EventQuery) => this.#page('listEvents', query),
    all: (query?: EventQuery) => this.#all('listEvents', query),
    get: (id: string) => this.#data('getEvent', { params: { id } }),
    replay: (id: string) => this.#data('replayEvent', { params: { id } }),
  };

  /** Events you publish for your own customers. */
  readonly outboundEvents = {
    /** `{id, status: "queued"}`, or for a repeated `external_event_id` the first event with `duplicate: true`. */
    publish: (body: PublishOutboundEventRequest) => this.#data('publishOutboundEvent', { body }),
    /** Up to 100 events; one result per event, in order. */
    batch: (events: PublishOutboundEventBatchRequest['events']) => this.#data('publishOutboundEventBatch', { body: { events } }),
    list: (query?: Query<'listOutboundEvents'>) => this.#page('listOutboundEvents', query),
    all: (query?: Query<'listOutboundEvents'>) => this.#all('listOutboundEvents', query),
    get: (id: string) => this.#data('getOutboundEvent', { params: { id } }),
    replay: (id: string) => this.#data('replayOutboundEvent', { params: { id } }),
  };

  readonly exports = {
    create: (body: CreateExportRequest = {}) => this.#data('createExport', { body }),
    list: (query?: Query<'listExports'>) => this.#data('listExports', { query }),
    get: (id: string) => this.#data('getExport', { params: { id } }),
    /** The pre-signed URL of a ready export's file (valid 5 minutes). */
    downloadUrl: async (id: string): Promise<string> => {
      const answer = await this.request('downloadExport', { params: { id } });
      const location = answer.headers.get('location');
      if (answer.status !== 302 || !location) throw new HookgateError(answer.status, 'export download did not redirect', answer.body);
      return location;
    },
  };

  /** Erasures per data subject: every payload of the events given a `subject`, removed in the background. */
  readonly erasures = {
    /** `{id, status: "running", …}`: follow it with `get` until `status` is `done`. */
    create: (subject: string) => this.#data('createErasure', { body: { subject } }),
    get: (id: string) => this.#data('getErasure', { params: { id } }),
  };

  readonly brandSettings = {
    get: () => this.#data('getBrandSettings'),
    /** A merge: fields left out keep their value; null clears one back to its default. */
    update: (body: UpdateBrandSettingsRequest) => this.#data('updateBrandSettings', { body }),
  };

  readonly customDomains = {
    create: (body: CreateCustomDomainRequest) => this.#data('createCustomDomain', { body }),
    list: () => this.#data('listCustomDomains'),
    get: (id: string) => this.#data('getCustomDomain', { params: { id } }),
    verify: (id: string) => this.#data('verifyCustomDomain', { params: { id } }),
    delete: async (id: string): Promise<void> => void (await this.request('deleteCustomDomain', { params: { id } })),
  };
}
