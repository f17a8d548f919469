import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { attributedMessageBytes, messageAttributes, messageText } from '../../domain/aws-messages';
import { isFifo, regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, checkSize, stringAttributes, type AwsMessage, type AwsSent } from './message';

/** The body as the message, the signed headers as its attributes; a FIFO queue orders by destination and de-duplicates by event. */
export async function sendToQueue(target: Extract<AwsTarget, { type: 'aws_sqs' }>, message: AwsMessage): Promise<AwsSent> {
  const text = messageText(message.body);
  const attributes = messageAttributes(message.headers, text.encoding);
  checkSize(target, attributedMessageBytes(text, attributes));
  const client = targetClient('sqs', regionOf(target), message.credentials, (config) => new SQSClient(config));
  const output = await client.send(
    new SendMessageCommand({
      QueueUrl: target.queue_url,
      MessageBody: text.text,
      MessageAttributes: stringAttributes(attributes),
      ...(isFifo(target) && { MessageGroupId: message.destinationId, MessageDeduplicationId: message.eventId }),
    }),
    { abortSignal: message.signal },
  );
  return answered(output, { message_id: output.MessageId });
}
