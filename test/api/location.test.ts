import { describe, expect, it } from 'vitest';
import { UnsafeResponseError } from '../../src/errors.js';
import { checkFileLocation, describeLink } from '../../src/api/location.js';

describe('checkFileLocation', () => {
  it.each([
    'https://storage.example.com/f/2025-03-03_levels.csv.gz?X-Amz-Signature=abc',
    'https://10.0.0.5/file',
    'http://127.0.0.1:9000/file?sig=1',
    'http://127.8.9.10/file',
    'http://localhost:8080/file',
    'http://LOCALHOST/file',
    'http://[::1]:8080/file',
    'http://127.1/file', // the URL parser normalises it to 127.0.0.1
  ])('accepts %s', (value) => {
    expect(checkFileLocation(value, 'test')).toBeInstanceOf(URL);
  });

  it.each([
    [undefined, 'no Location'],
    ['', 'no Location'],
    ['/relative/path', 'not an absolute URL'],
    ['relative', 'not an absolute URL'],
    ['file:///etc/passwd', 'scheme "file"'],
    ['ftp://storage.example.com/f', 'scheme "ftp"'],
    ['data:text/plain,hello', 'scheme "data"'],
    ['javascript:alert(1)', 'scheme "javascript"'],
    ['http://storage.example.com/f', 'plain http'],
    ['http://10.0.0.5/f', 'plain http'],
    ['http://128.0.0.1/f', 'plain http'],
    ['http://localhost.evil.com/f', 'plain http'],
    ['http://127.0.0.1.nip.io/f', 'plain http'],
    ['http://[::ffff:127.0.0.1]/f', 'plain http'],
    ['https://user:pw@storage.example.com/f', 'user info'],
    ['https://user@storage.example.com/f', 'user info'],
    ['http://user:pw@127.0.0.1/f', 'user info'],
  ])('refuses %s', (value, why) => {
    expect(() => checkFileLocation(value, 'GET /history/files/x')).toThrow(UnsafeResponseError);
    expect(() => checkFileLocation(value, 'GET /history/files/x')).toThrow(why);
  });

  it('never repeats the signature in messages', () => {
    expect(describeLink(new URL('https://s.example.com/a/b.csv.gz?sig=SECRET'))).toBe('https://s.example.com/a/b.csv.gz');
    expect(() => checkFileLocation('http://s.example.com/a?sig=SECRET', 'x')).toThrow(/^(?!.*SECRET)/);
  });
});
