// The console's command list shows each timeline entry as the shell ran it; a line typed at a
// no-echo prompt, recalled with nothing typed, or typed to another program is never a blank or
// unexplained row.
import { describe, expect, it } from 'vitest';
import { commandLabel } from '../../src/console/views/command-label.js';

describe('command list labels', () => {
  it('the command as shown when the shell ran it, not the keys typed', () => {
    expect(commandLabel({ line: 'hosts', shown: 'ls -h -l /etc/hosts', recalled: true, cwd: '/tmp' })).toEqual({ text: 'ls -h -l /etc/hosts', note: 'in /tmp' });
    expect(commandLabel({ line: '', shown: 'echo before resize and after', recalled: true })).toEqual({ text: 'echo before resize and after', note: '' });
    expect(commandLabel({ line: 'ls -la' })).toEqual({ text: 'ls -la', note: '' });
  });
  it('hidden, recalled with nothing shown, and program lines say what they are', () => {
    expect(commandLabel({ line: '', hidden: true, cwd: '/tmp' })).toEqual({ text: '(typed at a no-echo prompt)', note: 'in /tmp' });
    expect(commandLabel({ line: '', recalled: true })).toEqual({ text: '(recalled line)', note: '' });
    expect(commandLabel({ line: 'print(6*7)', program: true, cwd: '/tmp' })).toEqual({ text: 'print(6*7)', note: 'typed to a program, in /tmp' });
  });
});
