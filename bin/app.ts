import { buildApp, createApp } from '../lib/app-builder';

const app = createApp();

/** A context value (cdk.json or --context) that must be a string when given. */
function stringContext(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new Error(`context "${key}" must be a string`);
  return value;
}

/** A context value that must be a whole number when given (`-c key=30` arrives as a string). */
function numberContext(key: string): number | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed)) throw new Error(`context "${key}" must be a whole number`);
  return parsed;
}

function signupContext(): 'open' | 'closed' | undefined {
  const value = stringContext('signup');
  if (value === undefined || value === 'open' || value === 'closed') return value;
  throw new Error(`context "signup" must be open or closed, got "${value}"`);
}

function billingModeContext(): 'on-demand' | 'provisioned' | undefined {
  const value = stringContext('billingMode');
  if (value === undefined || value === 'on-demand' || value === 'provisioned') return value;
  throw new Error(`context "billingMode" must be on-demand or provisioned, got "${value}"`);
}

/** A context value that must be a number when given (`-c key=0.05` arrives as a string). */
function fractionContext(key: string): number | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || Number.isNaN(parsed)) throw new Error(`context "${key}" must be a number`);
  return parsed;
}

buildApp(app, {
  stage: stringContext('stage') ?? 'dev',
  // e.g. --context retrySchedule=0,60,600,3600,21600
  retrySchedule: stringContext('retrySchedule'),
  alarmEmail: stringContext('alarmEmail'),
  // e.g. --context logRetentionDays=90
  logRetentionDays: numberContext('logRetentionDays'),
  // e.g. --context deliverMaxConcurrency=200 (batches of 10 the deliver function runs at once)
  deliverMaxConcurrency: numberContext('deliverMaxConcurrency'),
  // --context signup=closed: no open sign-up; accounts come from `npm run create-account`
  signup: signupContext(),
  // e.g. --context maxEndpointsPerCustomer=50 --context maxEndpointsPerAccount=50000
  maxEndpointsPerCustomer: numberContext('maxEndpointsPerCustomer'),
  maxEndpointsPerAccount: numberContext('maxEndpointsPerAccount'),
  // --context billingMode=provisioned: the table and its indexes on auto-scaled provisioned capacity,
  // e.g. with --context minWriteCapacity=20 --context maxWriteCapacity=2000
  billingMode: billingModeContext(),
  minReadCapacity: numberContext('minReadCapacity'),
  maxReadCapacity: numberContext('maxReadCapacity'),
  minWriteCapacity: numberContext('minWriteCapacity'),
  maxWriteCapacity: numberContext('maxWriteCapacity'),
  // e.g. --context tracingSampleRate=0.05 (X-Ray traces 5% of requests)
  tracingSampleRate: fractionContext('tracingSampleRate'),
});
app.synth();
