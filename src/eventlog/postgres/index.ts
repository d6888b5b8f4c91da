export { PostgresStore, redactUrl, type PostgresStoreOptions } from './pg-store.js';
