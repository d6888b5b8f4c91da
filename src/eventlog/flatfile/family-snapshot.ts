// One consistent view of a log family for one query: every member opened before a single row is
// read, the handles kept until the query ends. Renames (logrotate's .1 -> .2, evio's live ->
// NAME.<stamp>) and compression (the .gz written, then the plain file unlinked) do not touch an
// open file's content, so reading from these handles can neither miss nor repeat a rotated file.
//
// Consistency: list, open all, list again and compare (names -> inodes); a rotation in between
// changes the list, and the snapshot is taken again (a few times, then PATH_CHANGED).
//
// Two moments of evio's own rotation (rotate.ts) need more than handles:
// - between its link (step 3) and its rename (step 4) the rotated name and the live name are
//   one file: read once, as the live file;
// - its step 5 cuts the last event line (and what follows) off the old live file *in place*, so
//   a handle of the live file loses that line when a rotation runs during the query. The live
//   file is therefore read from its handle only up to where a rotation could cut it (the start of
//   its last event line: appends only add lines after it), and the bytes from there to the size
//   the snapshot saw are copied into memory when the snapshot is taken. A rotated file listed
//   between steps 4 and 5 (the journal names it, the live file is the rotation's new file) is
//   read up to the journal's cut: the rest is the new live file's first record.
import type { FileHandle } from 'node:fs/promises';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { evioError } from '../../errors.js';
import { readJson } from '../../common/job-files.js';
import { listFamily, type FamilyMember } from './family.js';
import { readAt } from './read-at.js';
import { lastNewlineBefore } from './tail.js';
import { journalPathOf, lastEventStart, type RotateJournal } from './rotate.js';

/** The part of a file a query reads: [0, safeEnd) from the handle, then `tail` up to `end`. */
export interface FileView {
  safeEnd: number;
  end: number;
  /** Bytes [safeEnd, end), copied when the snapshot was taken. */
  tail: Buffer;
}

export interface SnapshotMember extends FamilyMember {
  /** Null only for a live file that does not exist (rotated, not yet appended to). */
  fh: FileHandle | null;
  /** Where reading stops (and what comes from memory); null: the whole file, as it grows. */
  view: FileView | null;
}

/** How often a snapshot is taken again while rotations keep changing the list. */
export const SNAPSHOT_TRIES = 8;
/** A tail longer than this (a file ending in megabytes of non-event lines) is read from the handle. */
const MAX_TAIL_COPY = 64 << 20;

/** Opens a member for reading; null when it does not exist. */
export type OpenMember = (path: string) => Promise<FileHandle | null>;

export async function takeFamilySnapshot(path: string, open: OpenMember, signal?: AbortSignal): Promise<SnapshotMember[]> {
  for (let attempt = 1; attempt <= SNAPSHOT_TRIES; attempt++) {
    signal?.throwIfAborted();
    const taken = await tryOnce(path, open);
    if (taken) return taken;
    // Let the rotation that moved the names finish its next step.
    await new Promise((r) => setTimeout(r, attempt * 5));
  }
  throw evioError('PATH_CHANGED', `the files of the log family of ${path} changed ${SNAPSHOT_TRIES} times while a query opened them (rotations running); query again`);
}

/** One attempt: the members, opened, or null (handles closed) when the list changed meanwhile. */
async function tryOnce(path: string, open: OpenMember): Promise<SnapshotMember[] | null> {
  const listed = await listFamily(path);
  const members: SnapshotMember[] = [];
  const inodes: Array<bigint | null> = [];
  let ok = false;
  try {
    // All at once (a family may have many members); every handle opened is kept for the cleanup.
    const opened = await Promise.allSettled(listed.map((m) => open(m.path)));
    for (let i = 0; i < listed.length; i++) {
      const o = opened[i]!;
      if (o.status === 'fulfilled') members.push({ ...listed[i]!, fh: o.value, view: null });
    }
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    // A rotated file gone between the listing and its open was renamed or compressed.
    if (members.some((m) => m.fh === null && !m.live)) return null;
    inodes.push(...(await Promise.all(members.map(async (m) => (m.fh === null ? null : (await m.fh.stat({ bigint: true })).ino)))));
    const live = members[members.length - 1]!;
    if (live.fh) {
      const view = await liveView(live.fh);
      if (!view) return null;
      live.view = view;
    }
    await capRotating(path, members, inodes);
    if (!(await sameList(path, listed, inodes))) return null;
    ok = true;
    // Two names of one file: a rotation between its link and its rename. Read it once, as the
    // later member (the live file).
    const kept: SnapshotMember[] = [];
    for (let i = 0; i < members.length; i++) {
      const ino = inodes[i] ?? null;
      if (ino !== null && inodes.indexOf(ino, i + 1) !== -1) await members[i]!.fh?.close();
      else kept.push(members[i]!);
    }
    return kept;
  } finally {
    if (!ok) await closeAll(members);
  }
}

/** The live file up to the size seen now; its last event line (and after) copied. Null: cut meanwhile. */
async function liveView(fh: FileHandle): Promise<FileView | null> {
  const end = Number((await fh.stat()).size);
  // Bytes after the last newline (a torn line an append will seal) may become an event line too.
  const lastLineStart = (await lastNewlineBefore(fh, end)) + 1;
  const cutAt = await lastEventStart(fh, end);
  const safeEnd = Math.min(cutAt ?? lastLineStart, lastLineStart);
  if (end - safeEnd > MAX_TAIL_COPY) return { safeEnd: end, end, tail: Buffer.alloc(0) };
  const tail = await readAt(fh, end - safeEnd, safeEnd);
  // Shorter: a rotation cut the file meanwhile (its new live file then has another inode, which
  // the second listing would see too).
  if (tail.length < end - safeEnd) return null;
  return { safeEnd, end, tail };
}

/** A rotated file listed between a rotation's rename and its cut holds the new file's first record too. */
async function capRotating(path: string, members: SnapshotMember[], inodes: Array<bigint | null>): Promise<void> {
  let j: RotateJournal | null;
  try {
    j = await readJson<RotateJournal>(journalPathOf(path));
  } catch {
    return; // not a journal of ours: nothing to learn from it
  }
  if (!j || typeof j.rotated !== 'string' || typeof j.cut !== 'number' || typeof j.tmpIno !== 'string') return;
  const liveIno = inodes[inodes.length - 1];
  if (liveIno === null || liveIno === undefined || String(liveIno) !== j.tmpIno) return; // not renamed yet
  const i = members.findIndex((m) => !m.live && !m.gz && resolve(m.path) === resolve(j.rotated));
  if (i === -1) return;
  members[i]!.view = { safeEnd: j.cut, end: j.cut, tail: Buffer.alloc(0) };
}

/** Whether the family still lists the same names, each the same file (or still missing). */
async function sameList(path: string, listed: FamilyMember[], inodes: Array<bigint | null>): Promise<boolean> {
  const again = await listFamily(path);
  if (again.length !== listed.length || again.some((m, i) => m.path !== listed[i]!.path)) return false;
  const now = await Promise.all(
    again.map((m) =>
      stat(m.path, { bigint: true }).then(
        (s) => s.ino,
        () => null,
      ),
    ),
  );
  return now.every((ino, i) => ino === inodes[i]);
}

export async function closeAll(members: SnapshotMember[]): Promise<void> {
  for (const m of members) {
    const fh = m.fh;
    m.fh = null;
    await fh?.close().catch(() => undefined);
  }
}
