import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { runConformance } from './run.js';

runConformance('memory (reference)', () => ({
  format: 'db',
  async make(records) {
    const s = new MemoryStore();
    await s.append(records);
    return s;
  },
}));
