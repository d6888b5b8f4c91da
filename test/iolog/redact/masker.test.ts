// The masker in front of the I/O-log writer: secrets become `*` byte for byte, wherever the
// records split them, in the streams each rule names; typed passwords after a prompt are masked
// until the line ends; records keep their order, delays and sizes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionMasker, type IoStream, type MaskOptions, type MaskSink } from '../../../src/iolog/redact/masker.js';
import { BUILTIN_REDACT_RULES, parseRedactRules } from '../../../src/settings-redact.js';

type Out = { kind: string; stream?: number; delay: { sec: number; nsec: number }; data?: string; rows?: number };

function recorder(): MaskSink & { out: Out[] } {
  const out: Out[] = [];
  return {
    out,
    writeIo: (stream, delay, data) => out.push({ kind: 'io', stream, delay, data: Buffer.from(data).toString('latin1') }),
    writeWinsize: (delay, rows) => out.push({ kind: 'winsize', delay, rows }),
    writeSuspend: (delay) => out.push({ kind: 'suspend', delay }),
  };
}

const AWS = 'AKIAIOSFODNN7EXAMPLE';
const rules = (names: string[], on?: string) => parseRedactRules(names.map((name) => (on ? { name, on } : { name })), 'test');
const opts = (over: Partial<MaskOptions> = {}): MaskOptions => ({ rules: rules(['aws-key']), maskPasswords: false, passprompt: '[Pp]assword[: ]*', ...over });
const d = (n: number) => ({ sec: 0, nsec: n });

function run(records: { stream: IoStream; text: string }[], o: MaskOptions): { out: Out[]; hits: Map<string, number> } {
  const sink = recorder();
  const m = new SessionMasker(sink, o);
  records.forEach((r, i) => m.push({ kind: 'io', stream: r.stream, delay: d(i + 1), data: Buffer.from(r.text, 'latin1') }));
  m.flush();
  return { out: sink.out, hits: m.hits };
}

function joined(out: Out[], stream: number): string {
  return out.filter((o) => o.stream === stream).map((o) => o.data).join('');
}

describe('redaction rules', () => {
  const text = `export AWS_ACCESS_KEY_ID=${AWS}\r\nok\r\n`;
  const want = text.replace(AWS, '*'.repeat(AWS.length));

  it('masks a secret split over two records at every offset, keeping each record\'s size', () => {
    for (let i = 0; i <= text.length; i++) {
      const { out, hits } = run([{ stream: 4, text: text.slice(0, i) }, { stream: 4, text: text.slice(i) }], opts());
      expect(joined(out, 4)).toBe(want);
      expect(out.map((o) => o.data!.length)).toEqual([i, text.length - i]);
      expect(hits.get('aws-key')).toBe(1);
    }
  });

  it('masks a secret split over three records at every pair of offsets', () => {
    for (let i = 0; i <= text.length; i += 3) {
      for (let j = i; j <= text.length; j += 2) {
        const { out } = run([{ stream: 4, text: text.slice(0, i) }, { stream: 4, text: text.slice(i, j) }, { stream: 4, text: text.slice(j) }], opts());
        expect(joined(out, 4)).toBe(want);
      }
    }
  });

  it('looks only at the streams a rule names: input, output or both', () => {
    const recs = [0, 1, 2, 3, 4].map((s) => ({ stream: s as IoStream, text: `x ${AWS} y` }));
    const masked = (o: MaskOptions) => {
      const { out } = run(recs, o);
      return [0, 1, 2, 3, 4].filter((s) => !joined(out, s).includes(AWS));
    };
    expect(masked(opts({ rules: rules(['aws-key'], 'input') }))).toEqual([0, 3]);
    expect(masked(opts({ rules: rules(['aws-key'], 'output') }))).toEqual([1, 2, 4]);
    expect(masked(opts({ rules: rules(['aws-key'], 'both') }))).toEqual([0, 1, 2, 3, 4]);
  });

  it('ships the examples: private keys, bearer tokens, PASSWORD= assignments', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    const all = opts({ rules: rules(Object.keys(BUILTIN_REDACT_RULES)) });
    const { out, hits } = run(
      [
        { stream: 1, text: `${key}\n` },
        { stream: 3, text: 'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc" x\r' },
        { stream: 3, text: 'DB_PASSWORD=s3cr3t-value ./run\r' },
      ],
      all,
    );
    const text = out.map((o) => o.data).join('');
    for (const secret of ['b3BlbnNzaC1rZXktdjEAAAAA', 'eyJhbGciOiJIUzI1NiJ9.e30.abc', 's3cr3t-value']) expect(text).not.toContain(secret);
    expect(text).toContain('DB_PASSWORD=');
    expect(text).toContain('Bearer ');
    expect(Object.fromEntries(hits)).toEqual({ 'private-key': 1, 'bearer-token': 1, 'password-assignment': 1 });
  });

  it('keeps the order, streams and delays of records, window changes included', () => {
    const sink = recorder();
    const m = new SessionMasker(sink, opts());
    m.push({ kind: 'io', stream: 4, delay: d(1), data: Buffer.from('AKIA') });
    m.push({ kind: 'io', stream: 3, delay: d(2), data: Buffer.from('k') });
    m.push({ kind: 'winsize', delay: d(3), rows: 30, cols: 100 });
    m.push({ kind: 'io', stream: 4, delay: d(4), data: Buffer.from('IOSFODNN7EXAMPLE') });
    // Held: nothing has reached the writer yet (a match may still include the first record).
    expect(sink.out).toEqual([]);
    m.flush();
    expect(sink.out.map((o) => [o.kind, o.stream, o.delay.nsec, o.data])).toEqual([
      ['io', 4, 1, '****'],
      ['io', 3, 2, 'k'],
      ['winsize', undefined, 3, undefined],
      ['io', 4, 4, '****************'],
    ]);
  });

  it('never lets a secret through and keeps every byte count, whatever the records (fuzzed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom<IoStream>(1, 3, 4), fc.string({ maxLength: 30 }), fc.boolean()), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (pieces, cuts) => {
          // Some pieces carry the secret; every stream's text is then cut into records at random.
          const byStream = new Map<IoStream, string>();
          const order: IoStream[] = [];
          for (const [s, t, secret] of pieces) {
            byStream.set(s, (byStream.get(s) ?? '') + t.replace(/[^\x20-\x7e]/g, '') + (secret ? AWS : ''));
            order.push(s);
          }
          const recs: { stream: IoStream; text: string }[] = [];
          for (const [s, t] of byStream) {
            const points = [...new Set(cuts.map((c) => c % (t.length + 1)))].sort((a, b) => a - b);
            let at = 0;
            for (const p of [...points, t.length]) {
              recs.push({ stream: s, text: t.slice(at, p) });
              at = p;
            }
          }
          const { out } = run(recs, opts());
          expect(out.map((o) => o.data!.length)).toEqual(recs.map((r) => r.text.length));
          for (const [s] of byStream) expect(joined(out, s)).not.toContain(AWS);
          expect(out.map((o) => o.stream)).toEqual(recs.map((r) => r.stream));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('typed passwords', () => {
  const o = opts({ rules: [], maskPasswords: true });

  it('masks what is typed after a password prompt until the line ends, then stops', () => {
    const { out, hits } = run(
      [
        { stream: 4, text: '$ sudo -k; sudo true\r\n[sudo] password for alice: ' },
        { stream: 3, text: 'h' },
        { stream: 3, text: 'unter' },
        { stream: 3, text: '2\r' },
        { stream: 4, text: '\r\n$ ' },
        { stream: 3, text: 'ls\r' },
      ],
      o,
    );
    expect(joined(out, 3)).toBe('*******\rls\r');
    expect(hits.get('password')).toBe(1);
  });

  it('stops masking when the terminal writes output again (the prompt went away)', () => {
    const { out } = run(
      [
        { stream: 4, text: 'Password: ' },
        { stream: 3, text: 'ab' },
        { stream: 4, text: '\r\nSorry, try again.\r\n$ ' },
        { stream: 3, text: 'echo hi\r' },
      ],
      o,
    );
    expect(joined(out, 3)).toBe('**echo hi\r');
  });

  it('asks nothing when the word is on a line already ended', () => {
    const { out } = run([{ stream: 4, text: 'Password changed.\r\n$ ' }, { stream: 3, text: 'ls -l\r' }], o);
    expect(joined(out, 3)).toBe('ls -l\r');
  });

  it('keeps typed passwords with logPasswords (maskPasswords false)', () => {
    const { out } = run([{ stream: 4, text: 'Password: ' }, { stream: 3, text: 'hunter2\r' }], opts({ rules: [] }));
    expect(joined(out, 3)).toBe('hunter2\r');
  });
});
