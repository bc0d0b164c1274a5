// @ts-check
import tseslint from 'typescript-eslint';

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
    // One way in: every surface calls an operation through invokeOperation (parse, check, run), never its run.
    files: ['src/**/*.ts'],
    ignores: ['src/core/operations/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['[callee.object.name=/[oO]peration$/]', "[callee.object.property.name='operation']"].map((object) => ({
          selector: `CallExpression[callee.property.name='run']${object}`,
          message:
            'Call an operation with invokeOperation (src/core/operations/invoke.ts), which parses and checks its input.',
        })),
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // Tests read JSON responses (typed any by fetch) and assert on them; the assertions are the types.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'tools/**/*.ts'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
