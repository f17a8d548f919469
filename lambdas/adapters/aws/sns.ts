import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, attributedMessage, type AwsMessage, type AwsSent } from './message';

/** As for SQS; a topic's subscriptions may filter on the attributes (the event type, say). */
export async function publishToTopic(target: Extract<AwsTarget, { type: 'aws_sns' }>, message: AwsMessage): Promise<AwsSent> {
  const { text, ...sent } = attributedMessage(target, message);
  const client = targetClient('sns', regionOf(target), message.credentials, (config) => new SNSClient(config));
  const output = await client.send(new PublishCommand({ TopicArn: target.topic_arn, Message: text, ...sent }), { abortSignal: message.signal });
  return answered(output, { message_id: output.MessageId });
}
