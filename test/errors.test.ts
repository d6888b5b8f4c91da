import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS, EvioError, toEvioError } from '../src/errors.js';
import { renderErrorsDoc } from '../src/errors-doc.js';

describe('error registry', () => {
  it('has unique codes', () => {
    const codes = Object.values(ERRORS).map((d) => d.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('docs/errors.md is the rendering of the registry (run npm run docs:errors)', () => {
    const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    expect(doc).toBe(renderErrorsDoc());
  });

  it('messages start with the code and bodies carry it as status', () => {
    const e = new EvioError('QUERY_BAD_ETYPE', 'etype "X" is not A, R, K or F');
    expect(e.message).toBe('1103 etype "X" is not A, R, K or F');
    expect(e.toBody()).toEqual({ status: 1103, error: '1103 etype "X" is not A, R, K or F' });
    expect(e.http).toBe(400);
  });

  it('wraps unknown errors as INTERNAL without a stack in the message', () => {
    const e = toEvioError(new TypeError('boom'));
    expect(e.code).toBe(1000);
    expect(e.message).toBe('1000 boom');
  });
});
