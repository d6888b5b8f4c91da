// evio's public API: what an embedding server imports. The HTTP handlers and the CLI use only
// these functions. docs/api.md shows each with a runnable example.
export { ERRORS, EvioError, isEvioError, toEvioError, type ErrorName, type ErrorDef } from './errors.js';
export { loadSettings, type Settings, type LoadOptions } from './settings.js';
export { Engine } from './engine.js';

// Event logs: model, query, stores.
export type { EType, StoredEvent, NewEvent, EventRow, EventQuery, EventFilter, EventStore, AppendResult, DeleteResult, OrderField, PatternField, QueryOptions } from './eventlog/types.js';
export { parseEventQuery, parseEventDelete, parseLegacyQuery, DEFAULT_LIMIT, DEFAULT_VERBOSE_LIMIT, type StoreRef, type Params } from './eventlog/query.js';
export { compileWildcard, type Wildcard } from './common/wildcard.js';
export { wildcardSql, SqlParams, type SqlDialect } from './common/sql-wildcard.js';
export { shapeEvent, shapeLegacyEvent, type ReturnedEvent } from './eventlog/shape.js';
export { formatEpoch, parseQueryDate } from './eventlog/time.js';
export { MemoryStore } from './eventlog/memory-store.js';
export { FlatFileStore, FileLock, type FlatFileStoreOptions } from './eventlog/flatfile/index.js';
export { SqliteStore, type SqliteStoreOptions } from './eventlog/sqlite/index.js';
export { PostgresStore, type PostgresStoreOptions } from './eventlog/postgres/index.js';
export { OdbcStore, type OdbcStoreOptions } from './eventlog/odbc/index.js';
export { openStore, openStoreByName, openRequestStore, parseStoreName, type StoreSpec } from './eventlog/stores.js';
export { queryEvents, queryLegacyEvents, deleteEvents, appendEvents, copyEvents, eventDestinations, type CopyProgress } from './app/events.js';
export { dumpQuery } from './eventlog/query.js';
export { copyStore } from './eventlog/copy.js';
export { generateEvents } from './eventlog/generate.js';

// The front door both the service and `evio call` use.
export { dispatch, matchRoute } from './app/router.js';
export type { ApiRequest, ApiResponse, Route } from './app/types.js';
