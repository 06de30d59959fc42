import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { redactUrlFields } from '../../../shared/core/redact';
import { assertHttpUrl, invalid, textField } from '../../../shared/core/validation';
import type { ItemScope } from '../../helpers/items';
import { showOperations } from '../../helpers/module';
import { managementRequest, resolvePath, withAdditionalFields } from '../../helpers/request';

export { readText, splitList } from '../../../shared/core/text';

export const showFor = showOperations('runtime');

/** /assistants/{assistantId}`suffix`, the Assistant locator checked before anything else of the item. */
export function assistantPath(scope: ItemScope, suffix: string): string {
	return resolvePath(scope, `/assistants/{assistantId}${suffix}`, { assistantId: 'Assistant' });
}

/**
 * Every runtime write: PATCH `path` with `body` and Additional Fields (JSON) merged in, sent once.
 * Hook URLs in the answer are output like every URL handed to the platform (redactUrl).
 */
export async function patchRuntime(
	ctx: IExecuteFunctions,
	scope: ItemScope,
	path: string,
	body: IDataObject,
): Promise<INodeExecutionData[]> {
	const items = await managementRequest(ctx, scope.getItemIndex(), 'PATCH', path, withAdditionalFields(scope, body));
	for (const item of items) item.json = redactUrlFields(item.json);
	return items;
}

/** A boolean parameter, tolerating "true"/"false" from an expression; anything else is rejected. */
function readBoolean(scope: ItemScope, parameter: string, label: string, fallback: boolean): boolean {
	const value = scope.getNodeParameter(parameter, fallback) as unknown;
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalid(scope.getNode(), label, `must be true or false (got ${JSON.stringify(value)})`, scope.getItemIndex());
}

/**
 * The switch of a hangup hook: Enabled, its URL (required when enabled; when disabled an empty one is
 * null, a given one still checked) and an Authentication Name (empty: null, no authentication).
 */
export function readHookSwitch(
	scope: ItemScope,
	fields: { enabled: string; url: string; urlLabel: string; authName: string },
): { enabled: boolean; url: string | null; authName: string | null } {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const enabled = readBoolean(scope, fields.enabled, 'Enabled', true);
	const rawUrl = textField(node, fields.urlLabel, scope.getNodeParameter(fields.url, ''), itemIndex);
	const url = enabled || rawUrl !== '' ? assertHttpUrl(node, fields.urlLabel, rawUrl, itemIndex) : null;
	const authName = textField(node, 'Authentication Name', scope.getNodeParameter(fields.authName, ''), itemIndex);
	return { enabled, url, authName: authName === '' ? null : authName };
}
