/** Where an ask may be called back: its URL read as it will be fetched, against prefixes read the same way. */
import { describe, expect, it } from 'vitest';
import { allowedCallbackUrl } from '../../src/api/callback-urls.js';

const PREFIXES = ['http://127.0.0.1:', 'https://hooks.example.test', 'https://CI.example.test:443/signoff'];
const allowed = (url: string) => allowedCallbackUrl(url, PREFIXES);

describe('callback URLs', () => {
  it.each([
    ['another port of an allowed host', 'https://hooks.example.test:6379/'],
    ['a path that only starts like the allowed one', 'https://ci.example.test/signoff-admin/hook'],
    ['an encoded ../ out of the path', 'https://ci.example.test/signoff/..%2fadmin'],
    ['an encoded dot segment', 'https://ci.example.test/signoff/%2e%2e/admin'],
    ['a user name in front of another host', 'http://127.0.0.1:@169.254.169.254/latest'],
    ['another scheme', 'http://hooks.example.test/hook'],
  ])('refuses %s', (_what, url) => {
    expect(allowed(url)).toBeUndefined();
  });

  it("allows any port of a prefix that ends at its host's colon, and the paths at or below an allowed one, read as the prefix is (its host's case and its default port aside)", () => {
    expect(allowed('http://127.0.0.1:45123/cb')).toBe('http://127.0.0.1:45123/cb');
    expect(allowed('https://hooks.example.test/any/path')).toBe('https://hooks.example.test/any/path');
    expect(allowed('https://ci.example.test/signoff')).toBe('https://ci.example.test/signoff');
    expect(allowed('https://ci.example.test/signoff/deploy?run=7')).toBe(
      'https://ci.example.test/signoff/deploy?run=7',
    );
  });
});
