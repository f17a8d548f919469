/**
 * CloudWatch metrics in Embedded Metric Format: one JSON log line per data point, turned into a
 * metric by CloudWatch Logs (no API call, no extra latency). Namespace `Hookgate`.
 */
export function countMetric(name: string, dimensions: Record<string, string>, value = 1): void {
  if (process.env.HOOKGATE_METRICS === 'off') return;
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: 'Hookgate', Dimensions: [Object.keys(dimensions)], Metrics: [{ Name: name, Unit: 'Count' }] }],
      },
      ...dimensions,
      [name]: value,
    }),
  );
}
