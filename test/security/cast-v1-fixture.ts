// A recording as asciicast v1 (pretty-printed, as asciinema 1.x wrote it) and v2, for the
// tests that attack the v1 reader. Frames mix ASCII, escapes and multi-byte UTF-8.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const START = 1_700_000_000;
const seconds = (us: number) => `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}`;

export function writeV1Recording(dir: string, name: string, targetBytes: number): { v1: string; v2: string } {
  const v1: string[] = [`{\n  "version": 1,\n  "width": 100,\n  "height": 30,\n  "timestamp": ${START},\n  "command": "/bin/bash",\n  "env": {"TERM": "xterm-256color"},\n  "stdout": [\n`];
  const v2: string[] = [`${JSON.stringify({ version: 2, width: 100, height: 30, timestamp: START, command: '/bin/bash', env: { TERM: 'xterm-256color' } })}\n`];
  let size = v1[0]!.length;
  let us = 0;
  for (let i = 0; size < targetBytes; i++) {
    const delay = (i * 7919) % 1000;
    us += delay;
    const data = `${i} \u001b[1;3${i % 8}mgrün │ 日本 ✓\u001b[0m ${'x'.repeat(i % 40)}\r\n`;
    const frame = `${i === 0 ? '' : ',\n'}    [${seconds(delay)}, ${JSON.stringify(data)}]`;
    v1.push(frame);
    v2.push(`[${seconds(us)}, "o", ${JSON.stringify(data)}]\n`);
    size += frame.length;
  }
  v1.push('\n  ]\n}\n');
  const p1 = join(dir, `${name}-v1.cast`);
  const p2 = join(dir, `${name}-v2.cast`);
  writeFileSync(p1, v1.join(''));
  writeFileSync(p2, v2.join(''));
  return { v1: p1, v2: p2 };
}
