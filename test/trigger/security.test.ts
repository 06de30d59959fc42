/** The trigger's dependency-free security helpers: secret rules, constant-time compare, CIDR matching. */
import {
	constantTimeEqual,
	ipAllowed,
	parseAllowlist,
	parseCidr,
	parseIp,
	secretProblem,
} from '../../nodes/AssistantPlatformTrigger/security';

describe('secretProblem', () => {
	test('accepts random hex and base64url secrets of 32+ characters', () => {
		expect(secretProblem('3f9a0c1d2e4b5a6978f0e1d2c3b4a59687f6e5d4c3b2a190')).toBeUndefined();
		expect(secretProblem('Zx8_kLq-2MvN9pRt4WsY6uBa1CdEfGhJ')).toBeUndefined();
	});

	test.each([
		[undefined, 'is required'],
		['', 'is required'],
		['a'.repeat(31), 'must be at least 32 characters'],
		['a'.repeat(129), 'must be at most 128'],
		['abc def ghi jkl mno pqr stu vwx yz01', 'may only contain'],
		['abcd'.repeat(8), 'looks hand-made'],
	])('%p is refused', (value, rule) => {
		expect(secretProblem(value)).toContain(rule);
	});
});

describe('constantTimeEqual', () => {
	test('equal only for the same string', () => {
		expect(constantTimeEqual('abc', 'abc')).toBe(true);
		expect(constantTimeEqual('abd', 'abc')).toBe(false);
		expect(constantTimeEqual('ab', 'abc')).toBe(false);
		expect(constantTimeEqual('abcd', 'abc')).toBe(false);
		expect(constantTimeEqual('', 'abc')).toBe(false);
		// An empty expected value never matches (an unset secret must not accept an empty token).
		expect(constantTimeEqual('', '')).toBe(false);
	});
});

describe('IP parsing and allowlists', () => {
	test('parses IPv4, IPv6 (compressed, embedded IPv4, zone) and maps ::ffff:a.b.c.d to IPv4', () => {
		expect(parseIp('192.0.2.1')).toEqual({ version: 4, value: 0xc0000201n });
		expect(parseIp('::1')).toEqual({ version: 6, value: 1n });
		expect(parseIp('2001:db8::8a2e:370:7334')?.version).toBe(6);
		expect(parseIp('::ffff:192.0.2.1')).toEqual({ version: 4, value: 0xc0000201n });
		expect(parseIp('fe80::1%eth0')?.version).toBe(6);
		for (const bad of ['256.0.0.1', '1.2.3', '01.2.3.4', '1::2::3', 'gggg::1', '1:2:3:4:5:6:7:8:9', 'host.example']) {
			expect(parseIp(bad)).toBeUndefined();
		}
	});

	test('parses CIDR ranges and single addresses', () => {
		expect(parseCidr('10.1.2.3/8')).toMatchObject({ version: 4, prefix: 8, network: 0x0a000000n });
		expect(parseCidr('192.0.2.7')).toMatchObject({ version: 4, prefix: 32 });
		expect(parseCidr('2001:db8::/32')).toMatchObject({ version: 6, prefix: 32 });
		expect(parseCidr('::/0')).toMatchObject({ version: 6, prefix: 0, network: 0n });
		for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/x', '10.0.0.0/', 'nonsense']) {
			expect(parseCidr(bad)).toBeUndefined();
		}
	});

	test('matches addresses against the list', () => {
		const { ranges, invalid } = parseAllowlist('203.0.113.0/24, 2001:db8::/32\n192.0.2.7 ::ffff:0:0/96');
		expect(invalid).toEqual([]);
		expect(ipAllowed('203.0.113.200', ranges)).toBe(true);
		expect(ipAllowed('203.0.114.1', ranges)).toBe(true); // via ::ffff:0:0/96 (every IPv4 in mapped form)
		expect(ipAllowed('2001:db8:1::5', ranges)).toBe(true);
		expect(ipAllowed('2001:db9::5', ranges)).toBe(false);

		const strict = parseAllowlist('203.0.113.0/24; 2001:db8::/32; 192.0.2.7').ranges;
		expect(ipAllowed('203.0.113.1', strict)).toBe(true);
		expect(ipAllowed('::ffff:203.0.113.1', strict)).toBe(true);
		expect(ipAllowed('203.0.114.1', strict)).toBe(false);
		expect(ipAllowed('192.0.2.7', strict)).toBe(true);
		expect(ipAllowed('192.0.2.8', strict)).toBe(false);
		expect(ipAllowed('', strict)).toBe(false);
		expect(ipAllowed('not-an-ip', strict)).toBe(false);
	});

	test('reports invalid entries', () => {
		expect(parseAllowlist('10.0.0.0/8, 300.1.1.1, ,abc').invalid).toEqual(['300.1.1.1', 'abc']);
	});
});
