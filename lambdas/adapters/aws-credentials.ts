import type { STSClient } from '@aws-sdk/client-sts';

/**
 * Whose credentials sign an AWS destination's calls, and the key its clients are cached under (one
 * client per set of credentials, so no call ever borrows another's). Every AWS delivery asks here and
 * nowhere else: a destination without `role_arn` is reached with the deliver function's own role (the
 * SDK's default chain), one with a role through STS AssumeRole with its external id (its AWS
 * connection's, or its account's for a bare `role_arn`).
 */
export interface AwsCredentials {
  key: string;
  /** Undefined: the SDK's default chain. Shared by every client that signs with these credentials. */
  provider?: () => Promise<Identity>;
}

type Identity = { accessKeyId: string; secretAccessKey: string; sessionToken?: string; expiration?: Date };

const OWN_ROLE: AwsCredentials = { key: 'own-role' };

/** Assumed credentials last an hour; they are used until 5 minutes before they end, then assumed again. */
const SESSION_SECONDS = 3600;
const REFRESH_BEFORE_MS = 5 * 60 * 1000;

const assumed = new Map<string, Promise<Identity>>();
/** Loaded with the first assumed role: most deployments deliver with their own role only. */
let sts: STSClient | undefined;

export function credentialsFor(destination: { roleArn: string | null; externalId: string }): AwsCredentials {
  if (destination.roleArn === null) return OWN_ROLE;
  const { roleArn, externalId } = destination;
  const key = `${roleArn}|${externalId}`;
  return { key, provider: () => cachedIdentity(key, roleArn, externalId) };
}

/**
 * The role's credentials, shared by every client that signs with them, kept until 5 minutes before
 * they end. A refusal is not kept: the next try asks STS again (the customer may have fixed its trust policy).
 */
async function cachedIdentity(key: string, roleArn: string, externalId: string): Promise<Identity> {
  const cached = await assumed.get(key)?.catch(() => undefined);
  if (cached && (cached.expiration?.getTime() ?? 0) - REFRESH_BEFORE_MS > Date.now()) return cached;
  const next = assumeRole(roleArn, externalId);
  assumed.set(key, next);
  return next;
}

/**
 * Whether the role can be assumed now, asked of STS afresh (an AWS connection's verify): undefined, or
 * STS's error as `<code>: <message>`. Nothing is cached, so a fixed trust policy shows at once.
 */
export async function assumeRoleError(roleArn: string, externalId: string): Promise<string | undefined> {
  try {
    await assumeRole(roleArn, externalId);
    return undefined;
  } catch (error) {
    const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: string; message?: string };
    return `${e.name ?? 'Error'}: ${(e.message ?? String(error)).replace(/\s+/g, ' ').trim().slice(0, 500)}`;
  }
}

async function assumeRole(roleArn: string, externalId: string): Promise<Identity> {
  const { AssumeRoleCommand, STSClient } = await import('@aws-sdk/client-sts');
  sts ??= new STSClient({});
  const { Credentials } = await sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'hookgate-delivery', ExternalId: externalId, DurationSeconds: SESSION_SECONDS }));
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey) throw new Error(`AssumeRole of ${roleArn} returned no credentials`);
  return { accessKeyId: Credentials.AccessKeyId, secretAccessKey: Credentials.SecretAccessKey, sessionToken: Credentials.SessionToken, expiration: Credentials.Expiration };
}
