/**
 * A credential that would send its key where nobody meant is refused before anything is sent, by
 * every operation of both nodes, the editor's list methods and the trigger's registration: a base URL
 * with a query ("?x=1" put the portal key on "/?x=1/api/v1/…"), a fragment ("#frag" sent it to "/"), or
 * user info ("user:pw@" added an Authorization: Basic header, replacing the portal key or beside the
 * outbound one); an empty or blank portal key or outbound key ("Bearer " went out). The same for the
 * Data Tables API credential of the Campaign operations (n8n API URL, API Key): nothing reaches n8n's API
 * either. The credential's own Test button refuses the same (test/credentials.test.ts).
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { HostileFixture } from '../harness/hostile';
import { useHostile } from '../harness/hostile';

import type { Target } from './targets';
import { prepare, TARGETS } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const OUTBOUND_OPS = new Set(['outboundCall.placeCall', 'callStatus.get', 'callAndWait']);
type Credential = 'portal' | 'outbound' | 'n8n';
const uses = (target: Target, credential: Credential) => (target.uses ?? [OUTBOUND_OPS.has(target.op) ? 'outbound' : 'portal']).includes(credential);

interface Variant {
	what: string;
	credential: Credential;
	change: (credential: ICredentialDataDecryptedObject, front: string) => ICredentialDataDecryptedObject;
	/** What the error must say: the credential field and the rule. */
	says: RegExp;
}

const withUserInfo = (url: string) => url.replace('http://', 'http://user:pw@');

const VARIANTS: Variant[] = [
	{ what: 'a base URL with a query', credential: 'portal', change: (c, f) => ({ ...c, baseUrl: `${f}?x=1` }), says: /"Management Base URL".*query/ },
	{ what: 'a base URL with an empty query', credential: 'portal', change: (c, f) => ({ ...c, baseUrl: `${f}/?` }), says: /"Management Base URL".*query/ },
	{ what: 'a base URL with a fragment', credential: 'portal', change: (c, f) => ({ ...c, baseUrl: `${f}#frag` }), says: /"Management Base URL".*fragment/ },
	{ what: 'a base URL with user info', credential: 'portal', change: (c, f) => ({ ...c, baseUrl: withUserInfo(f) }), says: /"Management Base URL".*user name or password/ },
	{ what: 'an empty portal key', credential: 'portal', change: (c) => ({ ...c, portalApiKey: '' }), says: /"Portal API Key".*empty/ },
	{ what: 'a blank portal key', credential: 'portal', change: (c) => ({ ...c, portalApiKey: '  \t ' }), says: /"Portal API Key".*empty/ },
	{ what: 'an outbound URL with a query', credential: 'outbound', change: (c, f) => ({ ...c, outboundUrl: `${f}?x=1` }), says: /"Outbound Base URL".*query/ },
	{ what: 'an outbound URL with a fragment', credential: 'outbound', change: (c, f) => ({ ...c, outboundUrl: `${f}#frag` }), says: /"Outbound Base URL".*fragment/ },
	{ what: 'an outbound URL with user info', credential: 'outbound', change: (c, f) => ({ ...c, outboundUrl: withUserInfo(f) }), says: /"Outbound Base URL".*user name or password/ },
	{ what: 'an empty outbound key', credential: 'outbound', change: (c) => ({ ...c, outboundApiKey: '' }), says: /"Outbound API Key".*empty/ },
	{ what: 'a blank outbound key', credential: 'outbound', change: (c) => ({ ...c, outboundApiKey: ' ' }), says: /"Outbound API Key".*empty/ },
	{ what: 'an n8n API URL with a query', credential: 'n8n', change: (c) => ({ ...c, baseUrl: `${String(c.baseUrl)}?x=1` }), says: /"n8n API URL".*query/ },
	{ what: 'an n8n API URL with a fragment', credential: 'n8n', change: (c) => ({ ...c, baseUrl: `${String(c.baseUrl)}#frag` }), says: /"n8n API URL".*fragment/ },
	{ what: 'an n8n API URL with user info', credential: 'n8n', change: (c) => ({ ...c, baseUrl: withUserInfo(String(c.baseUrl)) }), says: /"n8n API URL".*user name or password/ },
	{ what: 'an empty n8n API key', credential: 'n8n', change: (c) => ({ ...c, apiKey: '' }), says: /"API Key".*empty/ },
	{ what: 'a blank n8n API key', credential: 'n8n', change: (c) => ({ ...c, apiKey: ' \t' }), says: /"API Key".*empty/ },
];

/** The fixture with one credential changed. */
function withCredential(variant: Variant): HostileFixture {
	const portal = variant.credential === 'portal' ? variant.change(fx.portal, fx.hostile.url) : fx.portal;
	const outbound = variant.credential === 'outbound' ? variant.change(fx.outbound, fx.hostile.url) : fx.outbound;
	const n8n = variant.credential === 'n8n' ? variant.change(fx.n8n.credentials, fx.hostile.url) : fx.n8n.credentials;
	return {
		...fx,
		portal,
		outbound,
		credentials: { assistantPlatformPortalApi: portal, assistantPlatformOutboundApi: outbound, assistantPlatformN8nApi: n8n },
	};
}

describe.each(VARIANTS.map((v) => [v.what, v] as const))('%s', (_what, variant) => {
	test('every target that uses the credential fails naming the field and the rule; nothing is sent', async () => {
		const targets = TARGETS.filter((t) => t.op !== 'trigger.unpublish' && uses(t, variant.credential));
		expect(targets.length).toBeGreaterThan(0);
		const problems: string[] = [];
		const fixture = withCredential(variant);
		for (const target of targets) {
			fx.hostile.requests.length = 0;
			fx.n8n.requests.length = 0;
			const outcome = await target.run(fixture, { timeoutMs: 10_000, continueOnFail: false });
			const message = outcome.error?.message ?? '';
			if (!outcome.error) problems.push(`${target.name}: no error`);
			else if (!variant.says.test(message)) problems.push(`${target.name}: ${message.slice(0, 200)}`);
			if (fx.hostile.requests.length > 0) {
				problems.push(`${target.name}: sent ${fx.hostile.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`);
			}
			// The Data Tables API credential is the first a Campaign operation uses: with it broken, n8n's API gets nothing either.
			if (variant.credential === 'n8n' && fx.n8n.requests.length > 0) {
				problems.push(`${target.name}: sent to n8n's API ${fx.n8n.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`);
			}
		}
		expect(problems).toEqual([]);
		expect(fx.hostile.foreign.requests).toEqual([]);
	});
});
