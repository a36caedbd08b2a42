// Preloaded into a spawned CLI (NODE_OPTIONS=--import <this file>): prints every module file the
// process loaded as `module-loaded: <url>` on stderr. ES modules are seen by a module hook as they
// load; CommonJS files are read from the require cache when the process exits.
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      export async function load(url, context, next) {
        const loaded = await next(url, context);
        if (url.startsWith('file:')) process.stderr.write('module-loaded: ' + url + '\\n');
        return loaded;
      }`),
);

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  for (const path of Object.keys(cache)) process.stderr.write(`module-loaded: ${pathToFileURL(path).href}\n`);
});
