import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from '../../lambdas/shared/resource-definitions';

export interface AlarmsProps {
  readonly deliveryQueue: sqs.IQueue;
  readonly deliveryDlq: sqs.IQueue;
  /** Oldest-message age above which the delivery queue is considered stuck. */
  readonly oldestMessageAgeThreshold: Duration;
  /** The functions whose error rate and throttles are watched, by a short name (`api`, `deliver`…). */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** The HTTP API whose 5xx rate is watched. */
  readonly httpApi: apigw.IHttpApi;
  /** Subscribed to the alarm topic when given (the address must confirm the subscription). */
  readonly email?: string;
  /** The `service` dimension of Hookgate's custom metrics (`hookgate-<stage>`). */
  readonly metricsService: string;
  /** The deliver function's logs, whose `delivery parked` and `delivery over its cap` lines are counted per destination. */
  readonly deliverLogGroup: logs.ILogGroup;
}

/** The window every rate alarm looks at. */
const RATE_WINDOW = Duration.minutes(5);
/** A function alarms when more than this share of its invocations failed within the window… */
export const FUNCTION_ERROR_RATE_PERCENT = 5;
/** …and at least this many did: one failed run of a once-a-minute job is not an incident. */
export const FUNCTION_MIN_ERRORS = 2;
/** The HTTP API alarms when more than this share of its requests got a 5xx within the window… */
export const API_5XX_RATE_PERCENT = 5;
/** …and at least this many did. */
export const API_MIN_5XX = 5;
/**
 * A standard queue stops handing out messages at about 120,000 in flight; the alarm leaves a margin to
 * act (docs/operations.md). Waits are delayed messages, not in-flight ones, so a healthy queue stays far below.
 */
const IN_FLIGHT_ALARM_THRESHOLD = 100_000;

/**
 * One destination parking this many deliveries within the window (its breaker open, paused, or over its
 * concurrency cap) is one to look at: a large and growing number of held deliveries.
 */
export const HELD_PER_DESTINATION_THRESHOLD = 1000;

const CLOUDWATCH = new iam.ServicePrincipal('cloudwatch.amazonaws.com');

/**
 * The service's alarms, all notifying one SNS topic (alarm and back to OK), encrypted with a key of
 * its own. Every alarm has a runbook in docs/operations.md, under its name without the stack prefix.
 *
 * Not the AWS-managed alias/aws/sns key: its key policy cannot be changed, CloudWatch gets no
 * kms:GenerateDataKey on it, and every alarm notification would fail with KMS AccessDenied while the
 * alarm itself still turns red in the console. A customer-managed key whose policy lets CloudWatch
 * use it is the only encrypted topic CloudWatch can publish to.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  /** Poison messages: the DLQ has at least one message. */
  readonly dlqNotEmpty: cloudwatch.Alarm;
  /** Nothing consumes the delivery queue: its oldest message is older than any retry wait. */
  readonly queueStuck: cloudwatch.Alarm;
  /** The delivery queue nears SQS's in-flight limit, past which nothing is delivered. */
  readonly inFlightNearCap: cloudwatch.Alarm;
  /** A destination's circuit breaker opened: its endpoint failed too many times in a row. */
  readonly breakerOpened: cloudwatch.Alarm;
  /** Counts parked deliveries per destination (Contributor Insights on the deliver logs). */
  readonly heldRule: cloudwatch.CfnInsightRule;
  /** One destination parked more than HELD_PER_DESTINATION_THRESHOLD deliveries within the window. */
  readonly destinationHolding: cloudwatch.Alarm;
  /** Per function: errors / invocations over the window. */
  readonly functionErrors: Readonly<Record<string, cloudwatch.Alarm>>;
  /** Per function: any throttled invocation within the window. */
  readonly functionThrottles: Readonly<Record<string, cloudwatch.Alarm>>;
  /** The HTTP API: 5xx / requests over the window. */
  readonly api5xx: cloudwatch.Alarm;
  /** Every alarm above. */
  readonly all: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;

    this.key = new kms.Key(this, 'TopicKey', {
      description: `${stackName} alarm topic`,
      enableKeyRotation: true,
      // It only encrypts alarm notifications in transit through SNS: nothing stored stays encrypted with it.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    // CloudWatch calls KMS itself when it publishes; the account-root statement does not cover a
    // service principal. No aws:Source* conditions here: the key serves this topic only, and the
    // topic policy below decides which alarms may publish.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [CLOUDWATCH],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );

    this.topic = new sns.Topic(this, 'Topic', {
      displayName: `${stackName} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    if (props.email !== undefined) {
      this.topic.addSubscription(new EmailSubscription(props.email));
    }

    this.dlqNotEmpty = new cloudwatch.Alarm(this, 'DlqNotEmpty', {
      alarmName: `${stackName}-delivery-dlq-not-empty`,
      alarmDescription:
        'Delivery tasks reached the DLQ: their messages failed maxReceiveCount times (poison message or crashing consumer). Inspect and redrive them (docs/operations.md).',
      metric: props.deliveryDlq.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // An idle queue reports no data: that is an empty DLQ, not an unknown state.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    const ageThreshold = props.oldestMessageAgeThreshold.toSeconds();
    this.queueStuck = new cloudwatch.Alarm(this, 'QueueStuck', {
      alarmName: `${stackName}-delivery-queue-stuck`,
      alarmDescription: `A delivery task has waited more than ${ageThreshold} s (longest retry wait plus margin): the deliver function is not consuming (docs/operations.md).`,
      metric: props.deliveryQueue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: ageThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    this.inFlightNearCap = new cloudwatch.Alarm(this, 'InFlightNearCap', {
      alarmName: `${stackName}-delivery-in-flight-near-cap`,
      alarmDescription: `More than ${IN_FLIGHT_ALARM_THRESHOLD} delivery messages are in flight; SQS stops handing out messages at about 120,000 (docs/operations.md).`,
      metric: props.deliveryQueue.metricApproximateNumberOfMessagesNotVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: IN_FLIGHT_ALARM_THRESHOLD,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    this.breakerOpened = new cloudwatch.Alarm(this, 'BreakerOpened', {
      alarmName: `${stackName}-destination-breaker-opened`,
      alarmDescription: `A destination's circuit breaker opened within ${RATE_WINDOW.toMinutes()} minutes: its endpoint failed or timed out repeatedly and its deliveries are held (GET /v1/destinations shows which; docs/operations.md).`,
      metric: new cloudwatch.Metric({
        namespace: METRICS.namespace,
        metricName: METRICS.names.breakerOpened,
        dimensionsMap: { service: props.metricsService },
        statistic: cloudwatch.Stats.SUM,
        period: RATE_WINDOW,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // Per destination without a custom metric per destination (each would cost $0.30 a month): a
    // Contributor Insights rule counts the deliver function's `delivery parked` and `delivery over
    // its cap` lines (each once per delivery) by destination.
    this.heldRule = new cloudwatch.CfnInsightRule(this, 'HeldByDestination', {
      ruleName: `${stackName}-held-by-destination`,
      ruleState: 'ENABLED',
      ruleBody: JSON.stringify({
        Schema: { Name: 'CloudWatchLogRule', Version: 1 },
        LogGroupNames: [props.deliverLogGroup.logGroupName],
        LogFormat: 'JSON',
        Contribution: { Keys: ['$.account_id', '$.destination_id'], Filters: [{ Match: '$.message', In: ['delivery parked', 'delivery over its cap'] }] },
        AggregateOn: 'Count',
      }),
    });
    this.destinationHolding = new cloudwatch.Alarm(this, 'DestinationHolding', {
      alarmName: `${stackName}-destination-holding-deliveries`,
      alarmDescription: `One destination parked more than ${HELD_PER_DESTINATION_THRESHOLD} deliveries within ${RATE_WINDOW.toMinutes()} minutes (breaker open, paused, or over its max_in_flight): the rule ${stackName}-held-by-destination names it (docs/operations.md).`,
      metric: new cloudwatch.MathExpression({
        expression: `INSIGHT_RULE_METRIC("${stackName}-held-by-destination", "MaxContributorValue")`,
        usingMetrics: {},
        period: RATE_WINDOW,
        label: 'deliveries parked by the busiest destination',
      }),
      threshold: HELD_PER_DESTINATION_THRESHOLD,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.destinationHolding.node.addDependency(this.heldRule);

    const functionErrors: Record<string, cloudwatch.Alarm> = {};
    const functionThrottles: Record<string, cloudwatch.Alarm> = {};
    for (const [name, fn] of Object.entries(props.functions)) {
      const suffix = pascalCase(name);
      functionErrors[name] = new cloudwatch.Alarm(this, `${suffix}Errors`, {
        alarmName: `${stackName}-${name}-errors`,
        alarmDescription: `The ${name} function failed more than ${FUNCTION_ERROR_RATE_PERCENT}% of its invocations (and at least ${FUNCTION_MIN_ERRORS}) over ${RATE_WINDOW.toMinutes()} minutes: crashes, timeouts or unhandled errors (docs/operations.md).`,
        metric: new cloudwatch.MathExpression({
          expression: `IF(errors >= ${FUNCTION_MIN_ERRORS}, 100 * errors / invocations, 0)`,
          usingMetrics: {
            errors: fn.metricErrors({ statistic: cloudwatch.Stats.SUM }),
            invocations: fn.metricInvocations({ statistic: cloudwatch.Stats.SUM }),
          },
          period: RATE_WINDOW,
          label: `${name} error rate (%)`,
        }),
        threshold: FUNCTION_ERROR_RATE_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // No invocations, no data: nothing failed.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      functionThrottles[name] = new cloudwatch.Alarm(this, `${suffix}Throttles`, {
        alarmName: `${stackName}-${name}-throttles`,
        alarmDescription: `Lambda throttled the ${name} function within ${RATE_WINDOW.toMinutes()} minutes: the account's or region's concurrency is exhausted (docs/operations.md).`,
        metric: fn.metricThrottles({ period: RATE_WINDOW, statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    this.functionErrors = functionErrors;
    this.functionThrottles = functionThrottles;

    this.api5xx = new cloudwatch.Alarm(this, 'Api5xx', {
      alarmName: `${stackName}-api-5xx`,
      alarmDescription: `More than ${API_5XX_RATE_PERCENT}% of HTTP API requests (and at least ${API_MIN_5XX}) got a 5xx over ${RATE_WINDOW.toMinutes()} minutes: the api or ingest function answers 500, times out or is throttled (docs/operations.md).`,
      metric: new cloudwatch.MathExpression({
        expression: `IF(serverErrors >= ${API_MIN_5XX}, 100 * serverErrors / requests, 0)`,
        usingMetrics: {
          serverErrors: props.httpApi.metricServerError({ statistic: cloudwatch.Stats.SUM }),
          requests: props.httpApi.metricCount({ statistic: cloudwatch.Stats.SUM }),
        },
        period: RATE_WINDOW,
        label: 'HTTP API 5xx rate (%)',
      }),
      threshold: API_5XX_RATE_PERCENT,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    this.all = [
      this.dlqNotEmpty,
      this.queueStuck,
      this.inFlightNearCap,
      this.breakerOpened,
      this.destinationHolding,
      ...Object.values(functionErrors),
      ...Object.values(functionThrottles),
      this.api5xx,
    ];
    const action = new SnsAction(this.topic);
    for (const alarm of this.all) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }

    // The enforceSSL topic policy replaces SNS's default one, which let the account's own services
    // publish: CloudWatch now needs an explicit allow, limited to these alarms.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [CLOUDWATCH],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnEquals: { 'aws:SourceArn': this.all.map((alarm) => alarm.alarmArn) },
        },
      }),
    );
  }
}

const pascalCase = (name: string) => name.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());
