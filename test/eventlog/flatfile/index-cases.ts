// Logs and queries the skip-index tests share: a log whose finishes come many blocks after
// their accepts, queries of every kind the index serves, and the answers to compare.
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import type { EventStore, StoredEvent } from '../../../src/eventlog/types.js';
import { collect, comparable } from './helpers.js';

export const lines = (recs: StoredEvent[]) => recs.map((r) => JSON.stringify(r) + '\n').join('');

/** A log with sessions whose finishes come far later (many blocks apart). */
export function makeLog(count: number, seed = 7, shape: { users?: number; hosts?: number; commands?: number; uidPrefix?: string } = {}): StoredEvent[] {
  const { users = 9, hosts = 4, commands = 20, uidPrefix = 's' } = shape;
  let x = seed;
  const rand = (m: number) => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x % m;
  };
  const out: StoredEvent[] = [];
  const open: string[] = [];
  let t = 1767225600;
  for (let i = 1; i <= count; i++) {
    t += rand(50);
    if (open.length > 0 && rand(2) === 0) {
      const uid = open.splice(rand(open.length), 1)[0]!;
      out.push({ recnum: i, uniqueid: uid, etype: 'F', time: t, exitstatus: `Command finished with exit status ${rand(3)}` });
    } else {
      const et = (['A', 'A', 'K', 'R'] as const)[rand(4)]!;
      const uid = `${uidPrefix}${i}`;
      out.push({ recnum: i, uniqueid: uid, etype: et, time: t, submituser: `user${rand(users)}`, submithost: `host${rand(hosts)}`, runuser: 'root', runhost: `host${rand(hosts)}`, runcommand: `/bin/cmd${rand(commands)}` });
      if (et !== 'R') open.push(uid);
    }
  }
  return out;
}

export const QUERIES: Array<Record<string, string>> = [
  {},
  { dump: '1' },
  { submituser: 'user3' },
  { submituser: 'user3', dump: '1' },
  { runcommand: '/bin/cmd1*' },
  { submithost: 'host1', runcommand: '*7' },
  { uniqueid: 's120' },
  { from: String(1767225600 + 2000), to: String(1767225600 + 3000) },
  { exittime_from: String(1767225600 + 2000), exittime_to: String(1767225600 + 2600) },
  { exitstatus: '*status 1', submituser: 'user5' },
  { etype: 'K', limit: '7' },
  { submituser: 'user2', start: '5', limit: '9' },
  { end: '300', dump: '1', etype: 'F' },
];

export async function answers(store: EventStore, family = false): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const p of QUERIES) {
    const q = parseEventQuery({ format: 'ff', file: 'x', ...(family ? { family: '1' } : {}), ...p }).query;
    out.push({ p, rows: comparable(await collect(store.query(q))) });
  }
  return out;
}

export async function reference(records: StoredEvent[]): Promise<unknown[]> {
  const m = new MemoryStore();
  await m.append(records);
  const out: unknown[] = [];
  for (const p of QUERIES) {
    const { start, ...rest } = p;
    const q = parseEventQuery({ format: 'db', ...rest, ...(start ? { offset: start } : {}) }).query;
    out.push({ p, rows: comparable(await collect(m.query(q))) });
  }
  return out;
}

