// Answers and errors never show the server's absolute paths (issue 28, point 11): a file or
// folder is named relative to the configured root it lies under (or as the client gave it).
// Each answer below is grepped for the data folder's absolute path; before, 8 of them showed it
// (the chunk's `file`, the listing's `path`s, not-found and not-a-file errors).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import type { RunningServer } from '../../src/http/server.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';
import { writeSudoSession } from './helpers.js';

const V = '/REST/v2.0';

describe('no absolute server path in answers', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome();
    writeSudoSession(join(home.dir, 'iolog', '00', '00', '01'), Buffer.from('hello\r\n'), { command: '/bin/ls', runargv: ['ls'] });
    mkdirSync(join(home.dir, 'logs'), { recursive: true });
    writeFileSync(join(home.dir, 'logs', 'bad.ndjson'), '{"recnum":1,"uniqueid":"a","etype":"A","time":1}\nnot json\n');
    writeFileSync(join(home.dir, 'events.ndjson'), [...generateEvents({ count: 50, seed: 3 })].map((r) => JSON.stringify(r) + '\n').join(''));
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  const calls: Array<[string, string]> = [
    ['GET', `${V}/iolog?file=00/00/01`],
    ['GET', `${V}/iolog?file=${'HOME'}/iolog/00/00/01`],
    ['GET', `${V}/iolog?path=00/00`],
    ['GET', `${V}/iolog?path=${'HOME'}/iolog/00`],
    ['GET', `${V}/iolog/search?file=**&query=hello`],
    ['GET', `${V}/iolog/search?file=**&query=hello&detail=1`],
    ['GET', `${V}/iolog/commands?file=**`],
    ['GET', `${V}/iolog/variables?file=00/00/01`],
    ['GET', `${V}/iolog/list`],
    ['GET', `${V}/iolog?file=00/00/99`],
    ['GET', `${V}/iolog?file=${'HOME'}/iolog/00/00/99`],
    ['GET', `${V}/iolog?path=nothere`],
    ['GET', `${V}/events?format=ff&file=nothere.ndjson`],
    ['GET', `${V}/events?format=ff&file=${'HOME'}/nothere.ndjson`],
    ['GET', `${V}/events?format=ff&file=logs`],
    ['GET', `${V}/events?format=ff&file=logs/bad.ndjson`],
    ['GET', `${V}/events?format=ff&file=events.ndjson&limit=3`],
    ['GET', `${V}/events?format=db&file=${'HOME'}/none.sqlite`],
    ['GET', `${V}/events/destinations`],
    ['GET', `${V}/events/stores`],
  ];
  for (const [method, url] of calls) {
    it(`${method} ${url}`, async () => {
      const a = await signed(server, 'reader', method, url.replace('HOME', home.dir));
      expect(a.text.length).toBeGreaterThan(0);
      expect(a.text).not.toContain(home.dir);
    });
  }
});
