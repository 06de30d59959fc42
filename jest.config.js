/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	watchman: false,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.dev.json' }],
	},
	setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
	testTimeout: 60000,
	maxWorkers: 2,
};
