// Prepared statements per connection, reused by SQL text (the builder gives one text per query
// shape, values are bound). Bounded: the least recently used statement goes first.
import type Database from 'better-sqlite3';

export class StatementCache {
  private readonly map = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly max = 128,
  ) {}

  get(sql: string): Database.Statement {
    let st = this.map.get(sql);
    if (st) {
      this.map.delete(sql); // re-insert: most recently used last
    } else {
      st = this.db.prepare(sql);
      if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    }
    this.map.set(sql, st);
    return st;
  }
}
