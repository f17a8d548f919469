import type {
  Attempt,
  AwsConnectionCheck,
  EventType,
  PortalAwsConnection,
  PortalEndpoint,
  PortalEndpointWithSecret,
  PortalEvent,
  PortalEventListItem,
  PortalSessionInfo,
} from '../clients/typescript/src/generated';
import { brandPalette } from '../lambdas/domain/brand-palette';
import { SIGNATURE_SNIPPETS, STANDARD_WEBHOOKS_SNIPPETS } from './snippets';
import { failureWords, healthWords, heldWords, relativeTime, statusWords, verifyWords } from './words';

/**
 * The consumer portal: a single page with no framework. Every value from the API is put in the page
 * as text (textContent, attributes through setAttribute); nothing is ever parsed as HTML. The link's
 * secret arrives in the URL fragment, which browsers never send to a server, and is moved to
 * sessionStorage at once so it leaves the address bar and the history.
 */

type Delivery = PortalEvent['deliveries'][number];

const TOKEN_KEY = 'portal-session';
const SETTLED = ['delivered', 'dead_letter', 'accepted', 'replayed'];
const STATUSES = ['queued', 'delivering', 'retry_scheduled', 'delivered', 'dead_letter'];

/** A refused or failed request; `message` is already in the customer's words. */
class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

// ------------------------------------------------------------------ DOM, text only

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | boolean | ((event: Event) => void) | undefined>;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  return el;
}

// The customer's own locale (the browser's), never a fixed format such as 11/28/2026, 2:28:17 AM.
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const when = (iso: string | null) => (iso ? absolute.format(new Date(iso)) : '—');

/** A moment as "3 minutes ago", the exact time on hover. */
function ago(iso: string | null): HTMLElement | string {
  if (!iso) return '—';
  const { value, unit } = relativeTime(Date.parse(iso), Date.now());
  return h('time', { datetime: iso, title: when(iso) }, relative.format(value, unit));
}

// Fixed meanings, never the brand's colours: with any accent, a healthy endpoint and a failing one look different.
const TONES: Record<string, 'good' | 'bad' | 'warn'> = {
  delivered: 'good',
  success: 'good',
  accepted: 'good',
  dead_letter: 'bad',
  blocked: 'bad',
  http_error: 'bad',
  timeout: 'bad',
  network_error: 'bad',
  verified: 'good',
  failed: 'bad',
  retry_scheduled: 'warn',
  delivering: 'warn',
};
const badge = (status: string, text = statusWords(status), tone: string = TONES[status] ?? 'idle') =>
  h('span', { class: `badge ${tone} s-${status.replace(/[^a-z_]/g, '')}` }, text);

/** An endpoint's health in the customer's words; the class keeps the state (s-open) for styling and tests. */
const healthBadge = (e: Pick<PortalEndpoint, 'active' | 'health' | 'status' | 'disabled_reason'>) => {
  const words = healthWords(e.health.state, e.active, e.status === 'pending_verification', e.disabled_reason);
  return badge(words.key, words.text, words.tone);
};

/** A table that fits a phone: each cell carries its column's heading, shown beside it when rows stack. */
function table(id: string, headings: string[], rows: Child[][], card = false): HTMLTableElement {
  const body = rows.map((cells) => h('tr', {}, ...cells.map((cell, i) => h('td', { 'data-label': headings[i] ?? '' }, cell))));
  return h('table', { id, class: card ? 'stack card' : 'stack' }, h('thead', {}, h('tr', {}, ...headings.map((t) => h('th', {}, t)))), h('tbody', {}, ...body));
}

/** Copies a value the page shows (an id, a secret); says when the browser refuses the clipboard. */
function copyButton(label: string, value: () => string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy secondary', 'aria-label': `Copy ${label}` }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value());
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    } catch {
      say(`Copy was refused by the browser: select the ${label} and copy it.`, 'warn');
    }
  });
  return button;
}

/** Code, a command or a document, whole, with a button that copies it. */
function codeBlock(label: string, text: string, attrs: Attrs = {}): HTMLElement {
  return h('div', { class: 'codeblock' }, h('pre', attrs, text), copyButton(label, () => text));
}

/** A value shown in full (an id, an ARN) with a button that copies it. */
const copyable = (label: string, value: string, id?: string) => [h('span', { class: 'id', id }, value), copyButton(label, () => value)];

/**
 * Asks in the page, under the button that asked (a browser dialog cannot be styled, is blocked in
 * some embeds, and hides the page it is about): a sentence, the action named again, and Cancel.
 */
function confirmInPage(trigger: HTMLButtonElement, id: string, question: string, yes: string, danger: boolean, act: () => Promise<void>): void {
  document.getElementById(id)?.remove();
  const accept = h('button', { type: 'button', class: danger ? 'confirm-yes danger' : 'confirm-yes' }, yes);
  const cancel = h('button', { type: 'button', class: 'confirm-no secondary' }, 'Cancel');
  const panel = h('div', { id, class: 'confirm', role: 'alertdialog', 'aria-label': yes }, h('p', {}, question), h('div', { class: 'actions' }, accept, cancel));
  const close = () => {
    panel.remove();
    trigger.disabled = false;
    trigger.focus();
  };
  cancel.addEventListener('click', close);
  accept.addEventListener('click', async () => {
    accept.disabled = true;
    try {
      await act();
      panel.remove();
      trigger.disabled = false;
    } catch (error) {
      accept.disabled = false;
      fail(error);
    }
  });
  trigger.disabled = true;
  (trigger.closest('.actions') ?? trigger).after(panel);
  accept.focus();
}

/** Deletes once the customer confirms in the page, then goes back to the list; a refusal is said. */
function deleteButton(path: string, back: string, what: string): HTMLButtonElement {
  const button = h('button', { type: 'button', id: 'delete', class: 'danger-quiet' }, 'Delete');
  button.addEventListener('click', () =>
    confirmInPage(button, 'confirm-delete', `Delete this ${what}? This cannot be undone.`, `Delete ${what}`, true, async () => {
      await api('DELETE', path);
      location.hash = back;
    }),
  );
  return button;
}

/** A whole-screen state (loading, empty, not found, refused) with the way forward. */
function state(id: string, title: string, text: string, ...forward: Child[]): HTMLElement {
  return h('div', { class: `state ${id}`, id }, h('span', { class: 'mark', 'aria-hidden': 'true' }), h('h1', {}, title), h('p', {}, text), ...forward);
}

// ------------------------------------------------------------------ the API, with the link's secret

let token = sessionStorage.getItem(TOKEN_KEY);

/**
 * A link's secret is taken from the fragment only while the tab holds no session (its first load, or
 * after the session was refused). A later `#ps_…`, by hashchange or a reload, is removed from the
 * address bar and ignored, and the page says so: a link someone else sent must never switch the
 * customer this tab manages without it showing (the endpoints added next would go to that customer).
 */
function takeLink(): 'none' | 'taken' | 'same' | 'ignored' {
  const fragment = location.hash.slice(1);
  if (!fragment.startsWith('ps_')) return 'none';
  history.replaceState(null, '', `${location.pathname}#/endpoints`);
  if (token) return fragment === token ? 'same' : 'ignored';
  sessionStorage.setItem(TOKEN_KEY, fragment);
  token = fragment;
  return 'taken';
}

async function api<T>(method: string, path: string, body?: unknown): Promise<{ data: T; next_cursor?: string | null }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/v1/portal${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(failureWords({ kind: 'network' }), 0);
  }
  if (res.status === 401) {
    showRefused();
    throw new ApiError('This link has expired or is not valid.', 401);
  }
  if (res.status === 204) return { data: undefined as T };
  const json = (await res.json().catch(() => ({}))) as { data: T; next_cursor?: string | null; error?: string };
  if (!res.ok) throw new ApiError(failureWords({ kind: 'http', status: res.status, error: json.error }), res.status);
  return json;
}

// ------------------------------------------------------------------ shell

const root = document.getElementById('app') as HTMLElement;
const view = h('main', { id: 'view' });
// Two live regions, both in the page from the start so assistive technology announces what lands in
// them: news (saved, copied) politely, failures at once as an alert.
const notice = h('p', { id: 'notice', role: 'status' });
const problem = h('p', { id: 'problem', role: 'alert' });
let session: PortalSessionInfo | undefined;
let catalog: EventType[] = [];
let stopPolling: (() => void) | undefined;

function say(message: string, kind: 'ok' | 'warn' | 'error' = 'ok') {
  problem.textContent = kind === 'error' ? message : '';
  notice.textContent = kind === 'error' ? '' : message;
  notice.className = kind;
  if (message) (kind === 'error' ? problem : notice).scrollIntoView({ block: 'nearest' });
}

/** A failure said as an alert; its message is already in the customer's words (ApiError), or becomes a generic sentence. */
const fail = (error: unknown) => say(error instanceof ApiError ? error.message : failureWords({ kind: 'http', status: 500 }), 'error');

/**
 * The link ended (expired, revoked, or never valid). Mid-use the brand's header stays, so the customer
 * still sees whose page this is and whom to ask; a new link opened in this tab starts afresh.
 */
function showRefused() {
  sessionStorage.removeItem(TOKEN_KEY);
  token = null;
  stopPolling?.();
  const company = session?.brand.company_name;
  const refused = h(
    'main',
    { id: 'refused' },
    h('span', { class: 'mark', 'aria-hidden': 'true' }),
    h('h1', {}, 'This link has expired or is not valid'),
    h('p', {}, `Links to this page last a short while. Ask ${company ?? 'the company that sent it'} for a new link, then open it here.`),
  );
  const header = root.querySelector('#brand');
  root.replaceChildren(...(header ? [header] : []), refused);
}

const ignoredLinkNotice = (customer: string) =>
  `This tab stays with ${customer}: the other link was not opened here. Open it in a new tab or window.`;

/** The company's name beside it says who this is; a logo that fails to load leaves just the name, not a broken image. */
function logo(src: string): HTMLImageElement {
  const img = h('img', { id: 'logo', src, alt: '' });
  img.addEventListener('error', () => img.remove());
  return img;
}

function applyShell({ brand, customer }: PortalSessionInfo) {
  const style = document.documentElement.style;
  const palette = brandPalette(brand);
  style.setProperty('--bar', palette.bar);
  style.setProperty('--button', palette.button);
  style.setProperty('--on-button', palette.onButton);
  style.setProperty('--link', palette.link);
  style.setProperty('--accent', palette.accent);
  document.title = brand.company_name ? `${brand.docs_title ?? 'Webhooks'} · ${brand.company_name}` : (brand.docs_title ?? 'Webhooks');
  const header = h(
    'header',
    { id: 'brand' },
    brand.logo_url ? logo(brand.logo_url) : null,
    brand.company_name ? h('span', { id: 'company' }, brand.company_name) : null,
    h('span', { id: 'docs-title' }, brand.docs_title ?? 'Webhooks'),
    h('span', { id: 'for-customer' }, h('small', {}, 'Customer '), h('strong', { id: 'customer' }, customer)),
  );
  const nav = h(
    'nav',
    {},
    h('a', { href: '#/endpoints' }, 'Endpoints'),
    h('a', { href: '#/events' }, 'Event log'),
    h('a', { href: '#/aws' }, 'AWS'),
    h('a', { href: '#/docs' }, 'Docs'),
  );
  root.replaceChildren(header, nav, notice, problem, view);
}

async function route() {
  const link = takeLink();
  if (link === 'taken') return start();
  await render();
  if (link === 'ignored' && session) say(ignoredLinkNotice(session.customer), 'warn');
}

const TABS: Record<string, string> = { endpoints: 'Endpoints', events: 'Event log', aws: 'AWS', docs: 'Docs' };

/** A screen's missing thing, and the way back to its list. */
const NOT_FOUND: Record<string, [string, string]> = {
  events: ['event', 'Back to the event log'],
  endpoints: ['endpoint', 'All endpoints'],
  aws: ['AWS connection', 'All AWS connections'],
};

/**
 * Renders run one after another, each once the one before has painted: a screen still fetching when
 * the customer opens another (a click on the nav before the first screen's answer) paints first, and
 * the screen asked for last is the one that stays.
 */
let rendering: Promise<void> = Promise.resolve();
function render(refresh = false): Promise<void> {
  rendering = rendering.catch(() => undefined).then(() => renderNow(refresh));
  return rendering;
}

/** `refresh`: the same screen read again (polling), shown without a loading state in between. */
async function renderNow(refresh: boolean) {
  stopPolling?.();
  stopPolling = undefined;
  const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [hashScreen, id] = path.split('/');
  const screen = hashScreen && hashScreen in TABS ? hashScreen : 'endpoints';
  for (const link of root.querySelectorAll('nav a')) link.classList.toggle('current', link.getAttribute('href') === `#/${screen}`);
  say('');
  // A new screen opens at its top, not at the previous one's scroll position.
  if (!refresh) window.scrollTo(0, 0);
  // A fast answer replaces the screen at once; a slow one shows that something is on its way (unless
  // the new screen already painted itself and now fills in, as the event log does).
  const previous = view.firstChild;
  const loading = refresh
    ? undefined
    : setTimeout(() => {
        if (view.firstChild === previous) view.replaceChildren(state('loading', 'Loading…', 'Fetching the latest from the server.'));
      }, 150);
  try {
    if (screen === 'events' && id) await eventScreen(id);
    else if (screen === 'events') await logScreen();
    else if (screen === 'docs') await docsScreen();
    else if (screen === 'aws' && id) await connectionScreen(id);
    else if (screen === 'aws') await connectionsScreen();
    else if (screen === 'endpoints' && id === 'new') await endpointsScreen({ connection: new URLSearchParams(query).get('connection') });
    else if (screen === 'endpoints' && id) await endpointScreen(id);
    else await endpointsScreen();
  } catch (error) {
    if (!token) return;
    if (error instanceof ApiError && error.status === 404) {
      const [what, back] = NOT_FOUND[screen] ?? NOT_FOUND.endpoints!;
      view.replaceChildren(
        state('not-found', `Not found: no such ${what}`, `This ${what} does not exist, or is not yours.`, h('a', { class: 'button', href: `#/${screen}` }, back)),
      );
    } else fail(error);
  } finally {
    clearTimeout(loading);
  }
}

// ------------------------------------------------------------------ endpoints

function typeChoices(chosen: string[]): HTMLElement {
  const box = h('fieldset', { class: 'types' }, h('legend', {}, 'Event types'));
  if (catalog.length === 0) box.append(h('p', { class: 'muted' }, 'No event types are available yet.'));
  for (const type of catalog) {
    const input = h('input', { type: 'checkbox', name: 'event_type', value: type.name, checked: chosen.includes(type.name) });
    box.append(h('label', {}, input, ` ${type.name}`, type.description ? h('small', {}, ` — ${type.description}`) : null));
  }
  return box;
}

/**
 * An endpoint with no event types is saved fine and then receives nothing, silently: so saving one
 * first shows why in the form, with the way to go on anyway. `allows()` is true once a type is
 * ticked or the customer chose to go on; ticking or unticking a type takes the warning away.
 */
function noTypesGuard(form: HTMLFormElement, anyway: string): { allows: () => boolean } {
  let acknowledged = false;
  const go = h('button', { type: 'button', class: 'secondary' }, anyway);
  const warning = h(
    'div',
    { class: 'warning', id: 'no-types', role: 'alert' },
    h('p', {}, 'With no event types ticked, this endpoint receives no events. Tick at least one above, or go on and choose later.'),
    go,
  );
  go.addEventListener('click', () => {
    acknowledged = true;
    form.requestSubmit();
  });
  form.addEventListener('change', (event) => {
    if ((event.target as HTMLInputElement).name !== 'event_type') return;
    acknowledged = false;
    warning.remove();
  });
  return {
    allows: () => {
      if (acknowledged || checkedTypes(form).length > 0) {
        warning.remove();
        return true;
      }
      const submit = form.querySelector('button[type=submit]');
      (submit?.closest('.actions') ?? submit)?.before(warning);
      warning.scrollIntoView({ block: 'center' });
      return false;
    },
  };
}

const checkedTypes = (form: HTMLElement) =>
  [...form.querySelectorAll<HTMLInputElement>('input[name=event_type]:checked')].map((input) => input.value);

/** Where an endpoint delivers, by kind: the fields of its `config` (the first one required), as the API names them. */
const KINDS: Record<string, { label: string; fields: Array<[name: string, label: string, hint: string]> }> = {
  http: { label: 'HTTPS URL', fields: [] },
  aws_sqs: { label: 'Amazon SQS queue', fields: [['queue_url', 'Queue URL', 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders']] },
  aws_sns: { label: 'Amazon SNS topic', fields: [['topic_arn', 'Topic ARN', 'arn:aws:sns:eu-west-1:123456789012:orders']] },
  aws_eventbridge: {
    label: 'Amazon EventBridge bus',
    fields: [
      ['event_bus_arn', 'Event bus ARN', 'arn:aws:events:eu-west-1:123456789012:event-bus/orders'],
      ['detail_type', 'Detail type', 'optional: the event type'],
      ['source', 'Source', 'optional'],
    ],
  },
  aws_kinesis: {
    label: 'Amazon Kinesis stream',
    fields: [
      ['stream_arn', 'Stream ARN', 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders'],
      ['partition_key', 'Partition key', 'optional: event_id, or a JSON pointer such as /order/id'],
    ],
  },
  aws_lambda: { label: 'AWS Lambda function', fields: [['function_arn', 'Function ARN', 'arn:aws:lambda:eu-west-1:123456789012:function:orders']] },
  aws_s3: {
    label: 'Amazon S3 bucket',
    fields: [
      ['bucket', 'Bucket', 'my-webhooks'],
      ['key_template', 'Key template', 'optional: uses {event_id}, {event_type}, {date}'],
      ['region', 'Region', 'optional, such as eu-west-1'],
    ],
  },
};

/**
 * An AWS target's fields and the connection it goes through, for one kind; `current` fills them (an
 * existing endpoint). Empty optional fields are left out of the config, so their defaults apply. An
 * endpoint the account set up through something that is not one of the customer's connections keeps
 * it unless the customer picks one of its own.
 */
function targetFields(kind: string, connections: PortalAwsConnection[], current?: { config: Record<string, unknown>; connectionId: string | null }) {
  const inputs = (KINDS[kind]?.fields ?? []).map(([name, label, hint], i) => {
    const value = current?.config[name];
    const input = h('input', { name, placeholder: hint, required: i === 0, value: typeof value === 'string' ? value : undefined });
    return { name, label: h('label', {}, `${label} `, input), input, initial: input.value };
  });
  const keepsOther = current !== undefined && !connections.some((c) => c.id === current.connectionId);
  const first = keepsOther ? 'As it was set up for you (unchanged)' : connections.length ? 'Choose an AWS connection' : 'No AWS connection yet';
  const connection = h(
    'select',
    { name: 'connection_id', required: !keepsOther },
    h('option', { value: '' }, first),
    ...connections.map((c) => h('option', { value: c.id, selected: c.id === current?.connectionId }, `${c.aws_account_id} · ${c.role_name}${c.status === 'verified' ? '' : ` (${c.status})`}`)),
  );
  const through = h('label', {}, 'AWS connection ', connection, h('small', {}, 'The role in your AWS account it is delivered through. ', h('a', { href: '#/aws' }, 'Connect an AWS account')));
  const config = () => Object.fromEntries(inputs.filter((i) => i.input.value.trim() !== '').map((i) => [i.name, i.input.value.trim()]));
  return {
    nodes: [...inputs.map((i) => i.label), through],
    config,
    connectionId: () => connection.value,
    /** What the customer changed: the target when any field did, the connection when it picked another. */
    changes: () => ({
      ...(inputs.some((i) => i.input.value !== i.initial) ? { config: config() } : {}),
      ...(connection.value !== '' && connection.value !== current?.connectionId ? { connection_id: connection.value } : {}),
    }),
  };
}

/** `connection`: opened from an AWS connection's "Add an endpoint", so the form opens on an AWS kind through it. */
async function endpointsScreen(open?: { connection: string | null }) {
  const [{ data: endpoints }, { data: connections }] = await Promise.all([api<PortalEndpoint[]>('GET', '/endpoints'), api<PortalAwsConnection[]>('GET', '/aws-connections')]);
  const rows = endpoints.map((e) => [h('a', { href: `#/endpoints/${e.id}` }, e.name), h('span', { class: 'url' }, e.url), healthBadge(e), e.event_types.join(', ') || '—']);
  const kind = h('select', { name: 'type' }, ...Object.entries(KINDS).map(([value, k]) => h('option', { value }, k.label)));
  const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://example.com/webhooks' });
  const urlLabel = h('label', {}, 'URL ', url);
  const target = h('div', { class: 'target' });
  let fields = targetFields('http', connections);
  const showKind = () => {
    const http = kind.value === 'http';
    urlLabel.hidden = !http;
    url.disabled = !http;
    fields = targetFields(kind.value, connections);
    target.replaceChildren(...(http ? [] : fields.nodes));
  };
  kind.addEventListener('change', showKind);
  const name = h('input', { name: 'name', placeholder: 'optional' });
  const cancel = h('button', { type: 'button', class: 'quiet' }, 'Cancel');
  const form = h(
    'form',
    { id: 'add-endpoint' },
    h('label', {}, 'Delivers to ', kind),
    urlLabel,
    target,
    h('label', {}, 'Name ', name),
    typeChoices([]),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add endpoint'), cancel),
  );
  const card = h('section', { id: 'add-endpoint-card', hidden: true }, h('h2', {}, 'Add an endpoint'), form);
  const guard = noTypesGuard(form, 'Add without event types');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!guard.allows()) return;
    try {
      const where = kind.value === 'http' ? { url: url.value } : { type: kind.value, config: fields.config(), connection_id: fields.connectionId() };
      const { data } = await api<PortalEndpointWithSecret>('POST', '/endpoints', { ...where, ...(name.value ? { name: name.value } : {}), event_types: checkedTypes(form) });
      location.hash = `#/endpoints/${data.id}`;
    } catch (error) {
      fail(error);
    }
  });
  const opener = h('button', { type: 'button', id: 'open-add-endpoint' }, 'Add an endpoint');
  const showForm = () => {
    card.hidden = false;
    opener.hidden = true;
    card.scrollIntoView({ block: 'start' });
    (kind.value === 'http' ? url : (target.querySelector('input') ?? kind)).focus({ preventScroll: true });
  };
  opener.addEventListener('click', showForm);
  cancel.addEventListener('click', () => {
    card.hidden = true;
    opener.hidden = false;
    if (location.hash.startsWith('#/endpoints/new')) history.replaceState(null, '', '#/endpoints');
  });
  view.replaceChildren(
    h('div', { class: 'heading' }, h('h1', {}, 'Endpoints'), endpoints.length ? opener : null),
    endpoints.length
      ? table('endpoints', ['Name', 'Delivers to', 'Health', 'Event types'], rows, true)
      : state('no-endpoints', 'No endpoints yet.', 'Add the URL that should receive your webhooks; you can send it a test event straight away.', opener),
    card,
  );
  if (!open) return;
  const through = connections.find((c) => c.id === open.connection);
  if (through) {
    kind.value = 'aws_sqs';
    showKind();
    const select = target.querySelector<HTMLSelectElement>('select[name=connection_id]');
    if (select) select.value = through.id;
  }
  showForm();
}

async function endpointScreen(id: string) {
  const { data: e } = await api<PortalEndpointWithSecret>('GET', `/endpoints/${encodeURIComponent(id)}`);
  const patch = async (body: unknown, message: string) => {
    try {
      await api('PATCH', `/endpoints/${e.id}`, body);
      await render();
      say(message);
    } catch (error) {
      fail(error);
    }
  };
  const name = h('input', { name: 'name', value: e.name, required: true });
  const http = e.type === 'http';
  const url = h('input', { name: 'url', type: 'url', value: e.url, required: true });
  const connections = http ? [] : (await api<PortalAwsConnection[]>('GET', '/aws-connections')).data;
  const fields = targetFields(e.type, connections, { config: (e.config ?? {}) as Record<string, unknown>, connectionId: e.connection_id });
  const settings = h(
    'form',
    { id: 'settings' },
    h('label', {}, 'Name ', name),
    ...(http ? [h('label', {}, 'URL ', url)] : fields.nodes),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
  );
  settings.addEventListener('submit', (event) => {
    event.preventDefault();
    void patch(http ? { name: name.value, url: url.value } : { name: name.value, ...fields.changes() }, 'Saved.');
  });
  const types = h('form', { id: 'types', class: 'card' }, typeChoices(e.event_types), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save event types')));
  const guard = noTypesGuard(types, 'Save without event types');
  types.addEventListener('submit', (event) => {
    event.preventDefault();
    if (guard.allows()) void patch({ event_types: checkedTypes(types) }, 'Event types saved.');
  });

  const secret = h('code', { id: 'secret' }, 'whsec_••••••••');
  const reveal = h('button', { type: 'button', id: 'reveal' }, 'Reveal');
  reveal.addEventListener('click', () => {
    secret.textContent = e.signing_secret ?? '';
    reveal.disabled = true;
  });
  const rotate = h('button', { type: 'button', id: 'rotate', class: 'secondary' }, 'Rotate secret');
  rotate.addEventListener('click', () =>
    confirmInPage(
      rotate,
      'confirm-rotate',
      'Rotate the signing secret? A new secret signs from now on; the current one keeps signing for 24 hours, so update your receiver before then.',
      'Rotate secret',
      false,
      async () => {
        const { data } = await api<PortalEndpointWithSecret>('POST', `/endpoints/${e.id}/rotate-secret`);
        e.signing_secret = data.signing_secret;
        secret.textContent = data.signing_secret ?? '';
        reveal.disabled = true;
        say(`Secret rotated. The previous one keeps signing until ${when(data.previous_secret_expires_at ?? null)}.`);
      },
    ),
  );
  const test = h('button', { type: 'button', id: 'send-test' }, 'Send test event');
  test.addEventListener('click', async () => {
    try {
      const { data } = await api<{ event_id: string }>('POST', `/endpoints/${e.id}/test`);
      location.hash = `#/events/${data.event_id}`;
    } catch (error) {
      fail(error);
    }
  });
  const pause = h('button', { type: 'button', id: 'pause', class: 'secondary' }, e.active ? 'Pause' : 'Resume');
  pause.addEventListener('click', () => void patch({ active: !e.active }, e.active ? 'Paused.' : 'Resumed.'));
  const remove = deleteButton(`/endpoints/${e.id}`, '#/endpoints', 'endpoint');
  view.replaceChildren(
    h('h1', {}, e.name),
    h('p', { class: 'url' }, http ? null : h('span', { class: 'badge idle kind' }, KINDS[e.type]?.label ?? e.type), ' ', e.url, copyButton(http ? 'URL' : 'target', () => e.url)),
    h('p', { class: 'muted' }, 'Endpoint id ', ...copyable('endpoint id', e.id, 'endpoint-id')),
    ...(e.status === 'pending_verification' ? [verificationHelp(e.id)] : []),
    h(
      'section',
      { id: 'overview' },
      h(
        'dl',
        { id: 'health' },
        h('dt', {}, 'Health'),
        h('dd', {}, healthBadge(e), e.disabled_reason ? ` ${e.disabled_reason}` : ''),
        h('dt', {}, 'Failures in a row'),
        h('dd', {}, e.health.consecutive_failures),
        h('dt', {}, 'Last success'),
        h('dd', {}, ago(e.health.last_success_at)),
        h('dt', {}, 'Last failure'),
        h('dd', {}, ago(e.health.last_failure_at)),
        // Held deliveries wait as long as what holds them lasts (retention never ends them): say how many, and for how long.
        h('dt', {}, 'Waiting'),
        h('dd', { id: 'held' }, heldWords(e.health.held), ...(e.health.oldest_held_since ? [', the oldest due ', ago(e.health.oldest_held_since)] : [])),
        h('dt', {}, 'Signature'),
        h('dd', {}, SCHEME_NAMES[e.signature_scheme]),
        // Set by the account, not the customer: shown so a customer sizing its receiver knows the most it gets at once.
        h('dt', {}, 'Concurrent requests'),
        h('dd', { id: 'max-in-flight' }, `up to ${e.max_in_flight} at a time`),
      ),
      h('div', { class: 'actions' }, test, pause, remove),
    ),
    h(
      'section',
      {},
      h('h2', {}, 'Signing secret'),
      h('p', {}, secret, copyButton('signing secret', () => e.signing_secret ?? '')),
      h('div', { class: 'actions' }, reveal, rotate),
    ),
    types,
    h('section', {}, h('h2', {}, 'Settings'), settings),
  );
}

/**
 * What a customer does about an endpoint that waits for verification: echo the challenge. Said in the
 * customer's words, with the answer to give, since nothing else reaches the endpoint until then.
 */
function verificationHelp(endpointId: string): HTMLElement {
  const act = async (path: string, body: unknown, message: string) => {
    try {
      await api('POST', `/endpoints/${endpointId}${path}`, body);
      await render();
      say(message);
    } catch (error) {
      fail(error);
    }
  };
  const challenge = h('input', { name: 'challenge', required: true, autocomplete: 'off', spellcheck: 'false' });
  const byHand = h(
    'form',
    { id: 'verify-by-hand' },
    h('label', {}, 'Or paste the challenge from your endpoint’s log ', challenge),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Verify')),
  );
  byHand.addEventListener('submit', (event) => {
    event.preventDefault();
    void act('/verify', { challenge: challenge.value.trim() }, 'Endpoint verified.');
  });
  const resend = h('button', { type: 'button', id: 'resend-challenge', class: 'secondary' }, 'Send a new challenge');
  resend.addEventListener('click', () => void act('/verification/resend', undefined, 'A new challenge was sent to your endpoint.'));
  return h(
    'section',
    { id: 'verification', class: 'card', role: 'status' },
    h('h2', {}, 'Waiting for verification'),
    h(
      'p',
      {},
      'Before we send this endpoint any event, it must show that it is yours. We sent it one POST whose JSON body has a ',
      h('code', {}, 'challenge'),
      ' field. Answer that request with status 200 and the challenge in the body, as JSON or as the bare value:',
    ),
    codeBlock('answer', '{"challenge": "<the challenge you received>"}'),
    h('p', {}, 'We send it again a few times if your endpoint does not answer it yet. Events wait meanwhile, and are sent once the endpoint is verified. Changing the URL starts over.'),
    byHand,
    h('div', { class: 'actions' }, resend),
  );
}

// ------------------------------------------------------------------ event log

const LOG_HEADINGS = ['Event', 'Type', 'Endpoint', 'Status', 'Attempts', 'Sent'];

async function logScreen() {
  const { data: endpoints } = await api<PortalEndpoint[]>('GET', '/endpoints');
  const names = new Map(endpoints.map((e) => [e.id, e.name]));
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Any status'), ...STATUSES.map((s) => h('option', { value: s }, statusWords(s))));
  const type = h('select', { name: 'event_type' }, h('option', { value: '' }, 'Any type'), ...[...catalog.map((t) => t.name), 'webhook.test'].map((t) => h('option', { value: t }, t)));
  const body = h('tbody', {});
  const more = h('button', { type: 'button', id: 'more', class: 'secondary', hidden: true }, 'Older events');
  let cursor: string | null | undefined = null;
  const load = async (reset: boolean) => {
    const query = new URLSearchParams();
    if (status.value) query.set('status', status.value);
    if (type.value) query.set('event_type', type.value);
    if (!reset && cursor) query.set('cursor', cursor);
    const page = await api<PortalEventListItem[]>('GET', `/events?${query.toString()}`);
    if (reset) body.replaceChildren();
    for (const item of page.data) {
      const sentTo = item.endpoint_ids.map((id) => names.get(id) ?? 'deleted endpoint').join(', ') || '—';
      const cells = [h('a', { href: `#/events/${item.id}`, class: 'id' }, item.id), item.event_type ?? '—', sentTo, badge(item.status), String(item.attempts_count), ago(item.created_at)];
      body.append(h('tr', { class: 'event-row' }, ...cells.map((cell, i) => h('td', { 'data-label': LOG_HEADINGS[i] ?? '' }, cell))));
    }
    if (reset && page.data.length === 0) {
      const filtered = status.value !== '' || type.value !== '';
      const hint = filtered ? 'None match these filters.' : h('span', {}, 'Send a test event from one of your ', h('a', { href: '#/endpoints' }, 'endpoints'), '.');
      body.append(h('tr', {}, h('td', { colspan: String(LOG_HEADINGS.length), class: 'empty' }, 'No events. ', hint)));
    }
    cursor = page.next_cursor;
    more.hidden = !cursor;
  };
  const filters = h('form', { id: 'filters' }, status, type, h('button', { type: 'submit', class: 'secondary' }, 'Filter'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void load(true);
  });
  more.addEventListener('click', () => void load(false));
  view.replaceChildren(
    h('h1', {}, 'Event log'),
    filters,
    h('table', { id: 'events', class: 'stack card' }, h('thead', {}, h('tr', {}, ...LOG_HEADINGS.map((t) => h('th', {}, t)))), body),
    more,
  );
  await load(true);
}

function prettyPayload(event: PortalEvent): string {
  if (event.payload_erased) return '(erased: the payload was removed at the request of the person it was about)';
  if (event.body === null) return '';
  if (event.body_encoding !== 'utf8') return `(binary, base64)\n${event.body}`;
  try {
    return JSON.stringify(JSON.parse(event.body), null, 2);
  } catch {
    return event.body;
  }
}

/** What each endpoint's tries carry, one block per endpoint: a receiver debugging its verification reads these. */
const WAITING: Record<NonNullable<Delivery['waiting']>['reason'], string> = {
  retry: 'next try',
  breaker_open: 'held: the endpoint is failing; next try',
  concurrency: 'held: too many requests in flight',
  rate_limit: 'held by the rate limit; next try',
  paused: 'held: the endpoint is paused',
  ordering: 'waiting for an earlier event with the same ordering key',
  unverified: 'held: waiting for the endpoint to be verified',
};

/** Why a delivery waits, in words (— when it does not). */
const waitingText = (waiting: Delivery['waiting']) => (waiting ? h('span', {}, WAITING[waiting.reason], waiting.until ? ' ' : '', waiting.until ? ago(waiting.until) : '') : '—');

function requestHeaders(deliveries: Delivery[], names: Map<string, string>): HTMLElement[] {
  const shown = deliveries.filter((d) => d.request_headers !== null);
  if (!shown.length) return [h('p', { class: 'empty' }, 'No endpoint of yours still receives this event.')];
  return shown.map((d) =>
    h(
      'details',
      { open: true },
      h('summary', {}, names.get(d.destination_id) ?? d.destination_id),
      codeBlock(`request headers for ${names.get(d.destination_id) ?? 'this endpoint'}`, Object.entries(d.request_headers ?? {}).map(([name, value]) => `${name}: ${value}`).join('\n'), { class: 'headers' }),
    ),
  );
}

async function eventScreen(id: string) {
  const [{ data }, { data: endpoints }] = await Promise.all([
    api<{ event: PortalEvent; attempts: Attempt[] }>('GET', `/events/${encodeURIComponent(id)}`),
    api<PortalEndpoint[]>('GET', '/endpoints'),
  ]);
  const names = new Map(endpoints.map((e) => [e.id, e.name]));
  const { event, attempts } = data;
  const payload = codeBlock('payload', prettyPayload(event), { id: 'payload' });
  const link = event.body_url && /^https?:/.test(event.body_url) ? h('a', { href: event.body_url, rel: 'noreferrer' }, 'Download the payload') : null;
  const deliveries = event.deliveries.map((d) => {
    const resend = h('button', { type: 'button', class: 'resend secondary', disabled: !SETTLED.includes(d.status) || !names.has(d.destination_id) || event.payload_erased }, 'Resend');
    resend.addEventListener('click', async () => {
      try {
        const sent = await api<{ event_id: string }>('POST', `/events/${event.id}/resend`, { endpoint_id: d.destination_id });
        location.hash = `#/events/${sent.data.event_id}`;
      } catch (error) {
        fail(error);
      }
    });
    return [names.get(d.destination_id) ?? 'deleted endpoint', badge(d.status), String(d.attempts), waitingText(d.waiting), resend];
  });
  const attemptRows = attempts.map((a) => [
    String(a.attempt_number),
    names.get(a.destination_id) ?? 'deleted endpoint',
    badge(a.outcome),
    a.response_status === null ? '—' : String(a.response_status),
    `${a.duration_ms} ms`,
    ago(a.attempted_at),
    h('pre', { class: 'response' }, a.error ?? a.response_body),
  ]);
  const attemptTable = table('attempts', ['#', 'Endpoint', 'Outcome', 'Status', 'Time', 'At', 'Response'], attemptRows);
  for (const row of attemptTable.tBodies[0]?.rows ?? []) row.classList.add('attempt');
  view.replaceChildren(
    h('h1', {}, event.event_type ?? 'Event'),
    h('p', { id: 'event-status' }, badge(event.status), ' ', ago(event.created_at)),
    h(
      'dl',
      { id: 'event-facts' },
      h('dt', {}, 'Event id'),
      h('dd', {}, ...copyable('event id', event.id, 'event-id')),
      event.replay_of ? h('dt', {}, 'Copy of') : null,
      event.replay_of ? h('dd', {}, h('a', { id: 'original', class: 'id', href: `#/events/${event.replay_of}` }, event.replay_of)) : null,
      h('dt', {}, 'Content-Type'),
      h('dd', {}, h('code', {}, event.content_type ?? '—')),
    ),
    h('section', {}, h('h2', {}, 'Payload'), payload, link),
    h('section', {}, h('h2', {}, 'Deliveries'), table('deliveries', ['Endpoint', 'Status', 'Attempts', 'Waiting', ''], deliveries)),
    h('section', { id: 'request-headers' }, h('h2', {}, 'Request headers'), ...requestHeaders(event.deliveries, names)),
    h('section', {}, h('h2', {}, 'Attempts'), attempts.length ? attemptTable : h('p', { class: 'empty' }, 'No attempt yet.')),
  );
  // Watch the attempt appear: read the event again while a delivery is still under way.
  if (!SETTLED.includes(event.status)) {
    const timer = setTimeout(() => void render(true), 1000);
    stopPolling = () => clearTimeout(timer);
  }
}

// ------------------------------------------------------------------ AWS connections

/** A connection's check, in words: what the customer does next. */
const connectionBadge = (c: Pick<PortalAwsConnection, 'status'>) => badge(c.status === 'verified' ? 'verified' : c.status === 'failed' ? 'failed' : 'not verified');

async function connectionsScreen() {
  const { data: connections } = await api<PortalAwsConnection[]>('GET', '/aws-connections');
  const rows = connections.map((c) => [h('a', { href: `#/aws/${c.id}`, class: 'id' }, c.aws_account_id), h('span', { class: 'id' }, c.role_name), connectionBadge(c), ago(c.checked_at)]);
  const account = h('input', { name: 'aws_account_id', required: true, inputmode: 'numeric', pattern: '[0-9]{12}', placeholder: '123456789012' });
  const cancel = h('button', { type: 'button', class: 'quiet' }, 'Cancel');
  const form = h(
    'form',
    { id: 'add-connection' },
    h('p', { class: 'muted' }, 'No access key is needed: you create a role in your account that only these deliveries may use, from a template made for you.'),
    h('label', {}, 'AWS account id ', account),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Connect'), cancel),
  );
  const card = h('section', { id: 'add-connection-card', hidden: true }, h('h2', {}, 'Connect an AWS account'), form);
  const opener = h('button', { type: 'button', id: 'open-add-connection' }, 'Connect an AWS account');
  opener.addEventListener('click', () => {
    card.hidden = false;
    opener.hidden = true;
    card.scrollIntoView({ block: 'start' });
    account.focus({ preventScroll: true });
  });
  cancel.addEventListener('click', () => {
    card.hidden = true;
    opener.hidden = false;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const { data } = await api<PortalAwsConnection>('POST', '/aws-connections', { aws_account_id: account.value.trim() });
      location.hash = `#/aws/${data.id}`;
    } catch (error) {
      fail(error);
    }
  });
  view.replaceChildren(
    h('div', { class: 'heading' }, h('h1', {}, 'AWS connections'), connections.length ? opener : null),
    h('p', {}, 'Receive your webhooks in an SQS queue, SNS topic, EventBridge bus, Kinesis stream, Lambda function or S3 bucket of your own AWS account.'),
    connections.length
      ? table('connections', ['AWS account', 'Role', 'Status', 'Checked'], rows, true)
      : state('no-connections', 'No AWS account connected.', 'Connect one, then add an endpoint that delivers into it.', opener),
    card,
  );
}

/** Saves the template as a file: the portal's own request (the link's secret never goes into a URL). */
async function downloadTemplate(c: PortalAwsConnection) {
  const { data } = await api<unknown>('GET', `/aws-connections/${c.id}/template`);
  const file = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const link = h('a', { href: file, download: `${c.role_name}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(file), 10_000);
}

async function connectionScreen(id: string) {
  const { data: c } = await api<PortalAwsConnection>('GET', `/aws-connections/${encodeURIComponent(id)}`);
  const download = h('button', { type: 'button', id: 'download-template' }, 'Download template');
  download.addEventListener('click', () => void downloadTemplate(c).catch(fail));
  const verify = h('button', { type: 'button', id: 'verify', class: 'secondary' }, 'Verify');
  verify.addEventListener('click', async () => {
    try {
      const { data } = await api<AwsConnectionCheck>('POST', `/aws-connections/${c.id}/verify`);
      await render();
      if (data.status === 'verified') say('Verified: the role can be assumed.');
      else say(`Not verified. ${verifyWords(data.error, c.aws_account_id)}`, 'error');
    } catch (error) {
      fail(error);
    }
  });
  const remove = deleteButton(`/aws-connections/${c.id}`, '#/aws', 'connection');
  const command = `aws cloudformation deploy --stack-name ${c.role_name} --template-file ${c.role_name}.json --capabilities CAPABILITY_NAMED_IAM`;
  view.replaceChildren(
    h('h1', {}, `AWS account ${c.aws_account_id}`),
    h(
      'dl',
      { id: 'connection-facts' },
      h('dt', {}, 'Status'),
      h('dd', { id: 'connection-status' }, connectionBadge(c), c.checked_at ? ' ' : '', c.checked_at ? ago(c.checked_at) : ''),
      c.status === 'failed' ? h('dt', {}, 'Last check') : null,
      c.status === 'failed' ? h('dd', { id: 'connection-error' }, verifyWords(c.error, c.aws_account_id)) : null,
      h('dt', {}, 'Role'),
      h('dd', {}, ...copyable('role ARN', c.role_arn, 'role-arn')),
      h('dt', {}, 'External id'),
      h('dd', {}, ...copyable('external id', c.external_id, 'external-id')),
    ),
    h(
      'section',
      { id: 'connect-steps' },
      h('h2', {}, 'Set it up'),
      h(
        'ol',
        {},
        h('li', {}, 'Download the template: a CloudFormation stack with one IAM role, allowed to do exactly what your AWS endpoints need.'),
        h('li', {}, `Deploy it in AWS account ${c.aws_account_id}: in the CloudFormation console (Create stack, Upload a template file), or with the AWS CLI:`, codeBlock('AWS CLI command', command, { class: 'code command' })),
        h('li', {}, 'Verify: we assume the role once and show the result here.'),
        h('li', {}, 'Add an endpoint that delivers into your account with this connection. After adding or changing one, download the template again and update the stack.'),
      ),
      h('div', { class: 'actions' }, download, verify, h('a', { class: 'button secondary', id: 'add-aws-endpoint', href: `#/endpoints/new?connection=${c.id}` }, 'Add an endpoint')),
    ),
    h('section', {}, h('h2', {}, 'Trust policy'), codeBlock('trust policy', JSON.stringify(c.trust_policy, null, 2), { id: 'trust-policy', class: 'code' })),
    h('div', { class: 'actions' }, remove),
  );
}

// ------------------------------------------------------------------ docs

const SCHEME_NAMES: Record<PortalEndpoint['signature_scheme'], string> = {
  hookgate: 'Webhook-Signature',
  standard_webhooks: 'Standard Webhooks',
  ed25519: 'Ed25519 (public key)',
};

function snippetList(snippets: typeof SIGNATURE_SNIPPETS): HTMLElement[] {
  return snippets.map((s) => h('details', { open: true }, h('summary', {}, s.title), codeBlock(`${s.title} code`, s.code, { class: `code lang-${s.language}` })));
}

async function docsScreen() {
  const [{ data: types }, { data: endpoints }] = await Promise.all([api<EventType[]>('GET', '/event-types'), api<PortalEndpoint[]>('GET', '/endpoints')]);
  const standard = endpoints.filter((e) => e.signature_scheme === 'standard_webhooks').length;
  const ed25519 = endpoints.filter((e) => e.signature_scheme === 'ed25519').length;
  // The scheme most of the customer's endpoints use comes first: that is the code they need.
  const standardFirst = standard > endpoints.length - standard - ed25519;
  const ownScheme = endpoints.length
    ? h('p', { id: 'own-scheme', class: 'muted' }, `Your endpoints are signed with ${[...new Set(endpoints.map((e) => SCHEME_NAMES[e.signature_scheme]))].join(' and ')}.`)
    : null;
  const signature = [
    h('h2', {}, 'Verifying signatures'),
    h(
      'p',
      {},
      'Every delivery carries a Webhook-Signature header: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed with your endpoint’s signing secret. While a rotated secret overlaps, the header carries one v1 per secret: accept the delivery when any matches. Compare in constant time and refuse timestamps more than five minutes away.',
    ),
    ...snippetList(SIGNATURE_SNIPPETS),
  ];
  const standardWebhooks = [
    h('h2', {}, 'Standard Webhooks'),
    h('p', {}, 'Endpoints set to the Standard Webhooks scheme get webhook-id, webhook-timestamp and webhook-signature headers instead; the official libraries verify them with the endpoint’s whsec_ secret.'),
    ...snippetList(STANDARD_WEBHOOKS_SNIPPETS),
  ];
  // Shown first when the customer has such endpoints: their code differs from both HMAC schemes.
  const publicKeys = ed25519
    ? [
        h('h2', {}, 'Ed25519 signatures'),
        h(
          'p',
          { id: 'ed25519-docs' },
          'Endpoints set to Ed25519 get webhook-id, webhook-timestamp, webhook-signature: v1a,<base64 Ed25519 signature of "<webhook-id>.<webhook-timestamp>.<body>"> and webhook-key-id naming the key. Verify with that key from the public key set below (fetch it again when a delivery names a key it lacks: after a key rotation both signatures come for 24 hours). No secret is involved.',
        ),
        codeBlock('public key set URL', session?.jwks_url ?? '', { id: 'jwks-url', class: 'code' }),
      ]
    : [];
  view.replaceChildren(
    h('h1', {}, session?.brand.docs_title ?? 'Webhooks'),
    ...(ownScheme ? [ownScheme] : []),
    ...publicKeys,
    ...(standardFirst ? [...standardWebhooks, ...signature] : [...signature, ...standardWebhooks]),
    h('h2', {}, 'Event types'),
    types.length
      ? h(
          'dl',
          { id: 'catalog' },
          ...types.flatMap((t) => [
            h('dt', {}, h('code', {}, t.name)),
            h('dd', {}, t.description ?? '', t.schema ? codeBlock(`${t.name} schema`, JSON.stringify(t.schema, null, 2), { class: 'code' }) : null),
          ]),
        )
      : h('p', { class: 'empty' }, 'No event types are available yet.'),
  );
}

// ------------------------------------------------------------------ start

async function start(linkIgnored = false) {
  if (!token) {
    showRefused();
    return;
  }
  root.replaceChildren(state('loading', 'Loading…', 'Opening your webhooks.'));
  try {
    const [info, types] = await Promise.all([api<PortalSessionInfo>('GET', '/session'), api<EventType[]>('GET', '/event-types')]);
    session = info.data;
    catalog = types.data;
  } catch {
    return;
  }
  applyShell(session);
  await render();
  if (linkIgnored) say(ignoredLinkNotice(session.customer), 'warn');
}

window.addEventListener('hashchange', () => void route());
void start(takeLink() === 'ignored');
