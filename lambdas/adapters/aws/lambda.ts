import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { envelopeOf } from '../../domain/aws-messages';
import { regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, checkSize, type AwsMessage, type AwsSent } from './message';

/**
 * An asynchronous invoke (`Event`) with the envelope as its payload: Lambda queues it and answers 202,
 * so the try ends when Lambda has it, not when the function has run (its own retries and destinations
 * take it from there).
 */
export async function invokeAsync(target: Extract<AwsTarget, { type: 'aws_lambda' }>, message: AwsMessage): Promise<AwsSent> {
  const payload = Buffer.from(JSON.stringify(envelopeOf(message.headers, message.body)), 'utf8');
  checkSize(target, payload.length);
  const client = targetClient('lambda', regionOf(target), message.credentials, (config) => new LambdaClient(config));
  const output = await client.send(new InvokeCommand({ FunctionName: target.function_arn, InvocationType: 'Event', Payload: payload }), { abortSignal: message.signal });
  return answered(output, {});
}
