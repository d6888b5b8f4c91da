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
export { knownEventStores, type KnownStore } from './app/event-stores.js';
export { dumpQuery } from './eventlog/query.js';
export { copyStore } from './eventlog/copy.js';
export { generateEvents } from './eventlog/generate.js';

// Event-log batch jobs.
export { exportEvents, type ExportRequest, type ExportResult } from './app/events-export.js';
export { importEvents, type ImportRequest, type ImportReport } from './app/events-import.js';
export { purgeEvents, purgeTarget, type PurgeOptions, type PurgeReport } from './app/events-purge.js';
export { rotateEvents, listRotatedEvents, type RotateResult } from './app/events-rotate.js';
export { generateEventLog, generateSessionTree } from './app/generate.js';

// I/O logs: the use cases (validated parameters, heavy work in the worker pool) and the readers.
export {
  iologChunk,
  iologVariables,
  iologListDirectory,
  iologDownload,
  iologSearch,
  iologList,
  iologIndex,
  iologReplay,
  iologScreen,
  iologCommands,
  iologExport,
  matchingPaths,
  SearchAnswer,
  type SearchRun,
} from './app/iolog.js';
export { openSession, type SessionKind } from './iolog/locate.js';
export type { IologSession } from './iolog/session.js';
export type { ChunkResult } from './iolog/chunk.js';
export type { Variables } from './iolog/log-info.js';
export type { CachedRecord } from './iolog/index-db.js';
export type { ReplayResult } from './iolog/replay.js';
export type { ScreenResult } from './iolog/screen.js';
export type { CommandsResult, CommandEntry } from './iolog/commands.js';
export { TypedInput, type TypedLine } from './replay/text/typed-input/index.js';

// Replay: bytes in, tokens, screens and text out.
export { Parser, Tokenizer, Screen, renderScreen, ProcessedText, loadTerminfo, replayRange, screenAt, type ReplayItem, type TokenItem, type TextItem, type TerminfoEntry } from './replay/index.js';
// What a player may write to a terminal (docs/replay.md "The terminal filter").
export { TerminalFilter, filterTerminalOutput } from './replay/index.js';

// Request signatures (docs/auth.md): what a client of the REST service needs.
export { signRequest, signSha256, canonicalString, canonicalQuery, AUTH_PARAMS, type SignRequestInput, type SignedParts, type SignatureScheme } from './signing.js';
export { sendSigned, signedUrl, type RestCall } from './app/rest-client.js';

// The front door both the service and `evio call` use.
export { dispatch, matchRoute } from './app/router.js';
export type { ApiRequest, ApiResponse, ParamSpec, Route } from './app/types.js';
