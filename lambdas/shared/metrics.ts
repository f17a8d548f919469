import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ENV, METRICS, metricsService } from './resource-definitions';
import { debugLogging, log, runningInLambda } from './log';
import type { Direction } from '../domain/vocabulary';

/**
 * CloudWatch metrics in Embedded Metric Format through Powertools Metrics: recorded during an
 * invocation, written as JSON lines on stdout when it ends (`flushMetrics`, run by the handlers'
 * middleware), and turned into metrics by CloudWatch Logs: no API call, no latency on the hot path.
 * Namespace `Hookgate`; every metric has the dimension `service` (`hookgate-<stage>`), some one more.
 *
 * HOOKGATE_METRICS=off records nothing; POWERTOOLS_METRICS_DISABLED=true records but prints nothing.
 * The local runtime (HOOKGATE_LOCAL=1) has no CloudWatch to turn the lines into metrics: there they
 * are printed only with HOOKGATE_LOG_LEVEL=debug, so they do not drown the log.
 */

/** Powertools' own notices (an invalid dimension…) go through our logger. */
const notices = {
  debug: () => undefined,
  info: (...content: unknown[]) => log.info(content.map(String).join(' ')),
  warn: (...content: unknown[]) => log.warn(content.map(String).join(' ')),
  error: (...content: unknown[]) => log.error(content.map(String).join(' ')),
};

/** One EMF document per set of dimension values; values of a metric within one accumulate. */
class MetricsBuffer extends Metrics {
  /** Writes what was recorded, if anything. */
  flush(): void {
    if (!this.hasStoredMetrics()) return;
    if (runningInLambda()) {
      // Powertools' own console: a raw JSON line, not one the Lambda runtime's console prefixes.
      this.publishStoredMetrics();
      return;
    }
    // Locally through the global console, so the local runtime's output (and tests) see the line.
    const document = this.serializeMetrics();
    this.clearMetrics();
    const asked = process.env.HOOKGATE_LOCAL !== '1' || debugLogging();
    if (!this.isDisabled() && asked) console.log(JSON.stringify(document));
  }
}

const buffers = new Map<string, MetricsBuffer>();

function buffer(dimensions: Record<string, string>): MetricsBuffer {
  const key = JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)));
  let found = buffers.get(key);
  if (!found) {
    found = new MetricsBuffer({
      namespace: METRICS.namespace,
      serviceName: metricsService(process.env[ENV.stage]),
      defaultDimensions: dimensions,
      logger: notices,
    });
    buffers.set(key, found);
  }
  return found;
}

const enabled = () => process.env.HOOKGATE_METRICS !== 'off';

/** Records a count; written at the end of the invocation. */
export function countMetric(name: string, dimensions: Record<string, string> = {}, value = 1): void {
  if (enabled()) buffer(dimensions).addMetric(name, MetricUnit.Count, value);
}

function millisecondsMetric(name: string, value: number): void {
  if (enabled() && Number.isFinite(value)) buffer({}).addMetric(name, MetricUnit.Milliseconds, Math.max(0, value));
}

/** Writes every metric recorded so far. Once per invocation (the middleware), and whenever else wanted. */
export function flushMetrics(): void {
  for (const metrics of buffers.values()) metrics.flush();
}

/** An event was persisted and queued (ingest, publish or replay). */
export function recordIngested(direction: Direction): void {
  countMetric(METRICS.names.ingested, { direction });
}

/** A webhook was refused for its signature: an attack, or a secret out of date at one end. */
export function recordVerificationRejected(provider: string): void {
  countMetric(METRICS.names.verificationRejected, { provider });
}

/** One try of one delivery, once its outcome is known. */
export function recordDeliveryAttempt(attempt: {
  outcome: string;
  /** The last try failed: the delivery is `dead_letter` now. */
  deadLettered: boolean;
  /** When the event was received (its `received_at`). */
  receivedAt: string;
  attemptedAt: Date;
}): void {
  countMetric(METRICS.names.deliveryAttempts, { outcome: attempt.outcome });
  if (attempt.outcome === 'success') {
    countMetric(METRICS.names.delivered);
    millisecondsMetric(METRICS.names.deliveryLatency, attempt.attemptedAt.getTime() - Date.parse(attempt.receivedAt));
    return;
  }
  countMetric(METRICS.names.deliveryFailed);
  if (attempt.deadLettered) countMetric(METRICS.names.deadLettered);
}

/** A destination's breaker opened or closed again: what the breaker alarm and the dashboard count. */
export function recordBreakerTransition(transition: 'opened' | 'recovered'): void {
  countMetric(transition === 'opened' ? METRICS.names.breakerOpened : METRICS.names.breakerRecovered);
}

/** A delivery ended without a try (its destination deleted, inactive or gone). */
export function recordDeliveryEnded(reason: string): void {
  countMetric(METRICS.names.deliveryEnded, { reason });
  countMetric(METRICS.names.deadLettered);
}
