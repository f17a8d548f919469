import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { attributedMessageBytes, messageAttributes, messageText } from '../../domain/aws-messages';
import { isFifo, regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, checkSize, stringAttributes, type AwsMessage, type AwsSent } from './message';

/** As for SQS: the body as the message, the signed headers as its attributes (subscriptions may filter on them). */
export async function publishToTopic(target: Extract<AwsTarget, { type: 'aws_sns' }>, message: AwsMessage): Promise<AwsSent> {
  const text = messageText(message.body);
  const attributes = messageAttributes(message.headers, text.encoding);
  checkSize(target, attributedMessageBytes(text, attributes));
  const client = targetClient('sns', regionOf(target), message.credentials, (config) => new SNSClient(config));
  const output = await client.send(
    new PublishCommand({
      TopicArn: target.topic_arn,
      Message: text.text,
      MessageAttributes: stringAttributes(attributes),
      ...(isFifo(target) && { MessageGroupId: message.destinationId, MessageDeduplicationId: message.eventId }),
    }),
    { abortSignal: message.signal },
  );
  return answered(output, { message_id: output.MessageId });
}
