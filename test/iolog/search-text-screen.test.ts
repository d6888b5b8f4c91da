// The search reads the text the screen showed: cursor moves and overwrites are applied by the
// replay module's screen model, not just stripped.
import { expect, it } from 'vitest';
import { textExtractorFactory } from '../../src/iolog/text-factory.js';
import { stripperFactory } from '../../src/iolog/text-factory.js';

const bytes = (s: string) => new TextEncoder().encode(s);

it('resolves cursor-back overwrites and absolute moves as the screen showed them', async () => {
  const make = await textExtractorFactory();
  expect(make).not.toBe(stripperFactory);
  const t = make({ cols: 80, rows: 24 });
  // "hunter2" typed, then moved over with CSI 7 D and masked; then a line drawn by cup.
  t.write(bytes('password: hunter2\x1b[7D*******\r\n'), 1000);
  t.write(bytes('\x1b[10;5Hdrawn by cup\r\n'), 2000);
  const lines = [...t.takeLines(), ...t.end()].map((l) => l.text);
  expect(lines).toContain('password: *******');
  expect(lines).toContain('    drawn by cup');
  expect(lines.some((l) => l.includes('hunter2'))).toBe(false);
});
