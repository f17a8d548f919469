import { buildApp, createApp } from '../lib/app-builder';

const app = createApp();

/** A context value (cdk.json or --context) that must be a string when given. */
function stringContext(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new Error(`context "${key}" must be a string`);
  return value;
}

buildApp(app, {
  stage: stringContext('stage') ?? 'dev',
  // e.g. --context retrySchedule=0,60,600,3600,21600
  retrySchedule: stringContext('retrySchedule'),
  alarmEmail: stringContext('alarmEmail'),
});
app.synth();
