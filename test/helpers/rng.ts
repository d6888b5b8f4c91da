// Seeded randomness for tests whose random choices (kill moments, generated logs) must repeat.

/** xorshift32: numbers in [0, 1), the same sequence for the same seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}
