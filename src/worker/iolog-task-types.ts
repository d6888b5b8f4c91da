// The inputs and outputs of the I/O-log worker tasks: plain data only (structured clone).
import type { ChunkResult } from '../iolog/chunk.js';
import type { CommandsRequest, CommandsResult } from '../iolog/commands.js';
import type { CachedRecord } from '../iolog/index-db.js';
import type { IndexStats } from '../iolog/index-update.js';
import type { DirListing } from '../iolog/listing.js';
import type { Variables } from '../iolog/log-info.js';
import type { ListQuery } from '../iolog/list-query.js';
import type { SessionKind } from '../iolog/locate.js';
import type { RedactView } from '../iolog/redact/redacted-session.js';
import type { RegexBudgetShare } from '../iolog/request-budget.js';
import type { SessionSearchResult } from '../iolog/search.js';
import type { ReplayRequest, ReplayResult } from '../iolog/replay.js';
import type { ScreenRequest, ScreenResult } from '../iolog/screen.js';
import type { StreamName } from '../iolog/timing.js';
import type { SeekBuildStats, SeekChunkRequest, SeekScreenRequest, SeekScreenResult, TailHint } from '../iolog/seek.js';

export interface IologTasks {
  chunk: { in: { roots: string[]; file: string; start: number; len: number; redact?: RedactView }; out: ChunkResult };
  /** castCache: read an asciicast v1 file through its cache in this folder; build false: never parse it here (buildNeeded). */
  variables: { in: { roots: string[]; file: string; castCache?: string; build?: boolean }; out: { file: string; variables: Variables } | BuildNeededAnswer };
  listDir: { in: { roots: string[]; path: string; filter?: string; budgetMs?: number }; out: DirListing };
  expandGlob: { in: { roots: string[]; pattern: string; max: number }; out: { sessions: Array<{ kind: SessionKind; path: string }>; more: boolean } };
  /** `budget`: the search request's regex time, shared by all its tasks (absent: per batch only). */
  searchSessions: { in: { sessions: Array<{ kind: SessionKind; path: string }>; streams: StreamName[]; regex: string; flags?: string; detail: boolean; hiddenInput?: boolean; budget?: RegexBudgetShare; redact?: RedactView }; out: SessionSearchResult[] };
  indexUpdate: { in: { roots: string[]; indexFile: string; rebuild: boolean }; out: IndexStats };
  indexCurrent: { in: { roots: string[]; indexFile: string }; out: boolean };
  listQuery: { in: { indexFile: string; query: ListQuery }; out: CachedRecord[] };
  replay: { in: ReplayRequest & { roots: string[] }; out: ReplayResult | BuildNeededAnswer };
  screen: { in: ScreenRequest & { roots: string[] }; out: ScreenResult };
  /** Through the seek index (keyframes), built or extended first when the session is new or grew. */
  seekScreen: { in: SeekScreenRequest & { roots: string[]; seekFile: string }; out: SeekScreenResult | BuildNeededAnswer };
  seekChunk: { in: SeekChunkRequest & { roots: string[]; seekFile: string }; out: (ChunkResult & { at?: number; tail?: TailHint }) | BuildNeededAnswer };
  /** The heavy lane: brings a session's seek index (or an asciicast v1 file's cache) up to date. */
  seekIndex: { in: { roots: string[]; seekFile: string; file: string }; out: SeekBuildStats & { file: string; bytes: number; duration: number } };
  commands: { in: CommandsRequest & { roots: string[] }; out: CommandsResult | BuildNeededAnswer };
  /** Readiness: a worker thread starts and answers. */
  ping: { in: Record<string, never>; out: 'pong' };
  /** Metrics: sessions in the index; null when it has not been built. */
  indexCount: { in: { indexFile: string }; out: number | null };
}

/**
 * What an interactive task called with build: false answers when the session's seek index or
 * v1 cache must be built first: the caller runs seekIndex (the heavy lane), then asks again.
 */
export interface BuildNeededAnswer {
  buildNeeded: true;
}

export const isBuildNeeded = (v: unknown): v is BuildNeededAnswer => typeof v === 'object' && v !== null && (v as { buildNeeded?: unknown }).buildNeeded === true;

export type IologTaskName = keyof IologTasks;
