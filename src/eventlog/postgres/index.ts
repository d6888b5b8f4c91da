export { PostgresStore, type PostgresStoreOptions } from './pg-store.js';
export { redactUrl } from './pg-url.js';
