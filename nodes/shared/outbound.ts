import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { OUTBOUND_CREDENTIAL } from './constants';
import type { PlatformResponse, RequestContext, RequestSettings } from './transport';
import { outboundBaseUrl, platformRequest } from './transport';

/*
 * The outbound API as Place Call, Call Status and Call and Wait use it: Request Options > Batching
 * and one request function on top of the package transport.
 */

export type { RequestSettings } from './transport';
export { readRequestSettings } from './transport';

export interface Batching {
	/** Whether the user set Request Options > Batching. Without it calls go one at a time. */
	enabled: boolean;
	size: number;
	intervalMs: number;
}

/** Reads Request Options > Batching > Items per Batch / Batch Interval (ms). */
export function readBatching(raw: unknown): Batching {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const batch = ((options.batching as IDataObject | undefined)?.batch ?? undefined) as
		| IDataObject
		| undefined;
	if (!batch || typeof batch !== 'object') return { enabled: false, size: 1, intervalMs: 0 };
	const size = Number(batch.batchSize ?? 50);
	const interval = Number(batch.batchInterval ?? 1000);
	return {
		enabled: true,
		// n8n's own rule: -1 disables batching, 0 is treated as 1.
		size: Number.isFinite(size) && size > 0 ? Math.floor(size) : 1,
		intervalMs: Number.isFinite(interval) && interval > 0 && size !== -1 ? interval : 0,
	};
}

/**
 * One request to the outbound API ({outboundUrl}) with the outbound credential, Request Options read once
 * per run (`settings`).
 * `baseURL`: outboundBaseUrl(ctx) read once by a caller that sends many requests (a real n8n loads and
 * decrypts the credential on every getCredentials); without it the credential is read here.
 */
export async function outboundApi(
	ctx: RequestContext,
	settings: RequestSettings,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { body?: IDataObject; retry: boolean; itemIndex?: number; passStatuses?: number[]; baseURL?: string },
): Promise<PlatformResponse> {
	const request: IHttpRequestOptions = {
		method,
		baseURL: options.baseURL ?? (await outboundBaseUrl(ctx)),
		url: path,
		headers: { Accept: 'application/json' },
		json: true,
		...settings,
	};
	if (options.body !== undefined) request.body = options.body;
	return await platformRequest(ctx, OUTBOUND_CREDENTIAL, request, {
		retry: options.retry,
		itemIndex: options.itemIndex,
		passStatuses: options.passStatuses,
	});
}
