// The key decoder of typed input: a handler of the one parser with its input table. Keys come out
// the same however the bytes are split, and what a terminal sends that is not a key is consumed.
import { describe, expect, it } from 'vitest';
import type { Params } from '../../src/replay/params.js';
import { KeyDecoder, type KeySink } from '../../src/replay/text/typed-input/key-decoder.js';

function decode(chunks: Uint8Array[], base = 100): string[] {
  const out: string[] = [];
  const sink: KeySink = {
    char: (ch, pos) => out.push(`char ${ch} @${pos}`),
    control: (code, pos) => out.push(`control ${code} @${pos}`),
    alt: (code, pos) => out.push(`alt ${code} @${pos}`),
    csi: (params: Params, collect, final) => out.push(`csi ${collect} ${params.toArray().join(';')} ${String.fromCharCode(final)}`),
    ss3: (code, pos) => out.push(`ss3 ${String.fromCharCode(code)} @${pos}`),
  };
  const d = new KeyDecoder(sink);
  let pos = base;
  for (const c of chunks) {
    d.write(c, pos);
    pos += c.length;
  }
  d.end();
  return out;
}

const INPUT = Buffer.from('ab\x7f\x1bb\x1b.\x1b\x7f\x1b[1;5C\x1bOA\x1b[M !!x\x1b]11;rgb:0/0/0\x1b\\\x1bP>|tmux\x1b\\\x1b_apc\x07y\x1b[?62;22c\x1b[200~p\x1b[201~\r');

const EXPECTED = [
  'char a @100',
  'char b @101',
  'control 127 @102', // Backspace (DEL) is a key
  'alt 98 @104', // Alt-b
  'alt 46 @106', // Alt-. (an intermediate byte to the output table)
  'alt 127 @108', // Alt-Backspace
  'csi 0 1;5 C', // Ctrl-→
  'ss3 A @117', // ↑ in application mode
  // ESC [ M and three bytes: an X10 mouse report, swallowed
  'char x @124',
  // an OSC colour answer ended by ESC \, a DCS answer, an APC ended by BEL: consumed
  'char y @157',
  'csi 63 62;22 c', // a DA answer (the editor ignores private markers)
  'csi 0 200 ~',
  'char p @173',
  'csi 0 201 ~',
  'control 13 @180',
];

describe('key decoder', () => {
  it('reads keys, Alt+key, CSI and SS3 keys; swallows mouse reports and terminal answers', () => {
    expect(decode([INPUT])).toEqual(EXPECTED);
  });

  it('gives the same keys however the input is split', () => {
    for (let cut = 1; cut < INPUT.length; cut++) {
      expect(decode([INPUT.subarray(0, cut), INPUT.subarray(cut)]), `cut at ${cut}`).toEqual(EXPECTED);
    }
    expect(decode([...INPUT].map((b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });
});
