// A writer in its own process, for the tests that need another process: bundled by
// child-build.ts and run with node. Modes (argv after the script):
//   create ROOT COUNT          COUNT concurrent createIologSession calls in ROOT; prints each relPath
//   write ROOT COMPRESS EVERY  one session; writes testRecord(1, 2, ...) and flushes every EVERY
//                              records, printing {"records":n,"sec":..,"nsec":..,"dir":..} after each
//                              flush returned; runs until killed
import { createIologSession } from '../../../src/iolog/writer/index.js';
import { testRecord } from './records.js';
import { sudoInfo, writerOptions } from './helpers.js';

const [mode, root, a, b] = process.argv.slice(2) as [string, string, string, string];

if (mode === 'create') {
  const n = Number(a);
  const sessions = await Promise.all(Array.from({ length: n }, () => createIologSession(writerOptions(root), { sec: 1_767_225_600, nsec: 0 }, sudoInfo())));
  for (const s of sessions) {
    process.stdout.write(`${s.relPath}\n`);
    await s.close();
  }
} else if (mode === 'write') {
  const s = await createIologSession(writerOptions(root, { compress: a === '1' }), { sec: 1_767_225_600, nsec: 0 }, sudoInfo());
  const every = Number(b);
  for (let i = 1; ; i++) {
    const r = testRecord(i);
    s.writeIo(r.stream, r.delay, r.data);
    if (i % every === 0) {
      const p = await s.flush();
      process.stdout.write(`${JSON.stringify({ records: i, sec: p.sec, nsec: p.nsec, dir: s.dir })}\n`);
    }
  }
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
