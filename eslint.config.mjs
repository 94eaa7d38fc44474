// ESLint (flat config) with typescript-eslint's type-aware rules: no floating promises, type imports marked as such, no unused variables.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'media/**', 'node_modules/**', 'test-artifacts/**', '.vscode-test/**', '.tmp/**', '**/*.mjs', '**/*.js'] },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error; `void p` says the loss is intended.
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // `typeof import('…')` stays allowed: it types a module that is loaded lazily on purpose.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
);
