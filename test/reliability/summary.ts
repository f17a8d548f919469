import { appendFileSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';

/** What the reliability suite counts, summed over every test file of a run. */
export interface Figures {
  /** Faults the suite injected: failing or throttled AWS calls, crashes, hostile destinations, poison messages, refused URLs. */
  faultsInjected: number;
  /** Malformed or hostile requests sent to the gateway. */
  badInputsTried: number;
  /** Events answered 202/201 whose delivery the suite then checked. */
  accepted: number;
  /** Of those, the ones a destination received at least once. */
  delivered: number;
  /** Accepted and shown never to be delivered (its delivery ended without success). Must be 0. */
  lost: number;
  /**
   * Accepted and not yet delivered when a test's deadline passed: a timeout (that test fails, saying so),
   * not a loss: nothing shows them gone, only slow.
   */
  undelivered: number;
  /** 5xx answers to bad input. Must be 0. */
  badInput5xx: number;
}

const EMPTY_FIGURES: Figures = { faultsInjected: 0, badInputsTried: 0, accepted: 0, delivered: 0, lost: 0, undelivered: 0, badInput5xx: 0 };

declare module 'vitest' {
  export interface ProvidedContext {
    reliabilitySummaryFile: string;
  }
}

/**
 * Adds figures to this run's tally. Vitest runs each file in its own process, so the tally is a file
 * (one JSON line per record) that the global setup created and sums up at the end.
 */
export function recordFigures(source: string, figures: Partial<Figures>): void {
  appendFileSync(inject('reliabilitySummaryFile'), `${JSON.stringify({ source, ...figures })}\n`);
}

/** Sums a tally file; per source as well, for the report. */
export function readTally(file: string): { total: Figures; bySource: Map<string, Figures> } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // nothing recorded
  }
  const total: Figures = { ...EMPTY_FIGURES };
  const bySource = new Map<string, Figures>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const { source, ...figures } = JSON.parse(line) as Partial<Figures> & { source: string };
    const mine = bySource.get(source) ?? { ...EMPTY_FIGURES };
    for (const name of Object.keys(EMPTY_FIGURES) as Array<keyof Figures>) {
      const value = Number(figures[name] ?? 0);
      total[name] += value;
      mine[name] += value;
    }
    bySource.set(source, mine);
  }
  return { total, bySource };
}

export function formatSummary(total: Figures): string {
  return (
    `Reliability summary: faults injected ${total.faultsInjected}, bad inputs tried ${total.badInputsTried}, ` +
    `accepted ${total.accepted}, delivered ${total.delivered}, lost ${total.lost}, ` +
    `not delivered by a deadline ${total.undelivered}, 5xx on bad input ${total.badInput5xx}`
  );
}
