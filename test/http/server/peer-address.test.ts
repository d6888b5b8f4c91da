// The address a connection counts under for maxConnectionsPerAddress (src/http/peer-address.ts).
import { describe, expect, it } from 'vitest';
import { peerKey } from '../../../src/http/peer-address.js';

describe('peerKey', () => {
  it('keeps an IPv4 address and reads an IPv4-mapped IPv6 one as IPv4', () => {
    expect(peerKey('203.0.113.7')).toBe('203.0.113.7');
    expect(peerKey('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(peerKey('::ffff:7f00:2')).toBe('127.0.0.2');
  });

  it('counts an IPv6 address under its /64, however it is written', () => {
    expect(peerKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:2:0:0:0:1%eth0')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(peerKey('::1')).toBe('0:0:0:0::/64');
    expect(peerKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('names what it cannot read as given', () => {
    expect(peerKey(undefined)).toBe('unknown');
    expect(peerKey('not an address')).toBe('not an address');
  });
});
