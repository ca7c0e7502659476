// Host name normalisation as docs/decisions.md states it ("Jobs API", domain errors).
import { describe, expect, it } from 'vitest';
import { normaliseDomain } from '../../../src/platform/net/index.ts';

describe('normaliseDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM  ', 'example.com'],
    ['example.com.', 'example.com'],
    ['sub.example.co.uk', 'sub.example.co.uk'],
    ['Bücher.de', 'xn--bcher-kva.de'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['EXAMPLE。COM', 'example.com'],
    ['ｅｘａｍｐｌｅ.com', 'example.com'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['a-b.example', 'a-b.example'],
    ['123.example.com', '123.example.com'],
  ])('%j → %j', (input, expected) => {
    expect(normaliseDomain(input)).toEqual({ ok: true, domain: expected });
  });

  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['http://example.com', 'is a URL'],
    ['https://example.com/', 'is a URL'],
    ['ftp:example.com', 'is a URL'],
    ['example.com/path', 'contains a path'],
    ['example.com?q=1', 'contains a path'],
    ['example.com:8080', 'contains a port'],
    ['1.2.3.4', 'is an IP address'],
    ['[::1]', 'is an IP address'],
    ['::1', 'is an IP address'],
    ['1.2.3', 'is an IP address'],
    ['0x7f.1', 'is an IP address'],
    ['localhost', 'needs at least two labels'],
    ['com', 'needs at least two labels'],
    ['ex..com', 'has an empty label'],
    ['.example.com', 'has an empty label'],
    ['-a.com', 'has an invalid label "-a"'],
    ['a-.com', 'has an invalid label "a-"'],
    ['a_b.com', 'contains a character not allowed'],
    ['*.example.com', 'contains a character not allowed'],
    ['user@example.com', 'contains a character not allowed'],
    ['ex ample.com', 'contains a character not allowed'],
    ['ex%41mple.com', 'contains a character not allowed'],
    [`${'a'.repeat(64)}.com`, 'has an invalid label'],
    [`${Array(50).fill('abcd').join('.')}.example.com`, 'is longer than 253 characters'],
    ['example.123', 'is not a valid host name'],
  ])('%j is refused: %s', (input, reason) => {
    const result = normaliseDomain(input);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it('accepts a name of exactly 253 characters', () => {
    const name = `${`${Array(4).fill('a'.repeat(63)).join('.')}`.slice(0, 249)}.com`;
    expect(name).toHaveLength(253);
    expect(normaliseDomain(name)).toEqual({ ok: true, domain: name });
  });
});
