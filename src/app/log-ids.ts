// Log ids of the log server: what a client names to resume a session (RestartMessage.log_id).
// sudo_logsrvd 1.9.13 hands out the session's path, and a restart opens whatever path it is
// given. Here a log id is the session's place sealed with AES-256-GCM under a key only this
// server holds: opaque to the client, unforgeable (a changed byte fails the tag), and nothing to
// store or sync per session. What it seals: the accept's uniqueid, the root's index in
// iologdirs and the session's path relative to that root (resolved inside the root again when
// opened, so even a leaked key names no place outside the roots).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { inside } from '../paths.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface LogIdPlace {
  /** Absolute session directory. */
  dir: string;
  /** The session accept's uniqueid (a UUID). */
  acceptId: string;
}

/** The key in `file` (0600), made on first use; a key of the wrong size is replaced by none: an error. */
function loadKey(file: string): Buffer {
  try {
    const k = readFileSync(file);
    if (k.length !== KEY_BYTES) throw new Error(`${file} holds ${k.length} bytes, not ${KEY_BYTES}`);
    return k;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  try {
    writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file);
    throw err;
  }
}

export class LogIds {
  private readonly key: Buffer;

  constructor(
    keyFile: string,
    private readonly roots: readonly string[],
  ) {
    this.key = loadKey(keyFile);
  }

  static keyFileIn(home: string): string {
    return join(home, 'logsrvd', 'log-id.key');
  }

  seal(place: LogIdPlace): string {
    const root = this.roots.findIndex((r) => inside(r, place.dir));
    if (root < 0) throw new Error(`${place.dir} lies under no I/O log root`);
    const plain = Buffer.concat([Buffer.from(place.acceptId.replace(/-/g, ''), 'hex'), Buffer.of(root), Buffer.from(relative(this.roots[root]!, place.dir), 'utf8')]);
    const iv = randomBytes(IV_BYTES);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([c.update(plain), c.final()]);
    return Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url');
  }

  /** The place a log id seals, or null when it is not one of this server's (any change fails the tag). */
  open(logId: string): LogIdPlace | null {
    if (!/^[A-Za-z0-9_-]{1,1024}$/.test(logId)) return null;
    const raw = Buffer.from(logId, 'base64url');
    // Only the one spelling seal() gives: base64 decoding ignores a last character's spare bits.
    if (raw.length < IV_BYTES + TAG_BYTES + 17 || raw.toString('base64url') !== logId) return null;
    let plain: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      plain = Buffer.concat([d.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), d.final()]);
    } catch {
      return null;
    }
    const root = this.roots[plain[16]!];
    if (root === undefined) return null;
    const dir = join(root, plain.subarray(17).toString('utf8'));
    if (!inside(root, dir)) return null;
    const h = plain.subarray(0, 16).toString('hex');
    return { dir, acceptId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
  }
}
