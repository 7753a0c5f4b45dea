// ESLint (typescript-eslint's recommended rules) plus the architecture rule that src/platform imports no
// domain folder. Import cycles between folders are checked by scripts/check-architecture.js.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'test/generated/**', 'test/artifacts/**', 'web/dist/**', 'web/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      // Tests and JSON plumbing read untyped bodies; the type checker already flags the risky spots.
      '@typescript-eslint/no-explicit-any': 'off',
      // type-graphql's resolver lists are typed `Function[]` by the library itself.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // `_`-prefixed names are deliberately unused (positional callback parameters, destructured-away fields).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Non-null assertions are used where an index was checked just before; strict mode catches the rest.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `let x; ...closure reads x...; x = ...` is deliberate where a callback must see a value set later.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['src/platform/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../*', '!../platform', '!../platform/*'], message: 'src/platform imports no domain folder: pass collaborators in as options instead.' },
          ],
        },
      ],
    },
  },
  {
    // The platform's rooms (http/, graphql/, db/, live/) import each other and the platform's top level only.
    files: ['src/platform/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../*', '!../../platform', '!../../platform/*'],
              message: 'src/platform imports no domain folder: pass collaborators in as options instead.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.js', '*.config.js', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
