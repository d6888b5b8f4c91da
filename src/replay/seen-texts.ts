// The texts processed text has emitted in a session, remembered as 53-bit hashes in two
// generations of at most SEEN_TEXTS_MAX each (the older one is dropped when the newer fills), so
// memory stays bounded however long the session; a text older than both may come out again.
export const SEEN_TEXTS_MAX = 8192;

/** Two 32-bit FNV-1a style hashes of the UTF-16 units, combined into one safe integer. */
function hash53(s: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 11) & 0x1fffff);
}

export class SeenTexts {
  private current = new Set<number>();
  private older = new Set<number>();

  /** Remembers `text`; false when it was already seen. */
  add(text: string): boolean {
    const h = hash53(text);
    if (this.current.has(h) || this.older.has(h)) return false;
    if (this.current.size >= SEEN_TEXTS_MAX) {
      this.older = this.current;
      this.current = new Set();
    }
    this.current.add(h);
    return true;
  }
}
