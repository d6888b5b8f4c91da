// One async holder at a time: the writer connection runs one transaction at a time even though
// a transaction's work awaits between statements.
export class SerialLock {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(work: () => Promise<T>): Promise<T> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await prev;
    try {
      return await work();
    } finally {
      release();
    }
  }
}
