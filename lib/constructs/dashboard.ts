import { Aws, Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from '../../lambdas/shared/resource-definitions';
import type { Alarms } from './alarms';

export interface DashboardProps {
  /** Part of the dashboard's name: `Hookgate-<stage>-<region>`. */
  readonly stage: string;
  /** The `service` dimension the functions give their custom metrics. */
  readonly metricsService: string;
  readonly deliveryQueue: sqs.IQueue;
  readonly deliveryDlq: sqs.IQueue;
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly httpApi: apigw.IHttpApi;
  readonly alarms: Alarms;
}

const MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

/**
 * One CloudWatch dashboard per stage and region: the pipeline's own metrics (namespace `Hookgate`),
 * the queues, every function, the HTTP API, and the state of every alarm.
 */
export class Dashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly dashboardName: string;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const { metricsService: service, functions, httpApi, alarms } = props;
    // Dashboards are global to the account: the region keeps two regions' stages apart.
    this.dashboardName = `Hookgate-${props.stage}-${Aws.REGION}`;

    const custom = (metricName: string, statistic: string, label: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({
        namespace: METRICS.namespace,
        metricName,
        dimensionsMap: { service, ...dimensions },
        statistic,
        period: statistic === cloudwatch.Stats.SUM ? MINUTE : FIVE_MINUTES,
        label,
      });
    // One line per value of a dimension, whatever values show up (outcomes, providers).
    const byDimension = (metricName: string, dimension: string) =>
      new cloudwatch.SearchExpression({
        expression: `SEARCH('{${METRICS.namespace},${dimension},service} service="${service}" MetricName="${metricName}"', 'Sum', 60)`,
        period: MINUTE,
      });
    const perFunction = (metric: (fn: lambda.IFunction, label: string) => cloudwatch.IMetric) =>
      Object.entries(functions).map(([name, fn]) => metric(fn, name));
    const names = METRICS.names;

    const text = new cloudwatch.TextWidget({
      width: 24,
      height: 2,
      markdown: [
        `# Hookgate ${props.stage}`,
        `Custom metrics: namespace \`${METRICS.namespace}\`, dimension \`service = ${service}\`. Every alarm below has a runbook in \`docs/operations.md\`.`,
      ].join('\n'),
    });

    const pipeline = [
      new cloudwatch.GraphWidget({
        title: 'Events ingested (per minute)',
        width: 6,
        left: [
          custom(names.ingested, cloudwatch.Stats.SUM, 'inbound', { direction: 'inbound' }),
          custom(names.ingested, cloudwatch.Stats.SUM, 'outbound', { direction: 'outbound' }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Deliveries (per minute)',
        width: 6,
        left: [
          custom(names.delivered, cloudwatch.Stats.SUM, 'delivered'),
          custom(names.deliveryFailed, cloudwatch.Stats.SUM, 'failed tries'),
          custom(names.deadLettered, cloudwatch.Stats.SUM, 'dead-lettered'),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Delivery attempts by outcome (per minute)',
        width: 6,
        left: [byDimension(names.deliveryAttempts, 'outcome')],
      }),
      new cloudwatch.GraphWidget({
        title: 'Delivery latency, received to delivered (ms)',
        width: 6,
        left: [
          custom(names.deliveryLatency, cloudwatch.Stats.p(50), 'p50'),
          custom(names.deliveryLatency, cloudwatch.Stats.p(99), 'p99'),
        ],
      }),
    ];

    const queues = [
      new cloudwatch.GraphWidget({
        title: 'Verification rejects by provider (per minute)',
        width: 6,
        left: [byDimension(names.verificationRejected, 'provider')],
      }),
      new cloudwatch.GraphWidget({
        title: 'Delivery queue depth',
        width: 6,
        left: [
          props.deliveryQueue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM, label: 'waiting' }),
          props.deliveryQueue.metricApproximateNumberOfMessagesDelayed({ period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM, label: 'delayed (retries waiting)' }),
          props.deliveryQueue.metricApproximateNumberOfMessagesNotVisible({ period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM, label: 'in flight' }),
        ],
        leftAnnotations: [alarms.inFlightNearCap.toAnnotation()],
      }),
      new cloudwatch.GraphWidget({
        title: 'Destination breakers (per minute)',
        width: 6,
        left: [
          custom(names.breakerOpened, cloudwatch.Stats.SUM, 'opened'),
          custom(names.breakerRecovered, cloudwatch.Stats.SUM, 'recovered'),
          byDimension(names.deliveryEnded, 'reason'),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Delivery queue: oldest message age (s)',
        width: 6,
        left: [alarms.queueStuck.metric],
        leftAnnotations: [alarms.queueStuck.toAnnotation()],
      }),
      new cloudwatch.GraphWidget({
        title: 'DLQ depth',
        width: 6,
        left: [alarms.dlqNotEmpty.metric],
        leftAnnotations: [alarms.dlqNotEmpty.toAnnotation()],
      }),
    ];

    const lambdas = [
      new cloudwatch.GraphWidget({
        title: 'Lambda errors',
        width: 8,
        left: perFunction((fn, label) => fn.metricErrors({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label })),
      }),
      new cloudwatch.GraphWidget({
        title: 'Lambda throttles',
        width: 8,
        left: perFunction((fn, label) => fn.metricThrottles({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label })),
      }),
      new cloudwatch.GraphWidget({
        title: 'Lambda duration p99 (ms)',
        width: 8,
        left: perFunction((fn, label) => fn.metricDuration({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99), label })),
      }),
    ];

    const api = [
      new cloudwatch.GraphWidget({
        title: 'Lambda invocations',
        width: 8,
        left: perFunction((fn, label) => fn.metricInvocations({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label })),
      }),
      new cloudwatch.GraphWidget({
        title: 'HTTP API requests, 4xx and 5xx (per minute)',
        width: 8,
        left: [httpApi.metricCount({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label: 'requests' })],
        right: [
          httpApi.metricClientError({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label: '4xx' }),
          httpApi.metricServerError({ period: MINUTE, statistic: cloudwatch.Stats.SUM, label: '5xx' }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'HTTP API latency (ms)',
        width: 8,
        left: [
          httpApi.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(50), label: 'p50' }),
          httpApi.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99), label: 'p99' }),
          httpApi.metricIntegrationLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99), label: 'integration p99' }),
        ],
      }),
    ];

    const alarmStatus = new cloudwatch.AlarmStatusWidget({
      title: 'Alarms',
      width: 24,
      height: 4,
      alarms: [...alarms.all],
    });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: this.dashboardName,
      defaultInterval: Duration.hours(3),
      widgets: [[text], pipeline, queues, lambdas, api, [alarmStatus]],
    });
  }
}
