import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, attributedMessage, type AwsMessage, type AwsSent } from './message';

/** The body as the message, the signed headers as its attributes. */
export async function sendToQueue(target: Extract<AwsTarget, { type: 'aws_sqs' }>, message: AwsMessage): Promise<AwsSent> {
  const { text, ...sent } = attributedMessage(target, message);
  const client = targetClient('sqs', regionOf(target), message.credentials, (config) => new SQSClient(config));
  const output = await client.send(new SendMessageCommand({ QueueUrl: target.queue_url, MessageBody: text, ...sent }), { abortSignal: message.signal });
  return answered(output, { message_id: output.MessageId });
}
