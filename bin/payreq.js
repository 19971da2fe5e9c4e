#!/usr/bin/env node
// The `payreq` executable: TypeScript runs as is through tsx, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
