// ESLint (flat config) for the extension's TypeScript: src/ and test/unit/
// (`npm run lint`; scripts/test-e2e.sh runs it as a check). typescript-eslint's
// type-checked rules, so a promise nobody awaits (an error lost in an editor
// command) or an `any` from the wire is caught; `tsc --noEmit` checks the types.
// The e2e driver and host checks are plain JavaScript run by node / the
// extension host and are not linted here.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/', 'out/', 'dist/', '.e2e/', 'bundled/', '**/*.js', '**/*.mjs'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/it return promises that its runner awaits itself
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it'] }] },
      ],
      // a variable read by a callback before its one assignment cannot be const
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
);
