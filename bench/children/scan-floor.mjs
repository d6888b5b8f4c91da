// Child process: the floor of a literal search in Node on this file: read it in 1 MiB pieces
// and count Buffer.indexOf hits of the literal, nothing else (no lines, no parsing).
//   node bench/children/scan-floor.mjs FILE LITERAL RUNS
// Prints {count, times: [ms per run]} as one JSON line.
import { closeSync, openSync, readSync } from 'node:fs';

const [file, literal, runsArg] = process.argv.slice(2);
const needle = Buffer.from(literal ?? '', 'utf8');
const buf = Buffer.allocUnsafe(1 << 20);
const times = [];
let count = 0;
for (let run = 0; run < Number(runsArg ?? 5); run++) {
  const t0 = performance.now();
  const fd = openSync(file ?? '', 'r');
  let hits = 0;
  let carry = 0; // bytes kept from the previous piece, so a literal across two pieces is found
  for (;;) {
    const n = readSync(fd, buf, carry, buf.length - carry);
    if (n === 0) break;
    const end = carry + n;
    const view = buf.subarray(0, end);
    for (let i = view.indexOf(needle); i !== -1; i = view.indexOf(needle, i + 1)) hits++;
    carry = Math.min(needle.length - 1, end);
    // A hit inside the kept tail would need the whole needle, which it cannot hold: no double count.
    buf.copy(buf, 0, end - carry, end);
  }
  closeSync(fd);
  times.push(performance.now() - t0);
  count = hits;
}
process.stdout.write(`${JSON.stringify({ count, times })}\n`);
