// Host patterns and block lists, as a table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesAllowed, parseHostPatterns } from '../../../src/sandbox/net/host-pattern.ts';
import { isBlocked, parseBlockList } from '../../../src/sandbox/net/ip-block.ts';

describe('host patterns', () => {
  const cases: [string, string, boolean][] = [
    ['https://api.example.com', 'https://api.example.com/v1', true],
    ['https://api.example.com', 'http://api.example.com/', false],
    ['https://api.example.com', 'https://api.example.com:8443/', false],
    ['https://*.example.com', 'https://a.b.example.com/', true],
    ['https://*.example.com', 'https://example.com/', false],
    ['https://*.example.com', 'https://evilexample.com/', false],
    ['http://localhost:8080', 'http://localhost:8080/x', true],
    ['http://localhost:8080', 'http://localhost:8081/x', false],
    ['*://*.example.com:*', 'http://x.example.com:9/', true],
    ['https://api.example.com', 'https://api.example.com.evil.net/', false],
  ];
  for (const [pattern, url, expected] of cases) {
    it(`${pattern} ${expected ? 'allows' : 'refuses'} ${url}`, () => {
      assert.equal(matchesAllowed(new URL(url), parseHostPatterns([pattern])), expected);
    });
  }
  it('refuses patterns with paths, naming them', () => {
    assert.throws(() => parseHostPatterns(['https://api.example.com/v1']), /https:\/\/api\.example\.com\/v1/);
    assert.throws(() => parseHostPatterns(['ftp://x.com']), /bad host pattern/);
  });
});

describe('block lists', () => {
  const priv = parseBlockList(['private']);
  for (const a of [
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::7f00:1',
  ]) {
    it(`private blocks ${a}`, () => assert.equal(isBlocked(a, priv), true));
  }
  for (const a of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
    it(`private allows ${a}`, () => assert.equal(isBlocked(a, priv), false));
  }
  it('none blocks nothing; CIDRs and single addresses work', () => {
    assert.equal(isBlocked('127.0.0.1', parseBlockList(['none'])), false);
    assert.equal(isBlocked('203.0.113.9', parseBlockList(['203.0.113.0/24'])), true);
    assert.equal(isBlocked('203.0.114.9', parseBlockList(['203.0.113.0/24'])), false);
    assert.throws(() => parseBlockList(['10.0.0.0/99']), /10\.0\.0\.0\/99/);
    assert.throws(() => parseBlockList(['intranet']), /"intranet"/);
  });
});
