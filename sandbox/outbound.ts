import type { SandboxCore } from './core';
import { ApiError, invalid } from './errors';
import type { Reply, RequestContext, Route } from './http';
import { jsonObject, ok } from './http';
import type { CallRoute } from './types';
import { E164, isHttpUrl, isIpOrHostname, normalizePbx } from './validate';

/** camelCase wins when both names are present. */
function pick(body: Record<string, unknown>, current: string, legacy: string): { value: unknown; field: string } {
	if (body[current] !== undefined) return { value: body[current], field: current };
	if (body[legacy] !== undefined) return { value: body[legacy], field: legacy };
	return { value: undefined, field: current };
}

function phone(body: Record<string, unknown>, field: string): string {
	const value = body[field];
	if (typeof value !== 'string' || !E164.test(value)) {
		throw invalid(field, 'must be in international form: + then 2..15 digits, the first not 0 (e.g. +14155550123)');
	}
	return value;
}

function placeCall(core: SandboxCore, ctx: RequestContext, route: CallRoute): Reply {
	const body = jsonObject(ctx);
	const dst = phone(body, 'dst');
	const callerId = phone(body, 'callerId');
	const key = pick(body, 'assistantApiKey', 'apiKey_assistente');
	if (typeof key.value !== 'string' || key.value === '') throw invalid(key.field, 'must be a non-empty string (the assistant API key)');
	const cb = pick(body, 'callResultUrl', 'url_esito_chiamata');
	let callResultUrl: string | null = null;
	if (cb.value !== undefined && cb.value !== null) {
		if (!isHttpUrl(cb.value)) throw invalid(cb.field, 'must be an http:// or https:// URL');
		callResultUrl = cb.value;
	}
	let addPrompt: string | null = null;
	if (body.addPrompt !== undefined && body.addPrompt !== null) {
		if (typeof body.addPrompt !== 'string') throw invalid('addPrompt', 'must be a string');
		addPrompt = body.addPrompt;
	}
	let ipPbx: string | null = null;
	let sipPort: number | null = null;
	if (route === 'pbx') {
		if (typeof body.ipPbx !== 'string' || body.ipPbx.trim() === '' || !isIpOrHostname(normalizePbx(body.ipPbx))) {
			throw invalid('ipPbx', 'is required: an IPv4/IPv6 address or a host name');
		}
		ipPbx = body.ipPbx.trim();
		if (body.sipPort !== undefined && body.sipPort !== null) {
			const port = body.sipPort;
			if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
				throw invalid('sipPort', 'must be an integer from 1 to 65535');
			}
			sipPort = port;
		}
	}
	const assistantId = core.state.assistantKeys.get(key.value);
	if (!assistantId) throw new ApiError(401, 'INVALID_ASSISTANT_KEY', 'The assistant API key does not match any assistant.');
	if (route === 'trunk') {
		const number = core.state.numbers.get(callerId);
		if (!number || number.assistantId !== assistantId) {
			throw new ApiError(403, 'CALLER_ID_NOT_ASSIGNED', `callerId ${callerId} is not a demo or purchased number assigned to this assistant.`, {
				field: 'callerId',
				callerId,
			});
		}
	} else if (!core.state.authorizedPbx.has(normalizePbx(ipPbx as string))) {
		throw new ApiError(403, 'PBX_NOT_AUTHORIZED', `PBX ${ipPbx} is not authorized for this account.`, { field: 'ipPbx', ipPbx });
	}
	core.checkCallLimit(dst);
	const call = core.placeCall({ route, assistantId, dst, callerId, ipPbx, sipPort, addPrompt, callResultUrl });
	// The spec shows internal_id in an acceptance ("rest of the response: not shown").
	return ok(core.answers === 'rich' ? { internal_id: call.internalId, status: 'queued' } : { internal_id: call.internalId });
}

function dialStatus(core: SandboxCore, _ctx: RequestContext, [internalId]: string[]): Reply {
	const call = core.state.calls.get(internalId);
	if (!call || !call.persisted) {
		throw new ApiError(404, 'CALL_RECORD_NOT_FOUND', `No persisted call record for ${internalId} (yet); retry with a bounded delay.`);
	}
	// The spec's status record is {dialStatus, billSec, trafficCost}: the URL names the call.
	const record = { dialStatus: call.dialstatus, billSec: call.billSec, trafficCost: call.trafficCost };
	return ok(core.answers === 'rich' ? { internal_id: call.internalId, ...record } : record);
}

/** Paths from the outbound base URL. */
export const outboundRoutes: Route<SandboxCore>[] = [
	{ method: 'POST', pattern: /^\/webhook\/outbound_call$/, handler: (core, ctx) => placeCall(core, ctx, 'trunk') },
	{ method: 'POST', pattern: /^\/webhook\/outbound_call_pbx$/, handler: (core, ctx) => placeCall(core, ctx, 'pbx') },
	{ method: 'GET', pattern: /^\/getDialstatus\/([^/]+)$/, handler: dialStatus },
];

export function isOutboundPath(path: string): boolean {
	return outboundRoutes.some((r) => r.pattern.test(path));
}
