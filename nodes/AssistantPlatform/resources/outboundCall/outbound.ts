import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { OUTBOUND_CREDENTIAL } from '../../shared/constants';
import type { PlatformResponse, RequestContext } from '../../shared/transport';
import { platformRequest } from '../../shared/transport';
import { invalid } from '../../shared/validation';

/*
 * Helpers shared by the Outbound Call and Call Status resources (both programmatic): the request
 * options n8n shows under Settings > Request Options (timeout, proxy, SSL, batching) and one
 * request function on top of the package transport.
 */

export interface RequestSettings {
	timeout?: number;
	proxy?: IHttpRequestOptions['proxy'];
	skipSslCertificateValidation?: boolean;
}

/** Reads Request Options > Timeout / Proxy / Ignore SSL Issues the way n8n's declarative engine does. */
export function readRequestSettings(node: INode, raw: unknown, itemIndex?: number): RequestSettings {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const settings: RequestSettings = {};
	const timeout = Number(options.timeout);
	if (options.timeout !== undefined && options.timeout !== '' && Number.isFinite(timeout) && timeout > 0) {
		settings.timeout = timeout;
	}
	if (options.allowUnauthorizedCerts === true) settings.skipSslCertificateValidation = true;
	if (typeof options.proxy === 'string' && options.proxy.trim() !== '') {
		let url: URL;
		try {
			url = new URL(options.proxy.trim());
		} catch {
			throw invalid(node, 'Proxy', 'must be a URL such as http://myproxy:3128', itemIndex);
		}
		if (!url.hostname || !url.port) {
			throw invalid(node, 'Proxy', 'must name a host and a port, e.g. http://myproxy:3128', itemIndex);
		}
		settings.proxy = {
			host: url.hostname,
			port: Number(url.port),
			protocol: url.protocol.replace(/:$/, ''),
			...(url.username
				? {
						auth: {
							username: decodeURIComponent(url.username),
							password: decodeURIComponent(url.password),
						},
					}
				: {}),
		};
	}
	return settings;
}

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

/** One request to the outbound API ({outboundUrl}), authenticated by n8n with the outbound credential. */
export async function outboundApi(
	ctx: RequestContext,
	settings: RequestSettings,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { body?: IDataObject; retry: boolean; itemIndex?: number; passStatuses?: number[] },
): Promise<PlatformResponse> {
	const credentials = await ctx.getCredentials(OUTBOUND_CREDENTIAL);
	const request: IHttpRequestOptions = {
		method,
		baseURL: String(credentials.outboundUrl ?? '').replace(/\/+$/, ''),
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
