// docs/operations.md gives a systemd unit, a rotation timer and a logrotate snippet to copy as
// they are. This test takes them from the document's fenced blocks and checks them with the
// tools that will read them (systemd-analyze verify, logrotate -d) when installed (.ci/run
// installs both), and always checks the hardening keys the document promises.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/settings.js';

const DOC = readFileSync(resolve(import.meta.dirname, '../../docs/operations.md'), 'utf8');
const blocks = [...DOC.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
const ini = blocks.filter((b) => b.lang === 'ini').map((b) => b.text);
const unit = ini.find((t) => /ExecStart=.* serve$/m.test(t))!;
const rotateService = ini.find((t) => /events rotate/.test(t) && /\[Service\]/.test(t))!;
const rotateTimer = ini.find((t) => /\[Timer\]/.test(t))!;
const logrotate = blocks.find((b) => b.lang === '' && b.text.startsWith('/var/log/evio/'))!.text;
const dir = mkdtempSync(join(tmpdir(), 'evio-opsdoc-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Section -> key -> values (a key may repeat), as systemd reads a unit file. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^[#;]/.test(line)) continue;
    const sec = /^\[([A-Za-z]+)\]$/.exec(line);
    if (sec) {
      current = new Map();
      sections.set(sec[1]!, current);
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    expect(kv, `not a key=value line: ${line}`).not.toBeNull();
    expect(current, `a key outside a section: ${line}`).not.toBeNull();
    current!.set(kv![1]!, [...(current!.get(kv![1]!) ?? []), kv![2]!]);
  }
  return sections;
}

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** "20s", "1min 30s", "500ms" -> ms (the forms the document uses). */
function seconds(span: string): number {
  let ms = 0;
  for (const m of span.matchAll(/(\d+)\s*(ms|min|s)?/g)) ms += Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'min' ? 60_000 : 1000);
  return ms;
}

describe('docs/operations.md: the systemd unit', () => {
  it('has the blocks', () => {
    expect([unit, rotateService, rotateTimer, logrotate].every((b) => typeof b === 'string' && b.length > 0)).toBe(true);
  });

  it('is hardened, restarts on failure and stops with SIGTERM after longer than shutdownTimeoutMs', () => {
    const u = parseUnit(unit);
    expect([...u.keys()]).toEqual(['Unit', 'Service', 'Install']);
    const s = u.get('Service')!;
    const one = (k: string) => {
      expect(s.get(k), k).toHaveLength(1);
      return s.get(k)![0]!;
    };
    expect(one('User')).toBe('evio');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ReadWritePaths').split(/\s+/)).toContain('/var/lib/evio');
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(one('Environment')).toMatch(/^EVIO_CONFIG=\/etc\/evio\/settings\.json$/);
    // The stop timeout leaves room for the drain (default shutdownTimeoutMs) and the close.
    const drainMs = loadSettings({ env: {} }).shutdownTimeoutMs;
    expect(seconds(one('TimeoutStopSec'))).toBeGreaterThan(drainMs);
    expect(DOC).toContain(`shutdownTimeoutMs (${drainMs / 1000} s by default)`);
    expect(u.get('Install')!.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it('the rotation timer runs evio events rotate as the service user', () => {
    const s = parseUnit(rotateService).get('Service')!;
    expect(s.get('Type')).toEqual(['oneshot']);
    expect(s.get('User')).toEqual(['evio']);
    expect(s.get('ExecStart')![0]).toMatch(/ events rotate --max-size 1G$/);
    expect(parseUnit(rotateTimer).get('Timer')!.get('OnCalendar')).toEqual(['daily']);
  });

  it('systemd-analyze verify accepts the unit and the timer', (ctx) => {
    if (!has('systemd-analyze')) ctx.skip();
    // The timer's unit is found by name beside it.
    writeFileSync(join(dir, 'evio.service'), unit);
    writeFileSync(join(dir, 'evio-rotate.service'), rotateService);
    writeFileSync(join(dir, 'evio-rotate.timer'), rotateTimer);
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'evio.service'), join(dir, 'evio-rotate.service'), join(dir, 'evio-rotate.timer')], { encoding: 'utf8', timeout: 30_000 });
    const complaints = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /evio/.test(l));
    expect({ status: r.status, complaints }).toEqual({ status: 0, complaints: [] });
    // The check itself works: an unknown key is reported.
    writeFileSync(join(dir, 'bad.service'), unit.replace('[Service]\n', '[Service]\nNoSuchKey=1\n'));
    const bad = spawnSync('systemd-analyze', ['verify', join(dir, 'bad.service')], { encoding: 'utf8', timeout: 30_000 });
    expect(`${bad.stdout}${bad.stderr}`).toMatch(/NoSuchKey/);
  }, 60_000);
});

describe('docs/operations.md: the logrotate snippet', () => {
  it('rotates the service log by copytruncate (evio does not reopen its log on a signal)', () => {
    expect(logrotate).toMatch(/^\/var\/log\/evio\/\*\.log \{\n/);
    expect(logrotate.trimEnd()).toMatch(/\}$/);
    const directives = logrotate.split('\n').slice(1, -2).map((l) => l.trim().split(/\s+/)[0]);
    expect(directives).toContain('copytruncate');
    expect(directives).not.toContain('postrotate');
    // The event logs are left to evio events rotate.
    expect(logrotate).not.toMatch(/ndjson|sqlite/);
  });

  it('logrotate -d reads it without an error', (ctx) => {
    if (!has('logrotate')) ctx.skip();
    // This machine has no evio user: the same snippet with root as owner.
    const file = join(dir, 'evio.logrotate');
    writeFileSync(file, logrotate.replace(/evio evio/g, 'root root'), { mode: 0o644 });
    const r = spawnSync('logrotate', ['-d', '-s', join(dir, 'state'), file], { encoding: 'utf8', timeout: 30_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(out).toMatch(/reading config file/);
    expect(out.split('\n').filter((l) => /^error:/.test(l))).toEqual([]);
    expect(r.status).toBe(0);
  }, 60_000);
});
