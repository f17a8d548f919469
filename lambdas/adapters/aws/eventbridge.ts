import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { envelopeOf, utf8Bytes } from '../../domain/aws-messages';
import { regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, checkSize, type AwsMessage, type AwsSent } from './message';

/** EventBridge counts an entry's Time as 14 bytes. */
const TIME_BYTES = 14;

/** One entry whose `detail` is the envelope. PutEvents answers 200 even when it refuses the entry: that is a failure too. */
export async function putOnBus(target: Extract<AwsTarget, { type: 'aws_eventbridge' }>, message: AwsMessage): Promise<AwsSent> {
  const detail = JSON.stringify(envelopeOf(message.headers, message.body));
  const detailType = target.detail_type ?? message.eventType ?? 'webhook';
  checkSize(target, TIME_BYTES + utf8Bytes(target.source) + utf8Bytes(detailType) + utf8Bytes(detail));
  const client = targetClient('eventbridge', regionOf(target), message.credentials, (config) => new EventBridgeClient(config));
  const output = await client.send(
    new PutEventsCommand({ Entries: [{ EventBusName: target.event_bus_arn, Source: target.source, DetailType: detailType, Detail: detail, Time: new Date(message.receivedAt) }] }),
    { abortSignal: message.signal },
  );
  const entry = output.Entries?.[0];
  if ((output.FailedEntryCount ?? 0) > 0 || entry?.ErrorCode) {
    throw Object.assign(new Error(entry?.ErrorMessage ?? 'the entry was not accepted'), { name: entry?.ErrorCode ?? 'FailedEntry', $metadata: output.$metadata });
  }
  return answered(output, { event_id: entry?.EventId });
}
