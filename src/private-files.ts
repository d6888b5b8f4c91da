// Files and folders only evio's own user may read: the data folder (keystore, audit log,
// caches) and the caches and indexes evio writes for itself. They describe sessions and event
// logs that are themselves private (sudo writes I/O logs 0600 in 0700 folders), so a cache must
// not be readable where its source is not. Created so from the start, whatever the umask; an
// existing file or folder keeps the mode the operator gave it.
import { closeSync, mkdirSync, openSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** mkdir -p, every folder it creates 0700 (before the umask, which can only take more away). */
export function mkdirPrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty with mode 0600 unless something is there already (a symlink included: O_EXCL
 * never follows one). SQLite then opens it as an empty database and gives its -wal, -shm and
 * -journal files the same mode.
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
