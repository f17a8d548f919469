import { buildApp, createApp } from '../lib/app-builder';
import { optionsFromContext } from '../lib/app-context';

const app = createApp();
buildApp(app, optionsFromContext(app));
app.synth();
