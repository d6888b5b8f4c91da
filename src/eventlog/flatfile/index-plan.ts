// The query planner of a flat file with a skip index: reading it through the index or scanning
// it, whichever costs less, so that the index is never slower than the scan. Both give the same
// answer; only the cost differs. The estimate uses what the index holds in memory: the block
// table (which blocks the type, recnum and time bounds leave), the lines per dictionary id of
// each field and per event type (selectivity, fields taken as independent), and how many lines
// carry evio's canonical prefix (which a scan decides without parsing). An exact uniqueid always
// goes through the index: its uniqueid table names the few blocks to read.
//
// Costs are in microseconds of one core, constants measured on the development machine (docs/
// flatfile.md, "The planner"; BENCHMARKS.md section 11): they only need to be right in ratio.
// The scan's estimate is a lower bound where the index cannot tell (a literal of a field it has
// no column for), so that an uncertain case goes to the scan: never slower than the scan.
import { admittedTypes } from '../filter.js';
import type { EventQuery } from '../types.js';
import { admittedLines, blockTest, columnMasks, READ_GAP, uidHashes } from './index-scan.js';
import { literalPlan } from './prefilter.js';
import { B_END, B_LINE_FROM, B_LINE_TO, B_START, BF, C_DICT, COL_FIELDS, COL_OVERFLOW, KIND_SLOT, type ColField, type SkipIndex } from './skip-index.js';

/** Copying one byte from the page cache into the read buffer and searching it for a needle (scan). */
export const SCAN_BYTE_US = 0.0004;
/** Walking one line without parsing it (a scan without literal, or while accepts wait). */
export const WALK_LINE_US = 0.05;
/** Parsing one line, building its record and testing the filter (scan and index alike). */
export const PARSE_LINE_US = 2.5;
/** The index path's own work per wanted line (its place in the read buffer, the candidate lists). */
export const INDEX_LINE_US = 0.2;
/** One positioned read. */
export const READ_CALL_US = 4;
/** One byte copied by a positioned read. */
export const READ_BYTE_US = 1 / 6000;
/** One line of one column read, checked (keyed hash) and tested. */
export const COLUMN_LINE_US = 0.012;
/** One block visited by the index scan. */
export const BLOCK_US = 8;

export interface PathChoice {
  index: boolean;
  /** Estimated cost of each path (µs) and the rows the index path would parse. */
  indexUs: number;
  scanUs: number;
  lines: number;
}

const TYPE_SLOT: Record<string, number> = { A: KIND_SLOT[65]!, R: KIND_SLOT[82]!, K: KIND_SLOT[75]!, F: KIND_SLOT[70]! };

/** Whether to read the part of the file `ix` covers from byte `pos` on through the index. */
export function choosePath(ix: SkipIndex, q: EventQuery, pos: number): PathChoice {
  const n = Math.max(1, ix.lines);
  if (uidHashes(q) !== null) return { index: true, indexUs: 0, scanUs: Infinity, lines: 0 };
  const types = admittedTypes(q);
  let typeLines = 0;
  for (const t of types) typeLines += ix.kinds[TYPE_SLOT[t]!]!;
  const typeFrac = typeLines / n;
  // Field selectivities from the id counts.
  const masks = columnMasks(ix, q);
  let fieldFrac = 1;
  for (const [col, m] of masks) {
    const f = COL_FIELDS[col - C_DICT]!;
    fieldFrac *= admittedLines(ix, f, m) / n;
  }
  // The blocks the block table leaves, and what they hold.
  const mayHold = blockTest(q);
  const t = ix.table;
  let posLines = 0;
  let posBytes = 0;
  let candBlocks = 0;
  let candLines = 0;
  let candBytes = 0;
  for (let b = 0; b < ix.blocks; b++) {
    const o = b * BF;
    if (t[o + B_END]! <= pos) continue;
    const lines = t[o + B_LINE_TO]! - t[o + B_LINE_FROM]!;
    const bytes = t[o + B_END]! - Math.max(pos, t[o + B_START]!);
    posLines += lines;
    posBytes += bytes;
    if (!mayHold(t, o)) continue;
    candBlocks++;
    candLines += lines;
    candBytes += bytes;
  }
  const lines = candLines * typeFrac * fieldFrac;
  // No line can match (a value on no line, no block in range): the index answers at once.
  if (lines === 0) return { index: true, indexUs: 0, scanUs: posBytes * SCAN_BYTE_US, lines };
  const canonFrac = ix.canon / n;
  // The index: the columns of the candidate blocks (type, start and one per field), the wanted
  // lines (runs closer than READ_GAP in one read), their parses; with dump=0 the uid and type
  // columns of every block while accepts wait, and the finishes.
  let indexUs = candBlocks * BLOCK_US + candLines * (2 + masks.length) * COLUMN_LINE_US + lines * (PARSE_LINE_US + INDEX_LINE_US);
  if (candBlocks > 0) {
    const perBlock = lines / candBlocks;
    const blockBytes = candBytes / candBlocks;
    const lineBytes = candBytes / Math.max(1, candLines);
    const dense = (1 + blockBytes / READ_GAP / 4) * READ_CALL_US + blockBytes * READ_BYTE_US;
    const sparse = perBlock * (READ_CALL_US + lineBytes * READ_BYTE_US);
    indexUs += candBlocks * Math.min(dense, sparse);
  }
  if (!q.dump && lines > 0) indexUs += posLines * 2 * COLUMN_LINE_US + lines * PARSE_LINE_US;
  // The scan: every byte read and searched; the lines holding its literal parsed (at least the
  // rows); without a literal every line walked and the lines it cannot decide by their prefix
  // parsed; with dump=0 every line walked while accepts wait.
  const plan = literalPlan(q);
  let scanLines: number;
  if (plan === null) scanLines = posLines * (canonFrac * typeFrac + (1 - canonFrac));
  else {
    const col = (COL_FIELDS as readonly string[]).indexOf(plan.field);
    const needle = plan.needle.toString('utf8');
    scanLines = col >= 0 ? Math.max(lines, (posLines * linesHolding(ix, COL_FIELDS[col]!, needle)) / n) : lines;
  }
  let scanUs = posBytes * SCAN_BYTE_US + scanLines * PARSE_LINE_US;
  if (plan === null) scanUs += posLines * WALK_LINE_US;
  if (!q.dump && lines > 0) scanUs += posLines * WALK_LINE_US + posLines * (1 - canonFrac) * PARSE_LINE_US;
  return { index: indexUs <= scanUs, indexUs, scanUs, lines };
}

/** Lines whose `f`, written as JSON, holds `needle` (the scan's literal; overflowed values counted as holding it). */
function linesHolding(ix: SkipIndex, f: ColField, needle: string): number {
  const c = ix.counts[f];
  const dict = ix.dicts[f];
  let sum = ix.overflow[f];
  for (let id = 1; id < c.length; id++) if (JSON.stringify(dict[id - 1]).includes(needle)) sum += c[id]!;
  return sum;
}
