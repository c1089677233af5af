#!/usr/bin/env node
// Runs the TypeScript sources directly: there is no build step between a checkout and a running server.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
