#!/usr/bin/env node
// `npm exec --no -- hookgate` in a clone (not npx, which outside a clone installs the registry's
// `hookgate`, not ours): the CLI's TypeScript runs as it is, through the repository's tsx,
// so a fresh clone needs no build step. clients/cli's own package ships a bundle instead (its `build`).
import { register } from 'tsx/esm/api';

register();
await import('../clients/cli/src/main.ts');
