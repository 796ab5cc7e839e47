// One lint config for the whole monorepo: typescript-eslint's recommended rules, zero warnings allowed.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/.next/**', '**/dist/**', '**/.turbo/**', '**/next-env.d.ts', '**/.data/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    // Every figure people read is printed by packages/contracts/src/figures.ts, so one number never
    // reads two ways; a bare toFixed elsewhere is a second rule for it. Tests, benches and e2e
    // helpers may format as they like. A wire format (a header, an exposition line) that needs a
    // fixed precision says so with a disable comment naming the format.
    files: ['**/*.ts', '**/*.tsx'],
    ignores: [
      'packages/contracts/src/figures.ts',
      '**/*.test.ts',
      '**/*.test.tsx',
      '**/*.spec.ts',
      '**/test/**',
      '**/e2e/**',
      '**/bench/**',
      '**/testing/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='toFixed']",
          message: 'Print figures through @kneeboard/contracts/figures (formatMs, formatQps, formatPercent, formatSeconds, formatR2, …); add one there if none fits.',
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', fetch: 'readonly' } },
  },
);
