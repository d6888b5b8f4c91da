// The writer's options checked once per call, with their defaults, and the templates compiled
// (and cached: they are the server's settings, the same for every session).
import { isAbsolute, resolve } from 'node:path';
import { evioError } from '../../errors.js';
import { dirModeOf } from './dirs.js';
import { MAX_SEQ } from './seq.js';
import { compileTemplate, type CompiledTemplate } from './templates.js';
import type { IologWriterOptions } from './types.js';

export interface WriterSettings {
  dirTemplate: CompiledTemplate;
  fileTemplate: CompiledTemplate;
  roots: string[];
  compress: boolean;
  fileMode: number;
  dirMode: number;
  maxSeq: number;
  timeZone: string | undefined;
  level: number;
  lockTimeoutMs: number;
  seqReserve: number;
}

const templates = new Map<string, CompiledTemplate>();
function compiled(source: string, part: 'dir' | 'file'): CompiledTemplate {
  const key = `${part}\u0000${source}`;
  let t = templates.get(key);
  if (!t) {
    t = compileTemplate(source, part);
    if (templates.size >= 64) templates.clear();
    templates.set(key, t);
  }
  return t;
}

function bad(key: string, why: string): never {
  throw evioError('SETTINGS_INVALID', `I/O log writer option ${key}: ${why}`);
}

export function writerSettings(o: IologWriterOptions): WriterSettings {
  if (!Array.isArray(o.roots) || o.roots.length === 0 || !o.roots.every((r) => typeof r === 'string' && isAbsolute(r))) bad('roots', 'give at least one absolute directory');
  const fileMode = o.fileMode ?? 0o600;
  if (!Number.isInteger(fileMode) || fileMode < 0 || fileMode > 0o777 || (fileMode & 0o600) !== 0o600) bad('fileMode', `${String(fileMode)} is not a mode from 0600 to 0777 that lets the owner read and write`);
  let maxSeq = o.maxSeq ?? MAX_SEQ;
  if (!Number.isInteger(maxSeq) || maxSeq < 2) bad('maxSeq', `${String(maxSeq)} is not a whole number of 2 or more`);
  maxSeq = Math.min(maxSeq, MAX_SEQ); // as sudo: larger values are cut to 36^6
  const level = o.compressLevel ?? 6;
  if (!Number.isInteger(level) || level < 1 || level > 9) bad('compressLevel', `${String(level)} is not 1-9`);
  const lockTimeoutMs = o.lockTimeoutMs ?? 10_000;
  const seqReserve = o.seqReserve ?? 0;
  if (!Number.isInteger(seqReserve) || seqReserve < 0 || seqReserve > 1000) bad('seqReserve', `${String(seqReserve)} is not a whole number from 0 to 1000`);
  if (!Number.isInteger(lockTimeoutMs) || lockTimeoutMs < 0) bad('lockTimeoutMs', `${String(lockTimeoutMs)} is not a whole number of milliseconds`);
  if (o.timeZone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: o.timeZone });
    } catch {
      bad('timeZone', `${JSON.stringify(o.timeZone)} is not an IANA time zone`);
    }
  }
  return {
    dirTemplate: compiled(o.dir, 'dir'),
    fileTemplate: compiled(o.file ?? '%{seq}', 'file'),
    roots: o.roots.map((r) => resolve(r)),
    compress: o.compress === true,
    fileMode,
    dirMode: dirModeOf(fileMode),
    maxSeq,
    timeZone: o.timeZone,
    level,
    lockTimeoutMs,
    seqReserve,
  };
}
