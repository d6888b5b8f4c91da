// Path templates: every escape and strftime conversion (the conversions checked against GNU
// date, i.e. glibc's strftime, in several zones), "/" and control characters in values, trailing
// XXXXXX, and hostile values (".." , "../..", absolute paths, NUL, newlines) that must stay
// confined to the root or be refused; a symlink planted in the root is never followed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDown, STRFTIME_CONVERSIONS, strftimeConversion } from '../../../src/iolog/writer/strftime.js';
import { compileTemplate, expandTemplate, fillTrailingX, pathComponents, type TemplateValues } from '../../../src/iolog/writer/templates.js';
import { createIologSession } from '../../../src/iolog/writer/index.js';
import type { InfoValue, IologSession } from '../../../src/iolog/writer/types.js';
import { removeRoot, sudoInfo, tempRoot, writerOptions } from './helpers.js';

const VALUES: TemplateValues = { user: 'alice', group: 'staff', runas_user: 'root', runas_group: 'wheel', hostname: 'web01', command: 'bash', seq: '00/00/2A' };
// 2026-03-05 07:08:09 UTC, a Thursday, day 64 of the year.
const T = 1_772_694_489;
const UTC = brokenDown(T, 'UTC');

describe('expansion table', () => {
  const table: [string, string][] = [
    ['%{seq}', '00/00/2A'],
    ['%{user}', 'alice'],
    ['%{group}', 'staff'],
    ['%{runas_user}', 'root'],
    ['%{runas_group}', 'wheel'],
    ['%{hostname}', 'web01'],
    ['%{command}', 'bash'],
    ['%%', '%'],
    ['100%%/%{user}', '100%/alice'],
    ['%%{user}', '%{user}'], // %% first: the brace is text
    ['%Y%m%d-%H%M%S', '20260305-070809'],
    ['%y %C %j %e|%d %k|%l %I %p %P', '26 20 064  5|05  7| 7 07 AM am'],
    ['%a %A %b %h %B', 'Thu Thursday Mar Mar March'],
    ['%D|%F|%T|%R|%r', '03/05/26|2026-03-05|07:08:09|07:08|07:08:09 AM'],
    ['%c|%x|%X', 'Thu Mar  5 07:08:09 2026|03/05/26|07:08:09'],
    ['%u %w %U %W %V %G %g', '4 4 09 09 10 2026 26'],
    ['%s %z %Z', `${T} +0000 UTC`],
    ['%{user}/%{runas_user}-%Y%m%d-XXXXXX', 'alice/root-20260305-XXXXXX'],
  ];
  for (const [tpl, want] of table) {
    it(`${tpl} -> ${want}`, () => {
      expect(expandTemplate(compileTemplate(tpl, 'file'), VALUES, UTC)).toBe(want);
    });
  }

  it('the submit time is rendered in the zone asked for, default the process\'s local zone', () => {
    expect(expandTemplate(compileTemplate('%Y-%m-%d %H:%M %z %Z', 'file'), VALUES, brokenDown(T, 'America/New_York'))).toBe('2026-03-05 02:08 -0500 EST');
    expect(expandTemplate(compileTemplate('%F %T %z', 'file'), VALUES, brokenDown(T, 'Asia/Kolkata'))).toBe('2026-03-05 12:38:09 +0530');
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Kolkata';
      expect(expandTemplate(compileTemplate('%F %T %z', 'file'), VALUES, brokenDown(T))).toBe('2026-03-05 12:38:09 +0530');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it.runIf(existsSync('/usr/bin/date'))('every conversion but %Z equals glibc strftime (GNU date) at several instants and zones', () => {
    const convs = STRFTIME_CONVERSIONS.replace('Z', '').split('');
    const format = convs.map((c) => `%${c}`).join('|');
    const instants = [0, 951_782_400 /* 2000-02-29 */, 1_104_537_600 /* 2005-01-01, ISO week 53 of 2004 */, 1_230_681_600 /* 2008-12-31 */, T, 1_798_675_199 /* 2026-12-31 23:59:59 */, 4_102_444_800 /* 2100-01-01 */];
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Kiritimati']) {
      for (const t of instants) {
        const r = spawnSync('/usr/bin/date', ['-d', `@${t}`, `+${format}`], { env: { TZ: zone, LC_ALL: 'C' }, encoding: 'utf8' });
        const want = r.stdout.replace(/\n$/, '').split('|');
        const got = convs.map((c) => strftimeConversion(c, brokenDown(t, zone)));
        expect(got, `${zone} @${t}`).toEqual(want);
      }
    }
  });

  it('values: "/" and control characters become "_"; %{seq} keeps its slashes; a "%" in a value is text', () => {
    const v: TemplateValues = { ...VALUES, user: '../../etc', hostname: '/abs/olute', command: 'a\u0000b\nc\u007fd', runas_user: '%Y%{seq}' };
    expect(expandTemplate(compileTemplate('%{user}/%{hostname}/%{command}/%{runas_user}/%{seq}', 'file'), v, UTC)).toBe('.._.._etc/_abs_olute/a_b_c_d/%Y%{seq}/00/00/2A');
  });

  it('trailing X (6 or more) become random [A-Za-z0-9]; fewer, or X from a value, stay', () => {
    const t = compileTemplate('%{user}-XXXXXXXX', 'file');
    expect(t.trailingX).toBe(8);
    const a = fillTrailingX(expandTemplate(t, VALUES, UTC), t.trailingX);
    const b = fillTrailingX(expandTemplate(t, VALUES, UTC), t.trailingX);
    expect(a).toMatch(/^alice-[A-Za-z0-9]{8}$/);
    expect(a).not.toBe(b);
    expect(compileTemplate('s-XXXXX', 'file').trailingX).toBe(0);
    expect(compileTemplate('%{user}', 'file').trailingX).toBe(0); // a user "XXXXXX" stays literal
    expect(compileTemplate('/srv/XXXXXX', 'dir').trailingX).toBe(0); // only the file part, as mkdtemp of the session
  });

  it('path components: empty ones dropped; ".", "..", over 255 bytes or a path over 4096 bytes refused (1456)', () => {
    expect(pathComponents('a//b/', 'x')).toEqual(['a', 'b']);
    expect(() => pathComponents('a/../b', 'x')).toThrow(/^1456 /);
    expect(() => pathComponents('a/./b', 'x')).toThrow(/^1456 /);
    expect(() => pathComponents(`a/${'é'.repeat(128)}`, 'x')).toThrow(/^1456 .*255 bytes/);
    expect(() => pathComponents('a/'.repeat(2100), 'x')).toThrow(/^1456 .*4096/);
  });

  const invalid: [string, 'dir' | 'file', RegExp][] = [
    ['relative/dir', 'dir', /absolute/],
    ['/srv/%{seq}', 'dir', /%\{seq\} belongs in the file/],
    ['/srv/%{uid}', 'dir', /unknown escape %\{uid\}/],
    ['/srv/%{user', 'dir', /unterminated/],
    ['/abs/file', 'file', /must not start with \//],
    ['', 'file', /empty/],
    ['%n', 'file', /%n is not a supported/],
    ['%-d', 'file', /%- is not a supported/],
    ['%Ey', 'file', /%E is not/],
    ['a%', 'file', /% is not a supported/],
    ['x/../%{seq}', 'file', /component is "\.\."/],
    ['/srv/./io', 'dir', /component is "\."/],
    ['a\nb', 'file', /control character/],
  ];
  for (const [tpl, part, re] of invalid) {
    it(`template ${JSON.stringify(tpl)} (${part}) is refused: IOLOG_TEMPLATE_INVALID (1455)`, () => {
      expect(() => compileTemplate(tpl, part)).toThrow(/^1455 /);
      expect(() => compileTemplate(tpl, part)).toThrow(re);
    });
  }
});

describe('sessions created from templates stay in their root', () => {
  let root: string;
  let outside: string;
  const opened: IologSession[] = [];
  const create = async (dir: string, file: string, over: Record<string, InfoValue | undefined> = {}) => {
    const s = await createIologSession(writerOptions(root, { dir, file }), { sec: T, nsec: 0 }, sudoInfo(over));
    opened.push(s);
    return s;
  };

  beforeAll(() => {
    root = tempRoot();
    outside = tempRoot('evio-writer-outside-');
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    removeRoot(root);
    removeRoot(outside);
  });

  it('every escape in the directory and file templates', async () => {
    const s = await create(`${root}/%{user}/%{group}/%{runas_user}/%{runas_group}`, '%{hostname}-%{command}-%Y%m%d-%{seq}', { submitgroup: 'staff', rungroup: 'wheel', rungid: 10, command: '/usr/bin/bash' });
    expect(s.relPath).toBe('alice/staff/root/wheel/web01-bash-20260305-00/00/01');
    expect(s.tsid).toBe(s.relPath);
    expect(existsSync(join(root, 'alice/staff/root/wheel/seq'))).toBe(true); // the counter lives in the expanded directory
    // No group sent: "unknown", as logsrvd says for %{group}.
    expect((await create(`${root}/%{group}-%{runas_group}`, '%{seq}')).relPath).toBe('unknown-unknown/00/00/01');
  });

  it('XXXXXX: a fresh random name each time, the TSID is the relative path', async () => {
    const a = await create(root, '%{user}/%{runas_user}-%Y%m%d-XXXXXX');
    const b = await create(root, '%{user}/%{runas_user}-%Y%m%d-XXXXXX');
    expect(a.relPath).toMatch(/^alice\/root-20260305-[A-Za-z0-9]{6}$/);
    expect(b.relPath).not.toBe(a.relPath);
    expect(a.tsid).toBe(a.relPath);
  });

  const hostile: [string, Record<string, InfoValue>, string][] = [
    ['user "../.."', { submituser: '../..' }, '.._../00/00/01'],
    ['user "/etc"', { submituser: '/etc' }, '_etc/00/00/01'],
    ['user with NUL and newline', { submituser: 'a\u0000b\nc' }, 'a_b_c/00/00/01'],
    ['user "%Y%%"', { submituser: '%Y%%' }, '%Y%%/00/00/01'],
  ];
  for (const [what, over, rel] of hostile) {
    it(`${what} is confined: ${rel}`, async () => {
      const sub = tempRoot('evio-writer-hostile-');
      try {
        const s = await createIologSession(writerOptions(sub, { dir: `${sub}/%{user}` }), { sec: T, nsec: 0 }, sudoInfo(over));
        expect(s.relPath).toBe(rel);
        expect(s.dir.startsWith(`${sub}/`)).toBe(true);
        await s.close();
      } finally {
        removeRoot(sub);
      }
    });
  }

  it('values that make "." or ".." components are refused (1456), nothing created outside', async () => {
    await expect(create(`${root}/%{user}`, '%{seq}', { submituser: '..' })).rejects.toThrow(/^1456 /);
    await expect(create(`${root}/h`, '%{user}/%{seq}', { submituser: '.' })).rejects.toThrow(/^1456 /);
    await expect(create(`${root}/h`, '%{command}', { command: '/usr/bin/..' })).rejects.toThrow(/^1456 /);
    await expect(create(`${root}/%{hostname}`, '%{command}', { submithost: 'x'.repeat(300) })).rejects.toThrow(/^1456 .*255/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a directory template outside the roots is refused (1455)', async () => {
    await expect(create(outside, '%{seq}')).rejects.toThrow(/^1455 .*not inside iologdirs/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a symlink planted in the root is never followed (1456); nothing is written where it points', async () => {
    symlinkSync(outside, join(root, 'mallory'));
    await expect(create(`${root}/%{user}`, '%{seq}', { submituser: 'mallory' })).rejects.toThrow(/^1456 .*symbolic link/);
    expect((await create(`${root}/links`, 'x/%{user}/%{seq}', { submituser: 'eve' })).relPath).toBe('links/x/eve/00/00/01');
    symlinkSync(outside, join(root, 'links/x/trudy'));
    await expect(create(`${root}/links`, 'x/%{user}/%{seq}', { submituser: 'trudy' })).rejects.toThrow(/^1456 /);
    // As the session directory itself: taken, never written through.
    symlinkSync(outside, join(root, 'victor'));
    await expect(create(root, '%{user}', { submituser: 'victor' })).rejects.toThrow(/^1457 /);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('an existing non-empty directory is never written into (1457); an existing empty one is used', async () => {
    mkdirSync(join(root, 'fixed/bob'), { recursive: true });
    writeFileSync(join(root, 'fixed/bob/keep'), 'data');
    await expect(create(`${root}/fixed`, '%{user}', { submituser: 'bob' })).rejects.toThrow(/^1457 .*already exists and is not empty/);
    expect(readdirSync(join(root, 'fixed/bob'))).toEqual(['keep']);
    mkdirSync(join(root, 'fixed/carol'));
    const s = await create(`${root}/fixed`, '%{user}', { submituser: 'carol' });
    expect(s.relPath).toBe('fixed/carol');
    await expect(create(`${root}/fixed`, '%{user}', { submituser: 'carol' })).rejects.toThrow(/^1457 /);
  });
});
