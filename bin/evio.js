#!/usr/bin/env node
// The installed entry point: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { main } from '../dist/cli/main.js';

// `evio ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`evio: ${err && err.message ? err.message : String(err)}\n`); process.exitCode = 1; },
);
