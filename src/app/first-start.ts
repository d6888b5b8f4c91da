// The embedded default: on a fresh machine `evio serve` needs no setup. The data folder, the
// I/O log roots and the keystore are created when missing; a new keystore gets one app with a
// random key. The key is written to a file only its owner can read (its path is printed): a
// service's standard output goes to the journal, which others may read and which is kept.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Settings } from '../settings.js';
import { newKey, writeKeystore, writeOwnerOnly } from '../keystore.js';
import { mkdirPrivate } from '../private-files.js';

export const FIRST_APPID = 'admin';

export interface FirstStart {
  /** The app created with a new keystore, and the 0600 file that holds its key; or null. */
  created: { appid: string; key: string; keyFile: string } | null;
  /** Folders that could not be created (reported, not fatal: a root may be mounted later). */
  warnings: string[];
}

export function prepareDataFolder(settings: Settings, now = new Date()): FirstStart {
  const warnings: string[] = [];
  // 0700: the keystore, the audit log and the caches are evio's alone (private-files.ts).
  mkdirPrivate(settings.home);
  for (const dir of settings.iologdirs) {
    try {
      mkdirPrivate(dir); // as sudo makes its I/O log folders
    } catch (err) {
      warnings.push(`cannot create the I/O log root ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (existsSync(settings.keystore)) return { created: null, warnings };
  const key = newKey();
  writeKeystore(settings.keystore, { apps: { [FIRST_APPID]: { key, scheme: 'hmac-sha256', created: now.toISOString() } } });
  const keyFile = join(dirname(settings.keystore), `${FIRST_APPID}.key`);
  writeOwnerOnly(keyFile, `${key}\n`);
  return { created: { appid: FIRST_APPID, key, keyFile }, warnings };
}
