// What the CLI writes to the operator's terminal from a recording never carries a control
// character as is: a damaged timing line quoted in a warning is shown, not sent.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/cli/printable.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const OSC52 = '\x1b]52;c;ZXZpbA==\x07';

describe('printable', () => {
  it('shows C0 and C1 controls as \\xNN; keepLines leaves line feeds and tabs', () => {
    expect(printable(`a${OSC52}\x9b6n\nb\tc`)).toBe('a\\x1b]52;c;ZXZpbA==\\x07\\x9b6n\\x0ab\\x09c');
    expect(printable(`a${OSC52}\nb\tc`, { keepLines: true })).toBe('a\\x1b]52;c;ZXZpbA==\\x07\nb\tc');
  });
});

describe('a crafted timing file', () => {
  it('reaches stderr as text: the warning quotes the bad line, whose C1 CSI (U+009B) JSON text keeps as is', () => {
    const home = mkdtempSync(join(tmpdir(), 'evio-printable-'));
    try {
      const s = join(home, 'iolog', 's1');
      mkdirSync(s, { recursive: true });
      // The second timing line is not a record: the warning quotes it (JSON.stringify escapes
      // C0 controls, not C1 ones such as U+009B, a CSI to a UTF-8 terminal).
      writeFileSync(join(s, 'timing'), Buffer.from('4 0.1 3\n4 0.1 \u009b6n\n', 'utf8'));
      writeFileSync(join(s, 'ttyout'), 'ok\n');
      writeFileSync(join(s, 'log'), '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/x\n');
      chmodSync(join(s, 'timing'), 0o400);
      const r = spawnSync(process.execPath, [BIN, 'iolog', 'chunk', 's1'], { encoding: 'utf8', env: { ...process.env, EVIO_HOME: home, EVIO_CONFIG: '' } });
      expect(r.stderr).toMatch(/^evio: warning: 1402 .*\\x9b6n/m);
      expect(r.stderr).not.toMatch(/[\x1b\x9b]/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
