import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';

/**
 * An AWS connection as stored: a role in a customer's AWS account that Hookgate assumes with the
 * connection's own external id. It holds no credential: the role's trust policy is the grant.
 */
const awsConnectionRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  aws_account_id: z.string(),
  customer: z.nullable(z.string()),
  /** Generated here, never taken from a caller: it is what keeps another tenant from having Hookgate assume this role. */
  external_id: z.string(),
  role_name: z.string(),
  role_arn: z.string(),
  status: z.enum(['unverified', 'verified', 'failed']),
  /** Why the last verify failed (STS's error), null otherwise. */
  error: z.nullable(z.string()),
  checked_at: z.nullable(z.string()),
  created_at: z.string(),
});
export type AwsConnectionRecord = z.infer<typeof awsConnectionRecord>;

/** Outside the routing range (`ACCOUNT#…`): deliveries read the role and external id copied onto each destination. */
const connectionKey = (accountId: string, connectionId: string) => ({ pk: accountPartition(accountId), sk: `AWSCONN#${connectionId}` });
const connectionEntity = defineEntity({
  name: 'aws_connection',
  schema: awsConnectionRecord,
  key: connectionKey,
  keyOf: (record: AwsConnectionRecord) => connectionKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: 'AWSCONN#' },
});

export async function insertConnection(record: AwsConnectionRecord): Promise<void> {
  if (!(await connectionEntity.create(record))) throw new Error(`aws connection id collision: ${record.id}`);
}

export const findConnection = (accountId: string, connectionId: string) => connectionEntity.find(accountId, connectionId);

export const listConnections = (accountId: string) => connectionEntity.list(accountId);

export const updateConnection = (accountId: string, connectionId: string, changes: Partial<AwsConnectionRecord>) =>
  connectionEntity.update([accountId, connectionId], changes);

export const deleteConnection = (accountId: string, connectionId: string) => connectionEntity.remove(accountId, connectionId);
