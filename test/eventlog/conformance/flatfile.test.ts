import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlatFileStore } from '../../../src/eventlog/flatfile/index.js';
import { runPropertyTest } from '../property/run.js';
import { runConformance } from './run.js';

let n = 0;
const flatfile = () => ({
  format: 'ff' as const,
  params: { file: 'conformance.ndjson' },
  async make(records: import('../../../src/eventlog/types.js').StoredEvent[]) {
    const dir = mkdtempSync(join(tmpdir(), 'evio-ff-conf-'));
    // A small read size makes every scan cross many chunk boundaries.
    const s = new FlatFileStore({ path: join(dir, `log-${n++}.ndjson`), readSize: 97 });
    await s.append(records);
    return s;
  },
});

runConformance('flat file', flatfile);
runPropertyTest('flat file', flatfile, 40);
