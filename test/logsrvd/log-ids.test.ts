// Log ids seal a session's place under the server's key: they open back into the same place,
// and a changed byte, another server's key or a made-up id opens nothing.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogIds } from '../../src/app/log-ids.js';

const home = mkdtempSync(join(tmpdir(), 'evio-logids-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('log ids', () => {
  const roots = ['/srv/a', '/srv/b'];
  const ids = new LogIds(LogIds.keyFileIn(home), roots);
  const place = { dir: '/srv/b/alice/00/00/0Z', acceptId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' };

  it('opens what it sealed, and each seal differs', () => {
    const a = ids.seal(place);
    const b = ids.seal(place);
    expect(a).not.toBe(b);
    expect(ids.open(a)).toEqual(place);
    expect(ids.open(b)).toEqual(place);
    expect(a).not.toContain('alice');
  });

  it('keeps its key in a 0600 file and reuses it', () => {
    const file = LogIds.keyFileIn(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).length).toBe(32);
    const again = new LogIds(file, roots);
    expect(again.open(ids.seal(place))).toEqual(place);
  });

  it('opens nothing for a changed byte, another key, a path or garbage', () => {
    const id = ids.seal(place);
    for (let i = 0; i < id.length; i++) {
      const c = id[i] === 'A' ? 'B' : 'A';
      const changed = id.slice(0, i) + c + id.slice(i + 1);
      if (changed !== id) expect(ids.open(changed)).toBeNull();
    }
    const other = new LogIds(join(home, 'other.key'), roots);
    expect(other.open(id)).toBeNull();
    expect(ids.open('/srv/b/alice/00/00/0Z')).toBeNull();
    expect(ids.open('')).toBeNull();
    expect(ids.open('A'.repeat(2000))).toBeNull();
  });

  it('refuses to seal a place under no root', () => {
    expect(() => ids.seal({ dir: '/etc/x', acceptId: place.acceptId })).toThrow(/no I\/O log root/);
  });
});
