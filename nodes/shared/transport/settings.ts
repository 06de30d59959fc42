import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
} from 'n8n-workflow';

import { MB } from '../core/constants';
import { invalid, kindOf, numberField, textField } from '../core/validation';
import type { RequestContext } from './endpoint';

/* Settings > Request Options: what a user sets for the requests of one node. */

export interface RequestSettings {
	timeout?: number;
	proxy?: IHttpRequestOptions['proxy'];
	skipSslCertificateValidation?: boolean;
	/** Max Response Size in bytes (after decompression). */
	maxResponseBytes?: number;
}

/**
 * Reads Request Options > Timeout / Proxy / Ignore SSL Issues (names and rules as n8n's own nodes have
 * them) and Max Response Size.
 */
export function readRequestSettings(node: INode, raw: unknown, itemIndex?: number): RequestSettings {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const settings: RequestSettings = {};
	const timeout = numberField(node, 'Timeout', options.timeout, 0, itemIndex);
	if (timeout > 0) settings.timeout = timeout;
	const size = options.maxResponseSize;
	if (size !== undefined && size !== null && size !== '') {
		if (typeof size !== 'number' || !Number.isFinite(size) || size <= 0) {
			throw invalid(node, 'Max Response Size (MB)', `must be a number above 0 (got ${typeof size === 'number' ? size : kindOf(size)})`, itemIndex);
		}
		settings.maxResponseBytes = Math.floor(size * MB);
	}
	if (options.allowUnauthorizedCerts === true) settings.skipSslCertificateValidation = true;
	const proxy = textField(node, 'Proxy', options.proxy, itemIndex, { numbers: false });
	if (proxy !== '') {
		let url: URL;
		try {
			url = new URL(proxy);
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

/** Settings > Request Options of the node (operations, list search and load options alike). */
export function nodeRequestSettings(ctx: RequestContext, itemIndex?: number): RequestSettings {
	let value: unknown;
	try {
		if ('getItemIndex' in ctx) {
			value = (ctx as IExecuteSingleFunctions).getNodeParameter('requestOptions', {});
		} else if ('getInputData' in ctx) {
			value = (ctx as IExecuteFunctions).getNodeParameter('requestOptions', itemIndex ?? 0, {});
		} else if ('getCurrentNodeParameter' in ctx) {
			value = (ctx as ILoadOptionsFunctions).getCurrentNodeParameter('requestOptions');
		}
	} catch {
		return {};
	}
	return readRequestSettings(ctx.getNode(), value, itemIndex);
}
