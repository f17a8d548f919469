#!/usr/bin/env node
// `npx hookgate` in a clone: the CLI's TypeScript runs as it is, through the repository's tsx, so a
// fresh clone needs no build step. clients/cli's own package ships a bundle instead (its `build`).
import { register } from 'tsx/esm/api';

register();
await import('../clients/cli/src/main.ts');
