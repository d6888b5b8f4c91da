// A parser handler that records what it is driven with, as plain values, merging adjacent print
// runs (their boundaries depend on how the input was chunked, their content must not).
import type { Params } from '../../../src/replay/params.js';
import { collectToString, type ParserHandler, utf16ToString } from '../../../src/replay/parser.js';

export type ParserEvent =
  | ['print', string]
  | ['execute', number]
  | ['csi', string, number[], number[][]]
  | ['esc', string]
  | ['osc', number, string, boolean, boolean]
  | ['dcs', string, number[], string, boolean, boolean]
  | ['str', number, string, boolean, boolean];

export class RecordingHandler implements ParserHandler {
  readonly events: ParserEvent[] = [];

  print(buf: Uint16Array, start: number, end: number): void {
    const s = utf16ToString(buf, start, end);
    const last = this.events[this.events.length - 1];
    if (last && last[0] === 'print') last[1] += s;
    else this.events.push(['print', s]);
  }
  printAscii(data: Uint8Array, start: number, end: number): void {
    const s = String.fromCharCode(...data.subarray(start, end));
    const last = this.events[this.events.length - 1];
    if (last && last[0] === 'print') last[1] += s;
    else this.events.push(['print', s]);
  }
  printRunEnd(): void {}
  execute(code: number): void {
    this.events.push(['execute', code]);
  }
  csi(params: Params, collect: number, final: number): void {
    const subs: number[][] = [];
    for (let i = 0; i < params.length; i++) subs.push(params.hasSubParams(i) ? params.subParams(i) : []);
    this.events.push(['csi', collectToString(collect) + String.fromCharCode(final), params.toArray(), subs]);
  }
  esc(collect: number, final: number): void {
    this.events.push(['esc', collectToString(collect) + String.fromCharCode(final)]);
  }
  osc(id: number, data: string, ok: boolean, truncated: boolean): void {
    this.events.push(['osc', id, data, ok, truncated]);
  }
  dcs(params: Params, collect: number, final: number, data: string, ok: boolean, truncated: boolean): void {
    this.events.push(['dcs', collectToString(collect) + String.fromCharCode(final), params.toArray(), data, ok, truncated]);
  }
  str(kind: number, data: string, ok: boolean, truncated: boolean): void {
    this.events.push(['str', kind, data, ok, truncated]);
  }
}
