import type { JournalEntry, SandboxState } from './types';

/** The secrets the journal masks: the sandbox core's keys and stored values (core.ts passes itself). */
export interface JournalSecrets {
	readonly state: Pick<SandboxState, 'assistantKeys' | 'savedAuthentications'>;
	readonly portalKey: string;
	readonly outboundKey: string;
	readonly savedAuthValue: string;
}

const SECRET_BODY_FIELDS = new Set(['assistantApiKey', 'apiKey_assistente']);
const MASKED_HEADERS = new Set(['authorization', 'x-apikey-secret-service']);
const KEY_PATTERN = /ak_[A-Za-z0-9]{32}/g;
const RAW_LIMIT = 64 * 1024;

function maskAssistantKey(core: JournalSecrets, value: unknown): string {
	const assistantId = typeof value === 'string' ? core.state.assistantKeys.get(value) : undefined;
	return assistantId ? `[masked:${assistantId}]` : '[masked:unknown]';
}

/** Replaces every known secret inside a string. */
function scrub(core: JournalSecrets, text: string): string {
	let out = text.replace(KEY_PATTERN, (key) => maskAssistantKey(core, key));
	const secrets = [core.portalKey, core.outboundKey, core.savedAuthValue];
	for (const auth of core.state.savedAuthentications.values()) secrets.push(auth.value);
	for (const secret of secrets) {
		if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join('[masked]');
	}
	return out;
}

function deepMask(core: JournalSecrets, value: unknown): unknown {
	if (typeof value === 'string') return scrub(core, value);
	if (Array.isArray(value)) return value.map((v) => deepMask(core, v));
	if (value !== null && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
			out[k] = SECRET_BODY_FIELDS.has(k) ? maskAssistantKey(core, v) : deepMask(core, v);
		}
		return out;
	}
	return value;
}

/**
 * The journal never holds a secret: the two auth headers become '[masked]', assistant keys in
 * bodies and queries become '[masked:<assistantId>]' (or '[masked:unknown]'), and any string
 * that still contains a key is scrubbed.
 */
export function maskJournal(core: JournalSecrets, entry: JournalEntry): JournalEntry {
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(entry.headers)) {
		headers[name] = MASKED_HEADERS.has(name) ? '[masked]' : (deepMask(core, value) as string | string[]);
	}
	let body = entry.body;
	if (typeof body === 'string' && body.length > RAW_LIMIT) body = body.slice(0, RAW_LIMIT) + `…[${body.length - RAW_LIMIT} more characters]`;
	return {
		...entry,
		path: scrub(core, entry.path),
		query: deepMask(core, entry.query) as Record<string, string | string[]>,
		headers,
		body: deepMask(core, body),
	};
}
