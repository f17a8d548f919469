import type { Attempt, EventDetail, EventListItem } from '../../typescript/src/index.js';
import { terminalBlock, terminalLine } from './sanitise.js';

/**
 * Lines for a person. Every value here comes from the gateway or a sender, so each is escaped on its
 * own with `terminalLine`: a line break inside an event type must not start a line of its own
 * (output.ts keeps line breaks, which a body needs).
 */
const text = (value: string | number | null | undefined, none = '-'): string => (value === null || value === undefined ? none : terminalLine(String(value)));

/** Destination names by id, for showing beside the ids; an id it does not know is shown alone. */
export type DestinationNames = ReadonlyMap<string, string>;

/** `orders-api (0193…)`, or the id alone when the destination's name is not known (deleted since). */
function destinationLabel(id: string, names: DestinationNames): string {
  const name = names.get(id);
  return name === undefined ? text(id) : `${text(name)} (${text(id)})`;
}

/** One line per event for `events tail`: time, direction, status, type, id. */
export function eventLine(event: EventListItem): string {
  return [text(event.created_at), text(event.direction).padEnd(8), text(event.status).padEnd(15), text(event.event_type).padEnd(24), text(event.id)].join('  ');
}

function attemptLine(attempt: Attempt, names: DestinationNames): string {
  const answer = attempt.response_status === null ? text(attempt.error ?? attempt.outcome) : `${text(attempt.outcome)} ${attempt.response_status}`;
  return `  #${attempt.attempt_number}  ${text(attempt.attempted_at)}  ${destinationLabel(attempt.destination_id, names)}  ${answer}  ${attempt.duration_ms} ms`;
}

type Waiting = NonNullable<EventDetail['deliveries'][number]['waiting']>;

/** What a wait is for, when it says: the earlier event of its ordering key it is behind, or its time. */
const waitsFor = (waiting: Waiting): string | undefined =>
  waiting.behind ? `behind ${text(waiting.behind)}` : waiting.until ? `until ${text(waiting.until)}` : undefined;

/** `events get` for a person: the event, its deliveries and attempts, then the body when it is text, escaped. */
export function eventDetailLines(event: EventDetail, attempts: readonly Attempt[], names: DestinationNames = new Map()): string[] {
  const lines = [`${text(event.id)}  ${text(event.direction)}  ${text(event.event_type, '(no type)')}  ${text(event.status)}`, `  created      ${text(event.created_at)}`];
  if (event.source_id) lines.push(`  source       ${text(event.source_id)}`);
  if (event.customer) lines.push(`  customer     ${text(event.customer)}`);
  if (event.external_event_id) lines.push(`  external id  ${text(event.external_event_id)}`);
  if (event.ordering_key) lines.push(`  ordering key ${text(event.ordering_key)}`);
  if (event.webhook_id !== event.id) lines.push(`  webhook id   ${text(event.webhook_id)}`);
  if (event.replay_of) lines.push(`  replay of    ${text(event.replay_of)}`);
  if (event.replayed_by) lines.push(`  replayed by  ${text(event.replayed_by)}`);
  lines.push(`  body         ${event.body_size} bytes${event.content_type ? `, ${text(event.content_type)}` : ''}`);
  lines.push(event.deliveries.length === 0 ? 'deliveries: none (no route matched)' : 'deliveries:');
  for (const delivery of event.deliveries) {
    const waiting = delivery.waiting ? `, waiting (${text(delivery.waiting.reason)}) ${waitsFor(delivery.waiting) ?? 'until unknown'}` : '';
    const ended = delivery.end_reason ? `, ${text(delivery.end_reason)}` : '';
    lines.push(`  ${destinationLabel(delivery.destination_id, names)}  ${text(delivery.status)}  ${delivery.attempts} attempt(s)${ended}${waiting}`);
  }
  if (attempts.length > 0) lines.push('attempts:', ...attempts.map((attempt) => attemptLine(attempt, names)));
  // The body keeps its line breaks and tabs (output.ts escapes every other control in it); --raw prints it unescaped.
  if (event.body_encoding === 'utf8' && event.body !== null) {
    const escaped = terminalBlock(event.body) !== event.body;
    lines.push(escaped ? 'body (control characters shown escaped, as \\x1b; --raw prints it as sent):' : 'body:', event.body);
  }
  else if (event.body_encoding === 'base64') lines.push('body: binary (--raw writes its bytes, --json shows it in base64)');
  else if (event.body_url) lines.push(`body: too large to show inline; download it (5 minutes) from ${text(event.body_url)}`);
  return lines;
}

/** The deliveries of an event that have not ended, one phrase each: what `replay` names when it refuses an event in flight. */
export function pendingDeliveries(event: EventDetail, names: DestinationNames): string[] {
  return event.deliveries
    .filter((delivery) => delivery.status !== 'delivered' && delivery.status !== 'dead_letter')
    .map((delivery) => {
      const until = delivery.waiting?.until ?? delivery.next_attempt_at;
      const waitingFor = delivery.waiting && (waitsFor(delivery.waiting) ?? (until ? `until ${text(until)}` : undefined));
      const when = delivery.waiting
        ? `waiting (${text(delivery.waiting.reason)})${waitingFor ? ` ${waitingFor}` : ''}`
        : until
          ? `next try at ${text(until)}`
          : 'a try due or under way';
      return `${destinationLabel(delivery.destination_id, names)} ${text(delivery.status)} after ${delivery.attempts} attempt(s), ${when}`;
    });
}
