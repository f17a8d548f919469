import { assumeRoleError } from '../adapters/aws-credentials';
import { connectionCapRefusal, connectionRoleArn, connectionTemplate, partitionOf, roleNameOf, trustPolicy } from '../domain/aws-connections';
import { forbidden, invalid } from '../domain/errors';
import { refused, type Refused } from '../domain/outcomes';
import type { DestinationActor } from '../destinations/changes';
import { mayManage } from '../destinations/changes';
import { listDestinations } from '../destinations/record';
import { config } from '../shared/config';
import { newId, newPathToken } from '../shared/secrets';
import { deleteConnection, findConnection, insertConnection, listConnections, updateConnection, type AwsConnectionRecord } from './record';

/**
 * AWS connections' life: create (the external id generated here), show with the trust policy and the
 * template, verify by assuming the role, delete once no destination uses it. The trust policy names
 * this deployment's principals as configured now, so a redeploy that changes them shows in the next
 * template.
 */

export const connectionInUseMessage = (destinationIds: readonly string[]) =>
  `the AWS connection is used by destinations: ${destinationIds.join(', ')}; delete them or change their connection_id first`;
export const NO_PRINCIPAL_MESSAGE = 'this deployment has no AWS principal for connections to trust (HOOKGATE_AWS_PRINCIPALS is unset)';

export const connectionTrustPolicy = (c: AwsConnectionRecord) => trustPolicy(config().awsPrincipals, c.external_id);

export async function createConnection(accountId: string, request: { aws_account_id: string; customer?: string | null }, now: Date): Promise<AwsConnectionRecord> {
  const principals = config().awsPrincipals;
  if (principals.length === 0) throw forbidden(NO_PRINCIPAL_MESSAGE);
  // Counted from the connections as stored now (two creates at once may both pass), as endpoints are.
  if (request.customer) {
    const owned = (await listConnections(accountId)).filter((c) => c.customer === request.customer).length;
    const refusal = connectionCapRefusal(request.customer, owned, config().endpointCaps.perCustomer);
    if (refusal) throw invalid(refusal);
  }
  const id = newId();
  const roleName = roleNameOf(id);
  const connection: AwsConnectionRecord = {
    id,
    account_id: accountId,
    aws_account_id: request.aws_account_id,
    customer: request.customer ?? null,
    // 256 random bits: no caller can guess another connection's, or choose its own.
    external_id: `hookgate-${newPathToken()}`,
    role_name: roleName,
    role_arn: connectionRoleArn(partitionOf(principals), request.aws_account_id, roleName),
    status: 'unverified',
    error: null,
    checked_at: null,
    created_at: now.toISOString(),
  };
  await insertConnection(connection);
  return connection;
}

/** The connection, if the actor may see it; another customer's is as unknown as a missing one. */
export async function findManagedConnection(accountId: string, connectionId: string, actor: DestinationActor): Promise<AwsConnectionRecord | undefined> {
  const connection = await findConnection(accountId, connectionId);
  return connection && mayManage(actor, connection) ? connection : undefined;
}

/** Newest first; `customer` narrows the account's. */
export async function listManagedConnections(accountId: string, actor: DestinationActor, customer?: string): Promise<AwsConnectionRecord[]> {
  const all = await listConnections(accountId);
  return all.filter((c) => mayManage(actor, c) && (customer === undefined || c.customer === customer)).sort((a, b) => b.id.localeCompare(a.id));
}

/** The destinations that deliver through the connection now. */
const connectionUsers = async (connection: AwsConnectionRecord) => (await listDestinations(connection.account_id)).filter((d) => d.connection_id === connection.id);

/** The template for the connection's destinations as they are now. */
export async function templateOf(connection: AwsConnectionRecord) {
  const targets = (await connectionUsers(connection)).flatMap((d) => (d.aws_target ? [d.aws_target] : []));
  return connectionTemplate({ roleName: connection.role_name, trustPolicy: connectionTrustPolicy(connection) }, targets, partitionOf(config().awsPrincipals));
}

/** Assumes the role now and keeps the answer on the connection. */
export async function verifyConnection(connection: AwsConnectionRecord, now: Date): Promise<{ status: 'verified' | 'failed'; error: string | null; checked_at: string }> {
  const error = await assumeRoleError(connection.role_arn, connection.external_id);
  const result = { status: error === undefined ? ('verified' as const) : ('failed' as const), error: error ?? null, checked_at: now.toISOString() };
  await updateConnection(connection.account_id, connection.id, result);
  return result;
}

/** Refused while a destination delivers through it: its deliveries would fail with no role to assume. */
export async function removeConnection(connection: AwsConnectionRecord): Promise<{ kind: 'deleted' } | Refused> {
  const users = await connectionUsers(connection);
  if (users.length > 0) return refused(invalid(connectionInUseMessage(users.map((d) => d.id))));
  await deleteConnection(connection.account_id, connection.id);
  return { kind: 'deleted' };
}
