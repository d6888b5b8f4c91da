// The flat-file (NDJSON) event store and its writer lock (shared with the rotate job).
export { FlatFileStore, type FlatFileStoreOptions } from './flatfile-store.js';
export { FileLock, holderIsDead, type FileLockOptions, type HeldLock, type LockInfo } from '../../common/file-lock.js';
