// Lint: typescript-eslint with the promise rules that matter in a Temporal codebase, and the
// import rules that hold the architecture: dependencies point down (nothing in src/ or activities/
// imports workflows/), and code that runs in the workflow sandbox imports nothing Node-specific.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_NODE = 'Workflow code runs in a deterministic sandbox: no Node APIs.';
const sandboxed = (extra) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: builtinModules.map((name) => ({ name, message: NO_NODE })),
      patterns: [
        { group: ['node:*'], message: NO_NODE },
        {
          group: ['openai', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'],
          message: 'I/O belongs in activities, not workflow code.',
        },
        ...extra,
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'setTimeout', message: 'Use sleep() or condition() from @temporalio/workflow.' },
    { name: 'process', message: NO_NODE },
  ],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.dagent/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workflows/*', '**/workflows'],
              message: 'Dependencies point down: import from src/workflow-safe, not workflows/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: sandboxed([
      {
        group: ['../activities/*', '../src/*', '!../src/workflow-safe'],
        allowTypeImports: true,
        message: 'Workflow code imports only src/workflow-safe (and activity types).',
      },
    ]),
  },
  {
    files: ['src/workflow-safe/*.ts'],
    rules: sandboxed([{ group: ['../*'], message: 'src/workflow-safe imports only its own files.' }]),
  },
  {
    files: ['src/workflow-safe/*/**/*.ts'],
    rules: sandboxed([{ group: ['../../*'], message: 'src/workflow-safe imports only its own files.' }]),
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', URL: 'readonly' } } },
);
