export { PostgresStore, postgresStoreFromSettings, redactUrl, type PostgresStoreOptions } from './pg-store.js';
