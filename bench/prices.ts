/**
 * AWS list prices used by the benchmark, us-east-1, in US dollars. Taken on 2026-11-21 from the public
 * pricing pages (no free tier, no savings plans, no reserved capacity):
 *
 * - API Gateway HTTP API: https://aws.amazon.com/api-gateway/pricing/ (first 300 million requests a
 *   month; a request is metered in 512 KB increments)
 * - Lambda: https://aws.amazon.com/lambda/pricing/ (requests; arm64 duration, first 6 billion GB-s a
 *   month; duration is rounded up to 1 ms)
 * - DynamoDB on-demand: https://aws.amazon.com/dynamodb/pricing/on-demand/ (standard table class)
 * - DynamoDB provisioned capacity: https://aws.amazon.com/dynamodb/pricing/provisioned/ (standard table
 *   class, $0.00065 per WCU-hour and $0.00013 per RCU-hour; the same units as on-demand's request units:
 *   one 1 KB write, one 4 KB strongly consistent read or two eventually consistent ones, per second)
 * - SQS standard queue: https://aws.amazon.com/sqs/pricing/ (every 64 KB chunk of a request's payload
 *   is one request)
 * - S3 Standard requests: https://aws.amazon.com/s3/pricing/ (DELETE is free)
 * - CloudWatch Logs standard ingestion: https://aws.amazon.com/cloudwatch/pricing/
 *
 * Keep every price in this one file; bump PRICES_AS_OF when they change.
 */
export const PRICES_AS_OF = '2026-11-21';
export const PRICE_REGION = 'us-east-1';

export const PRICES = {
  apiGatewayHttpPerRequest: 1.0 / 1e6,
  /** HTTP API requests are metered in 512 KB increments. */
  apiGatewayMeterBytes: 512 * 1024,
  lambdaPerRequest: 0.2 / 1e6,
  lambdaArmPerGbSecond: 0.0000133334,
  dynamoPerWriteRequestUnit: 0.625 / 1e6,
  dynamoPerReadRequestUnit: 0.125 / 1e6,
  dynamoProvisionedPerWcuHour: 0.00065,
  dynamoProvisionedPerRcuHour: 0.00013,
  sqsPerRequest: 0.4 / 1e6,
  /** Each 64 KB chunk of a request's payload is billed as one request. */
  sqsChunkBytes: 64 * 1024,
  s3PutCopyPostListPerRequest: 0.005 / 1000,
  s3GetPerRequest: 0.0004 / 1000,
  logsIngestionPerGb: 0.5,
} as const;

/**
 * Provisioned capacity is paid whether used or not; auto scaling keeps it near this share of what is
 * consumed (lib/stateful-stack.ts, TARGET_UTILIZATION_PERCENT). So a unit consumed costs the hourly
 * price of a unit for one second, divided by the utilisation: $0.26 per million writes, $0.05 per
 * million reads. Steady traffic only: scaling lags a burst by minutes, and scales down at most a few
 * times a day.
 */
export const PROVISIONED_UTILIZATION = 0.7;
export const PROVISIONED_PER_WRITE_UNIT = PRICES.dynamoProvisionedPerWcuHour / 3600 / PROVISIONED_UTILIZATION;
export const PROVISIONED_PER_READ_UNIT = PRICES.dynamoProvisionedPerRcuHour / 3600 / PROVISIONED_UTILIZATION;

/** CloudWatch Logs bills the event's bytes plus this much metadata per log event. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

/** Scheduled runs in a 30-day month: per minute and per hour. */
export const MINUTES_PER_MONTH = 30 * 24 * 60;
export const HOURS_PER_MONTH = 30 * 24;
