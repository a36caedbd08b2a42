// ESLint for `npm run lint` (after tsc). The product and the emulator get the type-aware rules: a
// promise left floating or passed where a callback's result is ignored, `await` on a non-promise,
// `any` leaking through, an assertion the compiler no longer needs. The tests, the benchmark and
// the scripts get the rules that need no types, plus the promise rules: type-aware, the whole
// recommended set there reports ~440 `no-unsafe-*` findings on values the tests read from
// JSON.parse on purpose, and costs most of a minute on CI.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// One program for the whole tree (tsconfig.json holds it all): a program per nearest tsconfig, as
// the project service builds them, costs ~15% more CPU for the calendar's and the emulator's own.
const typed = {
  parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
};

// Rules for every file, over the recommended sets.
const house = {
  // The terminal and schema code strip control characters from untrusted text, and the tests look
  // for them: a control character in a regex here is always on purpose, written as an escape.
  'no-control-regex': 'off',
  // The `_` prefix marks a parameter or a binding kept on purpose (a signature's place, a property
  // left out of a rest), as tsc's noUnused* settings already accept it.
  '@typescript-eslint/no-unused-vars': [
    'error',
    { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
  ],
};

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'test-artifacts/', 'data/', 'export/'] },
  // A disable comment left after its finding went is an error too: the exceptions stay true.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['src/**/*.ts', 'emulator/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: typed,
    rules: {
      ...house,
      // An abort rethrows the signal's reason and a caught error is rethrown as it came (both
      // `unknown`): throwing them is right. A literal or an object that is not an Error is still refused.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // A synchronous implementation of a promise-returning port (the local export target beside
      // the S3 one) is written `async` so that its throws reach the caller as rejections, as the
      // other implementation's do; an `await` would be there only to please the rule.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The report page's script is browser code: its own program, with the DOM library and not Node's types.
    files: ['src/charts/page/**/*.ts'],
    languageOptions: { parserOptions: { project: './src/charts/page/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // A product file a newcomer reads in one sitting: a file that grows past 400 lines holds more
    // than one idea and is split by them (as export/ and api/ were). Blank lines and comments count.
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: typed,
    rules: {
      ...house,
      // A test that forgets to await an assertion on a promise passes whatever the promise does.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // The scripts and test helpers written in plain JavaScript run under Node.
    files: ['**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);
