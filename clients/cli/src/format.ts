import type { Attempt, EventDetail, EventListItem } from '../../typescript/src/index.js';

/** One line per event for `events tail`: time, direction, status, type, id. */
export function eventLine(event: EventListItem): string {
  return [event.created_at, event.direction.padEnd(8), event.status.padEnd(15), (event.event_type ?? '-').padEnd(24), event.id].join('  ');
}

function attemptLine(attempt: Attempt): string {
  const answer = attempt.response_status === null ? (attempt.error ?? attempt.outcome) : `${attempt.outcome} ${attempt.response_status}`;
  return `  #${attempt.attempt_number}  ${attempt.attempted_at}  ${attempt.destination_id}  ${answer}  ${attempt.duration_ms} ms`;
}

/** `events get` for a person: the event, its deliveries and attempts, then the body when it is text. */
export function eventDetailLines(event: EventDetail, attempts: readonly Attempt[]): string[] {
  const lines = [
    `${event.id}  ${event.direction}  ${event.event_type ?? '(no type)'}  ${event.status}`,
    `  created      ${event.created_at}`,
  ];
  if (event.source_id) lines.push(`  source       ${event.source_id}`);
  if (event.customer) lines.push(`  customer     ${event.customer}`);
  if (event.external_event_id) lines.push(`  external id  ${event.external_event_id}`);
  if (event.webhook_id !== event.id) lines.push(`  webhook id   ${event.webhook_id}`);
  if (event.replay_of) lines.push(`  replay of    ${event.replay_of}`);
  if (event.replayed_by) lines.push(`  replayed by  ${event.replayed_by}`);
  lines.push(`  body         ${event.body_size} bytes${event.content_type ? `, ${event.content_type}` : ''}`);
  lines.push(event.deliveries.length === 0 ? 'deliveries: none (no route matched)' : 'deliveries:');
  for (const delivery of event.deliveries) {
    const waiting = delivery.waiting ? `, waiting (${delivery.waiting.reason}) until ${delivery.waiting.until ?? 'unknown'}` : '';
    const ended = delivery.end_reason ? `, ${delivery.end_reason}` : '';
    lines.push(`  ${delivery.destination_id}  ${delivery.status}  ${delivery.attempts} attempt(s)${ended}${waiting}`);
  }
  if (attempts.length > 0) lines.push('attempts:', ...attempts.map(attemptLine));
  if (event.body_encoding === 'utf8' && event.body !== null) lines.push('body:', event.body);
  else if (event.body_encoding === 'base64') lines.push('body: binary (--json shows it in base64)');
  else if (event.body_url) lines.push(`body: too large to show inline; download it (5 minutes) from ${event.body_url}`);
  return lines;
}
