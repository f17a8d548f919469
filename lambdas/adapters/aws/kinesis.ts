import { KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { envelopeOf, partitionKeyOf, utf8Bytes } from '../../domain/aws-messages';
import { regionOf, type AwsTarget } from '../../domain/aws-targets';
import { targetClient } from './clients';
import { answered, checkSize, type AwsMessage, type AwsSent } from './message';

/** One record holding the envelope; Kinesis counts its data and its partition key. */
export async function putRecord(target: Extract<AwsTarget, { type: 'aws_kinesis' }>, message: AwsMessage): Promise<AwsSent> {
  const data = Buffer.from(JSON.stringify(envelopeOf(message.headers, message.body)), 'utf8');
  const partitionKey = partitionKeyOf(target.partition_key, message.eventId, message.body);
  checkSize(target, data.length + utf8Bytes(partitionKey));
  const client = targetClient('kinesis', regionOf(target), message.credentials, (config) => new KinesisClient(config));
  const output = await client.send(new PutRecordCommand({ StreamARN: target.stream_arn, Data: data, PartitionKey: partitionKey }), { abortSignal: message.signal });
  return answered(output, { shard_id: output.ShardId, sequence_number: output.SequenceNumber });
}
