#!/usr/bin/env node
// Runs the compiled sources (dist/, rebuilt from src/ when it changed; see compile.js), or the
// TypeScript itself through tsx when they cannot be built here (MARKET_INTEL_TSX=1 asks for that).
import { compiledEntry } from './compile.js';

const entry = await compiledEntry();
let cli;
if (entry) cli = await import(entry);
else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli.ts');
}
const code = await cli.main(process.argv.slice(2));
// serve keeps the process alive through its listener; other commands end here.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
