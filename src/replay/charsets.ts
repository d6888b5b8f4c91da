// Character sets a VT100-class terminal designates into G0-G3 (ESC ( F, ESC ) F, ...).
// Supported: B (US ASCII, the default), 0 (DEC Special Graphics: line drawing) and A (UK).
// Other national replacement sets are treated as US ASCII.

/** A charset maps printable ASCII (0x20-0x7E) to replacement code points; null = ASCII. */
export type Charset = Uint32Array | null;

function makeCharset(map: Record<string, number>): Uint32Array {
  const table = new Uint32Array(0x7f);
  for (let c = 0; c < 0x7f; c++) table[c] = c;
  for (const [ch, cp] of Object.entries(map)) table[ch.charCodeAt(0)] = cp;
  return table;
}

/** DEC Special Graphics (VT100 User Guide, table 3-9): 0x60-0x7E become line drawing glyphs. */
export const DEC_SPECIAL_GRAPHICS: Uint32Array = makeCharset({
  '`': 0x25c6, a: 0x2592, b: 0x2409, c: 0x240c, d: 0x240d, e: 0x240a, f: 0x00b0, g: 0x00b1,
  h: 0x2424, i: 0x240b, j: 0x2518, k: 0x2510, l: 0x250c, m: 0x2514, n: 0x253c, o: 0x23ba,
  p: 0x23bb, q: 0x2500, r: 0x23bc, s: 0x23bd, t: 0x251c, u: 0x2524, v: 0x2534, w: 0x252c,
  x: 0x2502, y: 0x2264, z: 0x2265, '{': 0x03c0, '|': 0x2260, '}': 0x00a3, '~': 0x00b7,
});

export const UK: Uint32Array = makeCharset({ '#': 0x00a3 });

/** The charset a final byte designates. */
export function charsetFor(final: number): Charset {
  if (final === 0x30) return DEC_SPECIAL_GRAPHICS;
  if (final === 0x41) return UK;
  return null;
}
