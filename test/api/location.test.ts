import { describe, expect, it } from 'vitest';
import { UnsafeResponseError } from '../../src/core/errors.js';
import { checkFileLocation, describeLink, locationPolicyFor } from '../../src/api/location.js';

const LOCAL_API = { allowLoopbackHttp: true };
const REMOTE_API = { allowLoopbackHttp: false };

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
  ])('accepts %s from an API on loopback', (value) => {
    expect(checkFileLocation(value, 'test', LOCAL_API)).toBeInstanceOf(URL);
  });

  it.each(['http://127.0.0.1:9000/file?sig=1', 'http://localhost:8080/file', 'http://[::1]:8080/file', 'http://127.1/file'])(
    'refuses %s from an API that is not on loopback',
    (value) => {
      expect(() => checkFileLocation(value, 'x', REMOTE_API)).toThrow(/plain http on this machine, from an API that is not on this machine/);
    },
  );

  it.each([
    'https://127.0.0.1:8443/admin',
    'https://localhost/f',
    'https://localhost./f',
    'https://[::1]:9000/f',
    'https://0.0.0.0:6379/f',
    'https://0/f',
    'https://[::]/f',
    'https://[::ffff:127.0.0.1]/f',
    'https://[::ffff:0.0.0.0]/f',
    'https://2130706433/f',
  ])('refuses %s (https, but this machine) from an API that is not on loopback; accepts it from one on loopback', (value) => {
    expect(() => checkFileLocation(value, 'x', REMOTE_API)).toThrow(
      /the redirect goes to this machine \(https:\/\/.*\), from an API that is not on this machine/,
    );
    expect(checkFileLocation(value, 'x', LOCAL_API)).toBeInstanceOf(URL);
  });

  it('derives the policy from the API base', () => {
    expect(locationPolicyFor(new URL('http://127.0.0.1:8080'))).toEqual(LOCAL_API);
    expect(locationPolicyFor(new URL('http://localhost'))).toEqual(LOCAL_API);
    expect(locationPolicyFor(new URL('https://api.example.com'))).toEqual(REMOTE_API);
    expect(checkFileLocation('https://s.example.com/f', 'x', REMOTE_API).href).toBe('https://s.example.com/f');
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
    for (const policy of [LOCAL_API, REMOTE_API]) {
      expect(() => checkFileLocation(value, 'GET /history/files/x', policy)).toThrow(UnsafeResponseError);
      expect(() => checkFileLocation(value, 'GET /history/files/x', policy)).toThrow(why);
    }
  });

  it('never repeats the signature in messages', () => {
    expect(describeLink(new URL('https://s.example.com/a/b.csv.gz?sig=SECRET'))).toBe('https://s.example.com/a/b.csv.gz');
    expect(() => checkFileLocation('http://s.example.com/a?sig=SECRET', 'x', LOCAL_API)).toThrow(/^(?!.*SECRET)/);
  });
});
