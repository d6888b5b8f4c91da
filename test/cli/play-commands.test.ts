// The player's "next command" key jumps through the session's command timeline: playCommands
// gives the moments and positions of the lines entered, as the timeline has them.
import { afterAll, describe, expect, it } from 'vitest';
import { iologCommands } from '../../src/app/iolog.js';
import { playCommands } from '../../src/app/iolog-play.js';
import { makeEngine } from '../iolog/helpers.js';

const FIXTURES = new URL('../../fixtures/iolog/sudo-typed', import.meta.url).pathname;
const engine = makeEngine([FIXTURES], { workers: 1 });
afterAll(() => engine.close());

describe('play: next command', () => {
  it('takes the moments and positions of the command timeline, in order', async () => {
    const timeline = await iologCommands(engine, { file: '00/00/01' });
    const cmds = await playCommands(engine, '00/00/01');
    expect(timeline.log.length).toBeGreaterThan(5);
    expect(cmds).toEqual(timeline.log.map((c) => ({ at: c.at, offset: c.offset })));
    expect(cmds!.every((c, i) => i === 0 || c.at >= cmds![i - 1]!.at)).toBe(true);
  });

  it('is null for a session that cannot be read (the key then rings the bell)', async () => {
    expect(await playCommands(engine, '00/00/99')).toBeNull();
  });
});
