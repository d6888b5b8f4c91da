// The search fan-out: results in input order, at most `width` tasks running, a new task as soon
// as any ends (a slow head does not idle the others), a bounded wait list, errors in their turn.
import { describe, expect, it } from 'vitest';
import { ordered } from '../../src/iolog/ordered-tasks.js';

interface Gate {
  promise: Promise<number>;
  open: () => void;
  fail: (e: Error) => void;
}
function gate(value: number): Gate {
  let open!: () => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<number>((res, rej) => {
    open = () => res(value);
    fail = rej;
  });
  return { promise, open, fail };
}
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('ordered', () => {
  it('keeps `width` tasks running behind a slow first one, and yields in input order', async () => {
    const gates = Array.from({ length: 20 }, (_, i) => gate(i));
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const it = ordered(gates.map((_, i) => i), 2, (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      return gates[i]!.promise.finally(() => running--);
    }, undefined, 8);
    const first = it.next();
    await turns();
    expect(started).toEqual([0, 1]);
    // The head (0) stays slow; 1..7 end one after the other: each end starts the next task.
    for (let i = 1; i < 8; i++) {
      gates[i]!.open();
      await turns();
    }
    // The window is full (0 running, 1..7 done and waiting): task 8 does not start yet.
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    gates[0]!.open();
    expect((await first).value).toBe(0);
    for (const g of gates.slice(8)) g.open();
    const rest: number[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(rest).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(most).toBe(2);
  });

  it('throws a failed task in its turn and aborts the outstanding ones', async () => {
    const signals: AbortSignal[] = [];
    const it = ordered([0, 1, 2, 3], 2, async (i, signal) => {
      signals.push(signal);
      if (i === 1) throw new Error('task 1 failed');
      await turns();
      return i;
    });
    expect((await it.next()).value).toBe(0);
    await expect(it.next()).rejects.toThrow('task 1 failed');
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('an early stop aborts the tasks still running', async () => {
    const g = gate(1);
    let seen: AbortSignal | null = null;
    const it = ordered([0, 1], 2, (i, signal) => {
      if (i === 1) seen = signal;
      return i === 0 ? Promise.resolve(0) : g.promise;
    });
    expect((await it.next()).value).toBe(0);
    await it.return(undefined);
    expect(seen!.aborted).toBe(true);
  });
});
