// @ts-check
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/** Layering (DESIGN.md §2): shared is pure, the renderer never reaches into the host, the host never into the renderer. */
const hostOnly = ['electron', 'ollama', 'ws', '@napi-rs/*', '@modelcontextprotocol/*', 'node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'url'];
const layer = (group, message) => ({ group, message });

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'dist/**', 'e2e/artifacts/**', 'playwright-report/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer([...hostOnly, 'react', 'react-dom', 'dexie', 'dexie-react-hooks'], 'src-shared is pure: no Node, DOM, Electron, React or Dexie.'),
            layer(['**/src-main/**', '**/src-renderer/**', '@main/*', '@renderer/*'], 'src-shared never imports the other layers.'),
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'window', 'document', 'localStorage', 'indexedDB', 'require', 'Buffer', '__dirname'],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer(hostOnly, 'The renderer talks to the host only through the typed host client.'),
            layer(['**/src-main/**', '@main/*'], 'The renderer never imports src-main.'),
          ],
        },
      ],
    },
  },
  // Fail closed (DESIGN.md): a promise is awaited, handled, or marked `void` on purpose, never left to
  // reject unhandled. Type-aware, so each layer is read through its own tsconfig (tests are not).
  {
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.main.json'], tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    languageOptions: { parserOptions: { project: ['./tsconfig.renderer.json'], tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['src-main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [layer(['**/src-renderer/**', '@renderer/*', 'react', 'react-dom', 'dexie'], 'The host never imports the renderer.')] },
      ],
    },
  },
);
