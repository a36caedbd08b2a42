import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { describeError, formatTable } from '../../src/cli/output.js';
import { escapeBlock, escapeJson, escapeLine } from '../../src/cli/terminal.js';

const HOSTILE = 'ok\u001b]0;pwned\u0007\u001b[2J\u001b[1A\rerror: forged\nline\u009b31m\u202eevil\u2066\u007f';

describe('escaping server text for a terminal', () => {
  it('escapeLine shows every control as \\xNN or \\uNNNN, newlines included', () => {
    expect(escapeLine(HOSTILE)).toBe('ok\\x1b]0;pwned\\x07\\x1b[2J\\x1b[1A\\x0derror: forged\\x0aline\\x9b31m\\u202eevil\\u2066\\x7f');
    expect(escapeLine('plain text, accents é and 漢字')).toBe('plain text, accents é and 漢字');
  });

  it('escapeBlock keeps the newlines of text gexwh laid out', () => {
    expect(escapeBlock('a\u001b[31m\nb\tc')).toBe('a\\x1b[31m\nb\\x09c');
  });

  it('escapeJson keeps the value and escapes what JSON.stringify leaves raw', () => {
    const value = { text: HOSTILE };
    const json = escapeJson(JSON.stringify(value));
    expect(JSON.parse(json)).toEqual(value);
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('an error from the server prints as one line per field, escaped', () => {
    const error = new ApiError(400, 'bad\u001b[2Jslug', HOSTILE, '/me', { 'hint\nkey': HOSTILE });
    const text = describeError(error, false);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toMatch(/^error: bad\\x1b\[2Jslug: ok\\x1b\]0;pwned/);
  });

  it('table cells stay on their row', () => {
    const table = formatTable([{ symbol: 'BTC\n\u001b[31mFAKE' }]);
    expect(table.split('\n')).toHaveLength(3);
    expect(table).toContain('BTC\\x0a\\x1b[31mFAKE');
  });
});
