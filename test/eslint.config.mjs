// Lint rules for the TypeScript that never ships (tests, the sandbox, benchmarks): they may use process,
// timers and the file system, which n8n's community-node rules (eslint.config.mjs at the root) forbid.
// `npm run lint` runs `n8n-node lint` with ESLint's per-folder config lookup, so each file gets the
// eslint.config.mjs nearest to it (sandbox/ and bench/ re-export this one).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({
	files: ['**/*.ts'],
	extends: [js.configs.recommended, tseslint.configs.recommended],
	rules: {
		'@typescript-eslint/no-explicit-any': 'off',
		'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
	},
});
