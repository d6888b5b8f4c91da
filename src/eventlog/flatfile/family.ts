// A log family: the live file and its rotated predecessors, read as one stream in recnum order.
//
// Names recognised next to `NAME` (plain or with `.gz`):
// - evio's own rotation: `NAME.<yyyymmddThhmmssZ>[-k]` (rotate.ts);
// - logrotate's `dateext`: `NAME-<yyyymmdd>[<more digits>]` (default `-%Y%m%d`, also `-%Y%m%d%H`, ...);
// - logrotate's numbering: `NAME.1`, `NAME.2`, ... (1 is the newest).
// Oldest first: dated names by their date (evio stamps and dateext compare as digit strings),
// then numbered ones from the highest number down, then the live file. A name present both
// plain and as `.gz` (a compression interrupted after the .gz was complete) is read once, plain.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface FamilyMember {
  path: string;
  /** The live file (the one appends go to). */
  live: boolean;
  /** Named with .gz (its content is checked by its magic bytes when opened). */
  gz: boolean;
}

const EVIO_STAMP = /^\.(\d{8}T\d{6}Z)(?:-(\d+))?$/;
const DATEEXT = /^-(\d{8,14})$/;
const NUMBERED = /^\.(\d{1,6})$/;

/** Sort key of a rotated name's suffix (after NAME, without .gz), or null when it is not one. */
export function rotatedKey(suffix: string): { dated: string; seq: number } | { numbered: number } | null {
  let m = EVIO_STAMP.exec(suffix);
  if (m) return { dated: m[1]!.replace('T', '').replace('Z', ''), seq: m[2] === undefined ? 1 : Number(m[2]) };
  m = DATEEXT.exec(suffix);
  if (m) return { dated: m[1]!, seq: 0 };
  m = NUMBERED.exec(suffix);
  if (m) return { numbered: Number(m[1]) };
  return null;
}

/** The members of the family of the live file `path`, oldest first, the live file last. */
export async function listFamily(path: string): Promise<FamilyMember[]> {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    names = [];
  }
  const present = new Set(names);
  const found: Array<{ name: string; gz: boolean; key: NonNullable<ReturnType<typeof rotatedKey>> }> = [];
  for (const name of names) {
    if (!name.startsWith(base) || name === base) continue;
    let rest = name.slice(base.length);
    const gz = rest.endsWith('.gz');
    if (gz) {
      rest = rest.slice(0, -3);
      if (present.has(name.slice(0, -3))) continue; // the plain file is complete: read it
    }
    const key = rotatedKey(rest);
    if (key) found.push({ name, gz, key });
  }
  found.sort((a, b) => {
    const ka = a.key;
    const kb = b.key;
    if ('dated' in ka && 'dated' in kb) {
      const la = ka.dated.padEnd(14, '0');
      const lb = kb.dated.padEnd(14, '0');
      return la < lb ? -1 : la > lb ? 1 : ka.seq - kb.seq;
    }
    if ('dated' in ka) return -1;
    if ('dated' in kb) return 1;
    return kb.numbered - ka.numbered;
  });
  const out: FamilyMember[] = found.map((f) => ({ path: join(dir, f.name), live: false, gz: f.gz }));
  out.push({ path, live: true, gz: false });
  return out;
}
