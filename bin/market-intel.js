#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles on load, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
const code = await main(process.argv.slice(2));
// serve keeps the process alive through its listener; other commands end here.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
