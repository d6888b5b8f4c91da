// What a call answered, as tests compare it: 'ok', or the registry code of the error it threw.

/** 'ok' when `f()` returns, else the `code` of what it threw (a registry number for evio errors). */
export function codeOfCall(f: () => unknown): unknown {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as { code?: unknown }).code;
  }
}
