// Preloaded into a spawned CLI (NODE_OPTIONS=--import <this file>): prints each npm package the
// process loaded, once, as `package-loaded: <name>` on stderr. ESM imports are seen by a module
// hook as they resolve; CommonJS packages (DuckDB's is loaded with require) are read from the
// require cache when the process exits.
import { createRequire, register } from 'node:module';

const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;
const printed = new Set();
const print = (name) => {
  if (printed.has(name)) return;
  printed.add(name);
  process.stderr.write(`package-loaded: ${name}\n`);
};

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      const seen = new Set();
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        const match = ${PACKAGE}.exec(resolved.url);
        if (match && !seen.has(match[1])) {
          seen.add(match[1]);
          process.stderr.write('package-loaded: ' + match[1] + '\\n');
        }
        return resolved;
      }`),
);

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  for (const path of Object.keys(cache)) {
    const match = PACKAGE.exec(path);
    if (match) print(match[1]);
  }
});
