// Lint scope for tests, the sandbox, scripts and benchmarks: they may use process, timers and the
// file system, which the community-node rules (eslint.config.mjs, for nodes/ and credentials/) forbid.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist', '.build', 'node_modules', '.tools', '.n8n-demo'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
);
