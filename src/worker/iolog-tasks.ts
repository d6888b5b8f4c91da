// The worker entry of the I/O-log pool (piscina loads dist/worker/iolog-tasks.js and calls the
// export named by the task). Each task resolves its paths again inside the roots, does the
// heavy work (decoding, text extraction, regex, SQLite) and answers an Outcome.
import { isEvioError, toEvioError } from '../errors.js';
import { buildChunk } from '../iolog/chunk.js';
import { countIndexedSessions } from '../iolog/index-db.js';
import { indexIsCurrent } from '../iolog/index-freshness.js';
import { updateIndex } from '../iolog/index-update.js';
import { queryIndex } from '../iolog/list-query.js';
import { replaySessionRange } from '../iolog/replay.js';
import { sessionScreen } from '../iolog/screen.js';
import { buildSeekIndex, seekChunk as runSeekChunk, seekScreen as runSeekScreen } from '../iolog/seek.js';
import { sessionCommands } from '../iolog/commands.js';
import { listDirectory } from '../iolog/listing.js';
import { openSession, openSessionOfKind } from '../iolog/locate.js';
import { SEARCH_SESSIONS_IN_FLIGHT } from '../iolog/limits.js';
import type { SessionKind } from '../iolog/locate.js';
import { RegexBudget } from '../iolog/request-budget.js';
import { searchSession as searchOne, type SessionSearchResult } from '../iolog/search.js';
import { textExtractorFactory } from '../iolog/text-factory.js';
import { sessionsMatching } from '../iolog/walk.js';
import type { IologTasks } from './iolog-task-types.js';
import { capture, type Outcome } from './outcome.js';

type Task<K extends keyof IologTasks> = (input: IologTasks[K]['in']) => Promise<Outcome<IologTasks[K]['out']>>;

export const chunk: Task<'chunk'> = (t) =>
  capture(async () => buildChunk(await openSession(t.roots, t.file), t.start, t.len));

export const variables: Task<'variables'> = (t) =>
  capture(async () => {
    const s = await openSession(t.roots, t.file);
    return { file: s.path, variables: await s.variables() };
  });

export const listDir: Task<'listDir'> = (t) => capture(() => listDirectory(t.roots, t.path, t.filter, t.budgetMs));

export const expandGlob: Task<'expandGlob'> = (t) =>
  capture(async () => {
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
    const extractor = await textExtractorFactory();
    const q = { streams: t.streams, regex: t.regex, flags: t.flags };
    const budget = t.budget ? RegexBudget.from(t.budget) : undefined;
    const one = async (s: { kind: SessionKind; path: string }): Promise<SessionSearchResult> => {
      try {
        return await searchOne(openSessionOfKind(s.kind, s.path), q, { detail: t.detail, extractor, hiddenInput: t.hiddenInput ?? false, ...(budget ? { budget } : {}) });
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

export const indexUpdate: Task<'indexUpdate'> = (t) => capture(() => updateIndex(t.roots, t.indexFile, { rebuild: t.rebuild }));

export const indexCurrent: Task<'indexCurrent'> = (t) => capture(async () => indexIsCurrent(t.roots, t.indexFile));

export const listQuery: Task<'listQuery'> = (t) => capture(async () => queryIndex(t.indexFile, t.query));

export const replay: Task<'replay'> = ({ roots, ...r }) => capture(() => replaySessionRange(roots, r));

export const screen: Task<'screen'> = ({ roots, ...r }) => capture(() => sessionScreen(roots, r));

export const seekScreen: Task<'seekScreen'> = ({ roots, seekFile, ...r }) => capture(() => runSeekScreen(roots, seekFile, r));

export const seekChunk: Task<'seekChunk'> = ({ roots, seekFile, ...r }) => capture(() => runSeekChunk(roots, seekFile, r));

export const seekIndex: Task<'seekIndex'> = (t) => capture(() => buildSeekIndex(t.roots, t.seekFile, t.file));

export const commands: Task<'commands'> = ({ roots, ...r }) => capture(() => sessionCommands(roots, r));

export const ping: Task<'ping'> = () => capture(async () => 'pong' as const);

export const indexCount: Task<'indexCount'> = (t) => capture(async () => countIndexedSessions(t.indexFile));
