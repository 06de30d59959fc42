import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { MAX_JSON_DEPTH } from './redact';

/** The names a fresh assistant key has in an answer: the current one and the legacy one. */
export const ASSISTANT_KEY_FIELDS = ['assistantApiKey', 'apiKey_assistente'];

/** What replaces a hidden key: its last four characters (none of a key of 8 or fewer). */
export function assistantKeyHint(key: string): string {
	return key.length > 8 ? `…${key.slice(-4)}` : '…';
}

/**
 * `value` with every assistant key (ASSISTANT_KEY_FIELDS, at any depth) replaced by
 * `assistantApiKeyHint`; objects without a key are returned as they are.
 */
export function withoutAssistantKeys<T>(value: T, depth = 0): T {
	if (value === null || typeof value !== 'object' || depth >= MAX_JSON_DEPTH) return value;
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		value.forEach((entry, index) => {
			const next = withoutAssistantKeys(entry, depth + 1);
			if (next !== entry) (copy ??= value.slice())[index] = next;
		});
		return (copy ?? value) as T;
	}
	let copy: IDataObject | undefined;
	for (const [key, child] of Object.entries(value as IDataObject)) {
		if (ASSISTANT_KEY_FIELDS.includes(key) && typeof child === 'string') {
			copy ??= { ...(value as IDataObject) };
			delete copy[key];
			copy.assistantApiKeyHint = assistantKeyHint(child);
			continue;
		}
		const next = withoutAssistantKeys(child, depth + 1);
		if (next !== child) (copy ??= { ...(value as IDataObject) })[key] = next as IDataObject[string];
	}
	return (copy ?? value) as T;
}

/**
 * The one rule for a fresh assistant key in output (Assistant → Create, Custom API Request): the
 * platform returns it once, on create; it is output only when the user opts in (Include API Key in
 * Output, `reveal`), else only its hint.
 */
export function protectAssistantKeys(items: INodeExecutionData[], reveal: boolean): INodeExecutionData[] {
	if (reveal) return items;
	for (const item of items) item.json = withoutAssistantKeys(item.json);
	return items;
}
