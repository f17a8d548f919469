import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface DeliveryAlarmsProps {
  readonly deliveryQueue: sqs.IQueue;
  readonly deliveryDlq: sqs.IQueue;
  /** Oldest-message age above which the delivery queue is considered stuck. */
  readonly oldestMessageAgeThreshold: Duration;
  /** Subscribed to the alarm topic when given (the address must confirm the subscription). */
  readonly email?: string;
}

const CLOUDWATCH = new iam.ServicePrincipal('cloudwatch.amazonaws.com');

/**
 * Alarms on the delivery queues, published to an SNS topic encrypted with a key of its own.
 *
 * Not the AWS-managed alias/aws/sns key: its key policy cannot be changed, CloudWatch gets no
 * kms:GenerateDataKey on it, and every alarm notification would fail with KMS AccessDenied while the
 * alarm itself still turns red in the console. A customer-managed key whose policy lets CloudWatch
 * use it is the only encrypted topic CloudWatch can publish to.
 */
export class DeliveryAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  readonly dlqNotEmpty: cloudwatch.Alarm;
  readonly queueStuck: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: DeliveryAlarmsProps) {
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
        'Delivery tasks reached the DLQ: their messages failed maxReceiveCount times (poison message or crashing consumer). Inspect and redrive them.',
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

    const threshold = props.oldestMessageAgeThreshold.toSeconds();
    this.queueStuck = new cloudwatch.Alarm(this, 'QueueStuck', {
      alarmName: `${stackName}-delivery-queue-stuck`,
      alarmDescription: `A delivery task has waited more than ${threshold} s (longest retry wait plus margin): the deliver function is not consuming.`,
      metric: props.deliveryQueue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    const action = new SnsAction(this.topic);
    for (const alarm of [this.dlqNotEmpty, this.queueStuck]) {
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
          ArnEquals: { 'aws:SourceArn': [this.dlqNotEmpty.alarmArn, this.queueStuck.alarmArn] },
        },
      }),
    );
  }
}
