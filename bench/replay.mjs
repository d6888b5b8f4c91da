// Replay throughput: the tokenizer, the screen model and @xterm/headless on the same bytes.
//
//   npm run build && node bench/replay.mjs [--mb N] [--time MS]
//
// Three inputs of about N MB each (default 4), written in 4 KiB chunks as a pty delivers them:
// text-heavy (plain lines), SGR-heavy (coloured `ls -lR`), cursor-heavy (full-screen redraws).
// Prints MB/s per engine and the ratios against @xterm/headless.
import xtermHeadless from '@xterm/headless';
import { Bench } from 'tinybench';
import { Screen, Tokenizer } from '../dist/replay/index.js';
import { prng } from '../dist/prng.js';

const { Terminal } = xtermHeadless;
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const MB = opt('--mb', 4);
const TIME = opt('--time', 3000);
const CHUNK = 4096;
const E = '\x1b';

const rng = prng;

function build(size, next) {
  const parts = [];
  let n = 0;
  while (n < size) {
    const s = next();
    parts.push(s);
    n += Buffer.byteLength(s);
  }
  return new Uint8Array(Buffer.from(parts.join('')));
}

const WORDS = 'the quick brown fox jumps over lazy dog session audit sudo root command output file directory process kernel network'.split(' ');

function textHeavy(size) {
  const r = rng(1);
  return build(size, () => {
    let line = '';
    while (line.length < 70) line += WORDS[Math.floor(r() * WORDS.length)] + ' ';
    if (r() < 0.05) line += 'héllo wörld ';
    return line.trimEnd() + '\r\n';
  });
}

function sgrHeavy(size) {
  const r = rng(2);
  const colors = ['01;34', '01;32', '01;36', '00', '40;33;01', '01;31', '01;35', '37;41'];
  const names = ['bin', 'lib', 'etc', 'passwd', 'shadow', 'vmlinuz', 'initrd.img', 'README.md', 'index.js', 'a.out', 'core'];
  let i = 0;
  return build(size, () => {
    if (i++ % 20 === 0) return `\r\n./usr/share/dir${i}:\r\ntotal ${Math.floor(r() * 1000)}\r\n`;
    const c = colors[Math.floor(r() * colors.length)];
    const name = names[Math.floor(r() * names.length)];
    const size = String(Math.floor(r() * 1e6)).padStart(7);
    return `${r() < 0.3 ? 'd' : '-'}rwxr-xr-x  2 root root ${size} Nov 22 02:44 ${E}[0m${E}[${c}m${name}${E}[0m\r\n`;
  });
}

function cursorHeavy(size) {
  const r = rng(3);
  let frame = 0;
  return build(size, () => {
    let s = `${E}[H${E}[1mtop - 02:${String(frame++ % 60).padStart(2, '0')}:00${E}[m${E}[K`;
    for (let row = 2; row <= 22; row++) {
      s += `${E}[${row};1H${String(Math.floor(r() * 99999)).padStart(6)} root  20  0 ${(r() * 100).toFixed(1)} ${WORDS[Math.floor(r() * WORDS.length)]}${E}[K`;
    }
    s += `${E}[23;1H${E}[J${E}[1;22r${E}[22;1H\n${E}[1;1H${E}M${E}[r${E}[5;10H${E}[2P${E}[3@${E}[2X`;
    return s;
  });
}

function chunks(data) {
  const out = [];
  for (let i = 0; i < data.length; i += CHUNK) out.push(data.subarray(i, i + CHUNK));
  return out;
}

const inputs = [
  ['text-heavy', textHeavy(MB * 1e6)],
  ['SGR-heavy (coloured ls -lR)', sgrHeavy(MB * 1e6)],
  ['cursor-heavy (full-screen redraws)', cursorHeavy(MB * 1e6)],
];

const engines = {
  tokenizer: (parts) => {
    const t = new Tokenizer({ term: 'xterm-256color' });
    let items = 0;
    for (let i = 0; i < parts.length; i++) items += t.write(parts[i], i).length;
    items += t.end().length;
    return items;
  },
  screen: (parts) => {
    const s = new Screen({ cols: 80, rows: 24 });
    for (const p of parts) s.write(p);
    return s.cursorY;
  },
  '@xterm/headless': async (parts) => {
    const term = new Terminal({ cols: 80, rows: 24, scrollback: 1000, allowProposedApi: true });
    for (let i = 0; i < parts.length - 1; i++) term.write(parts[i]);
    await new Promise((resolve) => term.write(parts[parts.length - 1], resolve));
    term.dispose();
  },
};

const results = [];
for (const [name, data] of inputs) {
  const parts = chunks(data);
  const bench = new Bench({ time: TIME, warmupTime: 500 });
  for (const [engine, fn] of Object.entries(engines)) bench.add(engine, () => fn(parts));
  await bench.run();
  const row = { input: name, MB: (data.length / 1e6).toFixed(2) };
  for (const task of bench.tasks) {
    const r = task.result;
    row[task.name] = r.state === 'completed' ? data.length / 1e6 / (r.period / 1000) : NaN;
  }
  results.push(row);
}

console.log(`node ${process.version}, ${MB} MB per input, ${CHUNK}-byte writes, ${TIME} ms per task\n`);
const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
console.table(
  results.map((r) => ({
    input: r.input,
    'tokenizer MB/s': fmt(r.tokenizer),
    'screen MB/s': fmt(r.screen),
    'xterm MB/s': fmt(r['@xterm/headless']),
    'tokenizer / xterm': (r.tokenizer / r['@xterm/headless']).toFixed(2) + 'x',
    'screen / xterm': (r.screen / r['@xterm/headless']).toFixed(2) + 'x',
  })),
);
