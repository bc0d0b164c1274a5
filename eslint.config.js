// @ts-check
import tseslint from 'typescript-eslint';

/** Adapters and frameworks core must never import: core stays callable from every adapter. */
const ADAPTER_IMPORTS = [
  {
    group: ['koa', 'koa/*', '@koa/*'],
    message: 'src/core must not use Koa: take plain inputs and a Scope; HTTP lives in src/http.',
  },
  { group: ['@slack/bolt', '@slack/*'], message: 'src/core must not use Slack: bots live in src/bots and call core.' },
  { group: ['discord.js'], message: 'src/core must not use discord.js: bots live in src/bots and call core.' },
  {
    group: ['@modelcontextprotocol/*'],
    message: 'src/core must not use the MCP SDK: tools live in src/mcp and call core.',
  },
  {
    group: ['**/http/**', '**/mcp/**', '**/bots/**', '**/cli/**', '../http', '../mcp', '../bots'],
    message: 'src/core must not import an adapter: adapters depend on core, never the other way.',
  },
  {
    group: ['**/emulators/**', '../emulators'],
    message: 'src/core must not import an emulator: emulators stand in for providers, over HTTP only.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.cache/**', 'test-artifacts/**', 'bin/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-console': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ADAPTER_IMPORTS }] },
  },
  {
    files: ['src/http/**/*.ts', 'src/mcp/**/*.ts', 'src/bots/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/bots/**', '**/mcp/**', '**/http/**'],
              message: 'Adapters never import each other; share through src/core.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // Tests read JSON responses (typed any by fetch) and assert on them; the assertions are the types.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
