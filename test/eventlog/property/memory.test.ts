// The harness itself, run on the reference against a second reference: proves the generators
// produce valid logs and queries (and keeps the harness from rotting while adapters change).
import { describe } from 'vitest';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { runPropertyTest } from './run.js';

describe('property harness', () => {
  runPropertyTest('memory', () => ({
    format: 'db',
    async make(records) {
      const s = new MemoryStore();
      await s.append(records);
      return s;
    },
  }), 20);
});
