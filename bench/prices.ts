/**
 * AWS list prices used by the benchmark, us-east-1, in US dollars. Taken on 2026-11-21 from the public
 * pricing pages (no free tier, no savings plans, no reserved capacity):
 *
 * - API Gateway HTTP API: https://aws.amazon.com/api-gateway/pricing/ (first 300 million requests a
 *   month; a request is metered in 512 KB increments)
 * - Lambda: https://aws.amazon.com/lambda/pricing/ (requests; arm64 duration, first 6 billion GB-s a
 *   month; duration is rounded up to 1 ms)
 * - DynamoDB on-demand: https://aws.amazon.com/dynamodb/pricing/on-demand/ (standard table class;
 *   request units, and on the same page the two monthly charges on what the table holds, whichever the
 *   capacity mode: data storage, $0.25 per GB-month after the first 25 GB, each item's bytes plus 100,
 *   and each global secondary index item's, projected attributes and keys, plus 100; continuous backups
 *   (point-in-time recovery, on in lib/stateful-stack.ts), $0.20 per GB-month of the table's size,
 *   which leaves global secondary indexes out)
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
  dynamoStoragePerGbMonth: 0.25,
  dynamoPitrPerGbMonth: 0.2,
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
/**
 * Traffic that swings (a daily peak, bursts): capacity scaled for the peak is paid through the troughs,
 * and scale-downs are few, so the average use of what is paid sits well under the target.
 */
export const PROVISIONED_UTILIZATION_SWINGING = 0.4;
export const provisionedPerWriteUnit = (utilization: number) => PRICES.dynamoProvisionedPerWcuHour / 3600 / utilization;
export const provisionedPerReadUnit = (utilization: number) => PRICES.dynamoProvisionedPerRcuHour / 3600 / utilization;

/** DynamoDB bills each item's bytes plus this much, in the table and in each index it projects into. */
export const DYNAMO_ITEM_STORAGE_OVERHEAD_BYTES = 100;
/**
 * How long what a webhook writes is priced as stored (storage and continuous backups): the retention a
 * customer keeps its events for, of a 30-day month, so each webhook's bytes are paid for one month.
 */
export const STORAGE_RETENTION_DAYS = 30;
export const DAYS_PER_MONTH = 30;

/** CloudWatch Logs bills the event's bytes plus this much metadata per log event. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

/** Scheduled runs in a 30-day month: per minute and per hour. */
export const MINUTES_PER_MONTH = DAYS_PER_MONTH * 24 * 60;
export const HOURS_PER_MONTH = DAYS_PER_MONTH * 24;
