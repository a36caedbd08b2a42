// The one pattern for a symbol (and the one for a venue), shared by every module that takes one: the user's options, the API's
// payloads, archive paths and SQL. A symbol is 1 to 32 of A-Z 0-9 . _ - with at least one letter or
// digit, so it is a safe path segment (never "." or "..") and a plain SQL string value.

export const SYMBOL_MAX_LENGTH = 32;
export const SYMBOL_PATTERN = /^(?=.*[A-Z0-9])[A-Z0-9._-]{1,32}$/;
/** What a symbol may be, for error messages. */
export const SYMBOL_RULE = `1 to ${SYMBOL_MAX_LENGTH} characters A-Z 0-9 . _ - with at least one letter or digit`;

export function isSymbol(value: string): boolean {
  return SYMBOL_PATTERN.test(value);
}

/** A venue name as the history and the live endpoints write it: a safe path segment. */
export const VENUE_PATTERN = /^[a-z0-9]{1,32}$/;
