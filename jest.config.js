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
	// Three workers on CI's two cores: the suites wait on sockets and timers about a third of the time (232 s with two
	// workers, 184 s with three, measured on two cores).
	maxWorkers: 3,
};
