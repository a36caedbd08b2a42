// The one escaping rule for text gexwh prints. Text from the server or the warehouse (error messages,
// hint values, table cells and headers, query results, JSON bodies) is data: before it reaches a
// terminal, control characters are shown escaped, so an ESC sequence cannot move the cursor, rewrite
// earlier lines, set the window title or hide text, and a newline cannot forge a line of gexwh's own
// output. C1 controls and the bidirectional overrides are escaped too (some terminals act on the
// first, the second reorder what is shown). Lines and tables: escapeLine; text gexwh laid out:
// escapeBlock; JSON (results and --json errors): escapeJson, the same value with \uNNNN escapes.
// Only CSV written to a pipe or a file is left as it is, byte for byte.

/** C0 controls, DEL, C1 controls, bidi embedding/override/isolate marks, line/paragraph separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw inside strings (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of text, every control character (newlines too) shown as \xNN or \uNNNN. */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** A block of lines gexwh laid out itself: its newlines kept, every other control escaped. */
export function escapeBlock(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, visible);
}

/** JSON text with the characters JSON.stringify leaves raw written as \uNNNN: the same value, safe to show. */
export function escapeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
