// The worker entry of the I/O-log pool (piscina loads dist/worker/iolog-tasks.js and calls the
// export named by the task). Each task resolves its paths again inside the roots, does the
// heavy work (decoding, text extraction, regex, SQLite) and answers an Outcome.
// The engine modules are imported when a task first needs them: a thread started for a list
// query should not load the screen model and the search (measured: the thread's start-up was
// most of a one-shot `evio iolog list`, BENCHMARKS.md 7b).
import { isEvioError, toEvioError } from '../errors.js';
import { SEARCH_SESSIONS_IN_FLIGHT } from '../iolog/limits.js';
import type { SessionKind } from '../iolog/locate.js';
import type { SessionSearchResult } from '../iolog/search.js';
import type { BuildNeededAnswer, IologTasks } from './iolog-task-types.js';
import { capture, type Outcome } from './outcome.js';

/** A module loaded on first use, then shared by every task of this thread. */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}

const chunkModule = onFirstUse(() => import('../iolog/chunk.js'));
const indexDb = onFirstUse(() => import('../iolog/index-db.js'));
const freshness = onFirstUse(() => import('../iolog/index-freshness.js'));
const indexUpdating = onFirstUse(() => import('../iolog/index-update.js'));
const listQuerying = onFirstUse(() => import('../iolog/list-query.js'));
const replaying = onFirstUse(() => import('../iolog/replay.js'));
const screens = onFirstUse(() => import('../iolog/screen.js'));
const commandLists = onFirstUse(() => import('../iolog/commands.js'));
const seeking = onFirstUse(() => import('../iolog/seek.js'));
const listing = onFirstUse(() => import('../iolog/listing.js'));
const locating = onFirstUse(() => import('../iolog/locate.js'));
const budgets = onFirstUse(() => import('../iolog/request-budget.js'));
const searching = onFirstUse(() => import('../iolog/search.js'));
const textFactory = onFirstUse(() => import('../iolog/text-factory.js'));
const walking = onFirstUse(() => import('../iolog/walk.js'));

type Task<K extends keyof IologTasks> = (input: IologTasks[K]['in']) => Promise<Outcome<IologTasks[K]['out']>>;

export const chunk: Task<'chunk'> = (t) =>
  capture(async () => {
    const [{ buildChunk }, { openSession }] = await Promise.all([chunkModule(), locating()]);
    return buildChunk(await openSession(t.roots, t.file, t.redact), t.start, t.len);
  });

const v1Cache = onFirstUse(() => import('../iolog/cast-v1-cache.js'));

/** An interactive read that found a build to do answers so (the caller builds in the heavy lane). */
async function orBuildNeeded<T>(work: () => Promise<T>): Promise<T | BuildNeededAnswer> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof (await v1Cache()).BuildNeeded) return { buildNeeded: true };
    throw err;
  }
}

export const variables: Task<'variables'> = (t) =>
  capture(() =>
    orBuildNeeded(async () => {
      const { openSession } = await locating();
      const s = await openSession(t.roots, t.file);
      if (t.castCache !== undefined && 'useV1Cache' in s) (s as { useV1Cache(dir: string, build: boolean): void }).useV1Cache(t.castCache, t.build ?? true);
      return { file: s.path, variables: await s.variables() };
    }),
  );

export const listDir: Task<'listDir'> = (t) => capture(async () => (await listing()).listDirectory(t.roots, t.path, t.filter, t.budgetMs));

export const expandGlob: Task<'expandGlob'> = (t) =>
  capture(async () => {
    const { sessionsMatching } = await walking();
    const sessions: Array<{ kind: 'sudo' | 'asciicast'; path: string }> = [];
    for await (const s of sessionsMatching(t.roots, t.pattern)) {
      if (sessions.length >= t.max) return { sessions, more: true };
      sessions.push({ kind: s.kind, path: s.path });
    }
    return { sessions, more: false };
  });

// A session that cannot be read does not fail a search over many: it becomes a warning. A
// regex past its budget does fail it (every other session would run into the same). A task
// searches a few sessions, several at once: while one waits for its files, another runs. Every
// session charges the request's one regex budget.
export const searchSessions: Task<'searchSessions'> = (t) =>
  capture(async () => {
    const [{ textExtractorFactory }, { RegexBudget }, { searchSession: searchOne }, { openSessionOfKind }] = await Promise.all([textFactory(), budgets(), searching(), locating()]);
    const extractor = await textExtractorFactory();
    const q = { streams: t.streams, regex: t.regex, flags: t.flags };
    const budget = t.budget ? RegexBudget.from(t.budget) : undefined;
    const one = async (s: { kind: SessionKind; path: string }): Promise<SessionSearchResult> => {
      try {
        return await searchOne(openSessionOfKind(s.kind, s.path, t.redact), q, { detail: t.detail, extractor, hiddenInput: t.hiddenInput ?? false, ...(budget ? { budget } : {}) });
      } catch (err) {
        if (isEvioError(err, 'IOLOG_REGEX_TIMEOUT') || isEvioError(err, 'IOLOG_BAD_QUERY')) throw err;
        return { path: s.path, matched: false, matches: [], warnings: [toEvioError(err).message] };
      }
    };
    const out: SessionSearchResult[] = new Array(t.sessions.length);
    let next = 0;
    const lane = async () => {
      while (next < t.sessions.length) {
        const i = next++;
        out[i] = await one(t.sessions[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEARCH_SESSIONS_IN_FLIGHT, t.sessions.length) }, lane));
    return out;
  });

export const indexUpdate: Task<'indexUpdate'> = (t) => capture(async () => (await indexUpdating()).updateIndex(t.roots, t.indexFile, { rebuild: t.rebuild }));

export const indexCurrent: Task<'indexCurrent'> = (t) => capture(async () => (await freshness()).indexIsCurrent(t.roots, t.indexFile));

export const listQuery: Task<'listQuery'> = (t) => capture(async () => (await listQuerying()).queryIndex(t.indexFile, t.query));

export const replay: Task<'replay'> = ({ roots, ...r }) => capture(() => orBuildNeeded(async () => (await replaying()).replaySessionRange(roots, r)));

export const screen: Task<'screen'> = ({ roots, ...r }) => capture(async () => (await screens()).sessionScreen(roots, r));

export const commands: Task<'commands'> = ({ roots, ...r }) => capture(() => orBuildNeeded(async () => (await commandLists()).sessionCommands(roots, r)));

export const seekScreen: Task<'seekScreen'> = ({ roots, seekFile, ...r }) => capture(() => orBuildNeeded(async () => (await seeking()).seekScreen(roots, seekFile, r)));

export const seekChunk: Task<'seekChunk'> = ({ roots, seekFile, ...r }) => capture(() => orBuildNeeded(async () => (await seeking()).seekChunk(roots, seekFile, r)));

export const seekIndex: Task<'seekIndex'> = (t) => capture(async () => (await seeking()).buildSeekIndex(t.roots, t.seekFile, t.file));

export const ping: Task<'ping'> = () => capture(async () => 'pong' as const);

export const indexCount: Task<'indexCount'> = (t) => capture(async () => (await indexDb()).countIndexedSessions(t.indexFile));
