import { buildApp, createApp } from '../lib/app-builder';

const app = createApp();
const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
if (typeof stage !== 'string') throw new Error('context "stage" must be a string');

buildApp(app, { stage });
app.synth();
