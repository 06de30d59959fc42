import { findLeaks, installOutputCapture } from './harness/secretsGuard';

installOutputCapture();

afterAll(() => {
	const leaks = findLeaks();
	if (leaks.length > 0) {
		throw new Error(`Secrets leaked into node output, errors or logs:\n${leaks.join('\n')}`);
	}
});
