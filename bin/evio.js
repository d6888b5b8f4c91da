#!/usr/bin/env node
// The installed entry point: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { failIfUnsettled, main } from '../dist/cli/main.js';

// `evio ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const run = main(process.argv.slice(2));
// A command left waiting on work that can never end exits 1 with a message, not 0 in silence.
failIfUnsettled(run);
run.then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`evio: ${err && err.message ? err.message : String(err)}\n`); process.exitCode = 1; },
);
