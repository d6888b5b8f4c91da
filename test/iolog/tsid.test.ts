// sudo's session IDs (TSIDs) name sessions as sudoreplay takes them: `000001` is `00/00/01` under
// the first root that has it, in every call that names a session; another root's session is
// found too, and an ID no root has is still "does not exist".
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { iologChunk, iologVariables } from '../../src/app/iolog.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

const dir = tempDir('evio-tsid-');
const first = join(dir, 'first');
const second = join(dir, 'second');
copyTree(join(SAMPLES, 'sudo-io'), first);
copyTree(join(SAMPLES, 'logsrvd-io'), second);
// A session only the second root has.
copyTree(join(SAMPLES, 'logsrvd-io/00/00/02'), join(second, '00/00/0Z'));
const engine = makeEngine([first, second]);
afterAll(async () => {
  await engine.close();
  removeDir(dir);
});

describe('TSIDs name sessions', () => {
  it('000001 is 00/00/01 of the first root, in variables and chunks', async () => {
    const byId = await iologVariables(engine, { file: '000001' });
    const byPath = await iologVariables(engine, { file: '00/00/01' });
    expect(byId.variables).toEqual(byPath.variables);
    expect(byId.file).toBe(join(first, '00/00/01'));
    const chunk = await iologChunk(engine, { file: '00000A' });
    expect(chunk.bytes).toBe((await iologChunk(engine, { file: '00/00/0A' })).bytes);
  });

  it('finds a session of a later root, and says an unknown ID does not exist', async () => {
    const other = await iologVariables(engine, { file: '00000Z' });
    expect(other.file).toBe(join(second, '00/00/0Z'));
    await expect(iologVariables(engine, { file: '00000Y' })).rejects.toThrow(/^1004 /);
  });
});
