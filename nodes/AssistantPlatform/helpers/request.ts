import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';

import { portalRequest } from '../../shared/transport/request';
import { assertPathId, invalid, kindOf, parseJsonObject } from '../../shared/core/validation';

import type { ItemScope } from './items';

/** A response body as output items: an array gives one item per element, no body gives `{success: true}`. */
export function toItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((json) => ({ json: json as IDataObject }));
	if (body === undefined || body === null || body === '') return [{ json: { success: true } }];
	if (typeof body !== 'object') return [{ json: { data: body as string } }];
	return [{ json: body as IDataObject }];
}

/**
 * One management API request of one input item, its answer as output items. A GET is a read and is
 * retried with bounded backoff; POST, PATCH and DELETE are sent once, never retried.
 */
export async function managementRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
	path: string,
	body?: IDataObject,
): Promise<INodeExecutionData[]> {
	const response = await portalRequest(ctx, method as IHttpRequestOptions['method'], path, {
		body,
		retry: method === 'GET',
		itemIndex,
	});
	return toItems(response.body);
}

/** A path with `{param}` placeholders filled from node parameters (resource locators included), none empty. */
export function resolvePath(scope: ItemScope, template: string, labels: Record<string, string>): string {
	return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
		const value = scope.getNodeParameter(name, '', { extractValue: true });
		const text = assertPathId(scope.getNode(), labels[name] ?? name, value, scope.getItemIndex());
		return encodeURIComponent(text);
	});
}

/**
 * `body` with the "Additional Fields (JSON)" escape hatch merged in. Its keys win (saved workflows rely
 * on it), but a key that replaces a field of the node must pass that field's basic rule: the same kind
 * of value, and not blank where the field is text (docs/assumptions.md).
 */
export function withAdditionalFields(scope: ItemScope, body: IDataObject): IDataObject {
	const node = scope.getNode();
	const label = 'Additional Fields (JSON)';
	const extra = parseJsonObject(node, label, scope.getNodeParameter('additionalFieldsJson', ''), scope.getItemIndex());
	if (Object.keys(extra).length === 0) return body;
	for (const [key, value] of Object.entries(extra)) {
		if (!Object.hasOwn(body, key) || body[key] === undefined || body[key] === null) continue;
		const own = body[key];
		const blank = typeof value === 'string' && value.trim() === '' && typeof own === 'string' && own.trim() !== '';
		if (kindOf(value) !== kindOf(own) || blank) {
			throw invalid(
				node,
				label,
				`"${key}" replaces a field of this operation and must be ${blank ? 'non-blank text' : kindOf(own)} like it (got ${blank ? 'blank text' : kindOf(value)})`,
				scope.getItemIndex(),
			);
		}
	}
	return { ...body, ...extra };
}
