import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { MAX_JSON_DEPTH } from '../../shared/core/redact';

/*
 * Which fields hold a key, defined once: a tool run strips every key field from what the model reads
 * (toolOutput.ts), a workflow run hides a fresh assistant key unless the user asks for it (protectAssistantKeys).
 */

/** Field names that hold a key: assistantApiKey, apiKey_assistente, portalApiKey, secret, password, token, … */
const KEY_FIELD = /api_?key|secret|passw(or)?d|^token$|access_?token|refresh_?token|authorization/i;

/** A field that holds a key (a hint of one, such as assistantApiKeyHint, is its last characters only). */
export function isKeyField(name: string): boolean {
	return KEY_FIELD.test(name) && !/hint$/i.test(name);
}

/** The key fields a fresh assistant key comes in: the current name and the legacy one. */
export const ASSISTANT_KEY_FIELDS = ['assistantApiKey', 'apiKey_assistente'];

/**
 * `value` with every field `picked` selects, at any depth, replaced by the fields `replacement` returns for it
 * (none: the field is removed). Objects without such a field are returned as they are.
 */
export function replaceFields<T>(
	value: T,
	picked: (name: string, child: unknown) => boolean,
	replacement: (child: unknown) => IDataObject,
	depth = 0,
): T {
	if (value === null || typeof value !== 'object' || depth >= MAX_JSON_DEPTH) return value;
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		value.forEach((entry, index) => {
			const next = replaceFields(entry, picked, replacement, depth + 1);
			if (next !== entry) (copy ??= value.slice())[index] = next;
		});
		return (copy ?? value) as T;
	}
	let copy: IDataObject | undefined;
	for (const [key, child] of Object.entries(value as IDataObject)) {
		if (picked(key, child)) {
			copy ??= { ...(value as IDataObject) };
			delete copy[key];
			Object.assign(copy, replacement(child));
			continue;
		}
		const next = replaceFields(child, picked, replacement, depth + 1);
		if (next !== child) (copy ??= { ...(value as IDataObject) })[key] = next as IDataObject[string];
	}
	return (copy ?? value) as T;
}

/** What replaces a hidden key: its last four characters (none of a key of 8 or fewer). */
function assistantKeyHint(key: string): string {
	return key.length > 8 ? `…${key.slice(-4)}` : '…';
}

/**
 * The one rule for a fresh assistant key in output (Assistant → Create, Custom API Request): the
 * platform returns it once, on create; it is output only when the user opts in (Include API Key in
 * Output, `reveal`), else only its hint (`assistantApiKeyHint`, at the depth the key was).
 */
export function protectAssistantKeys(items: INodeExecutionData[], reveal: boolean): INodeExecutionData[] {
	if (reveal) return items;
	for (const item of items) {
		item.json = replaceFields(
			item.json,
			(name, child) => ASSISTANT_KEY_FIELDS.includes(name) && typeof child === 'string',
			(key) => ({ assistantApiKeyHint: assistantKeyHint(key as string) }),
		);
	}
	return items;
}
