// The package as a library: `import ... from 'evio'` (the package's own name, resolved through
// its "exports" like any dependent's import) gives the whole engine — event logs, I/O logs,
// replay and request signing — and the published files are what package.json says.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; engines: { node: string }; files: string[] };

describe("import from 'evio'", () => {
  it('exports the event-log, I/O-log, replay and signing functions', async () => {
    const evio = (await import('evio')) as Record<string, unknown>;
    for (const name of [
      'Engine', 'loadSettings', 'parseEventQuery', 'openStoreByName', 'queryEvents', 'appendEvents', 'copyEvents', 'exportEvents', 'importEvents', 'purgeEvents', 'rotateEvents',
      'iologChunk', 'iologVariables', 'iologSearch', 'iologList', 'iologIndex', 'iologReplay', 'iologScreen', 'iologExport', 'openSession',
      'Parser', 'Tokenizer', 'Screen', 'renderScreen', 'screenAt', 'TerminalFilter', 'filterTerminalOutput',
      'signRequest', 'signSha256', 'canonicalString', 'sendSigned', 'dispatch', 'EvioError',
    ]) {
      expect({ name, type: typeof evio[name] }).toEqual({ name, type: 'function' });
    }
  });

  it('answers a wrongly typed parameter with a registry error, not a TypeError', async () => {
    const { parseEventQuery, EvioError } = await import('evio');
    let err: unknown;
    try {
      parseEventQuery({ limit: 3 } as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EvioError);
    expect((err as InstanceType<typeof EvioError>).code).toBe(1009);
    expect((err as Error).message).toMatch(/^1009 parameter "limit" is a number; parameters are strings, as in a query string \(limit: '3'\)$/);
  });

  it('signs a request the service verifies', async () => {
    const { signRequest, signSha256 } = await import('evio');
    const s = signRequest({ method: 'GET', target: '/REST/v2.0/events?limit=1', appid: 'a', key: 'k'.repeat(32), timestamp: 1_800_000_000, nonce: 'n' });
    const url = new URL(s.target, 'http://x');
    expect(s.hmac).toBe(signSha256('k'.repeat(32), { method: 'GET', path: url.pathname, query: [...url.searchParams].filter(([k]) => k !== 'hmac') }));
  });
});

describe('the package', () => {
  it('has a LICENSE matching its licence, and states the Node version CI runs', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(pkg.files).toContain('LICENSE');
    expect(pkg.engines.node).toBe('20.x');
    expect(process.versions.node.split('.')[0]).toBe('20');
  });

  it('ships no source maps that point at sources it does not ship', () => {
    const maps: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name.endsWith('.map')) maps.push(join(d, e.name));
      }
    };
    expect(existsSync(join(ROOT, 'dist/index.js'))).toBe(true);
    walk(join(ROOT, 'dist'));
    expect(pkg.files).not.toContain('src');
    expect(maps).toEqual([]);
  });

  it('installs on the Node version it states, without engine warnings (every locked package accepts it)', () => {
    // npm ci prints EBADENGINE for a locked package whose engines.node excludes the running Node;
    // a dependency that moved to Node 22 is pinned back with "overrides" in package.json.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (range && !semver.satisfies(process.version, range)) refusing.push(`${path.replace(/^.*node_modules\//, '')} wants node ${range}`);
    }
    expect(refusing).toEqual([]);
  });
});
