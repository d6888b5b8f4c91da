#!/usr/bin/env node
// The installed entry point: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`evio: ${err && err.message ? err.message : String(err)}\n`); process.exitCode = 1; },
);
