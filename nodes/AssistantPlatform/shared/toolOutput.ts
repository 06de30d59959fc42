import type { IDataObject, INodeExecutionData, NodeOutput } from 'n8n-workflow';

import { MAX_JSON_DEPTH, redactSecrets } from '../../shared/redact';
import { isObject } from '../../shared/object';

/*
 * What the model of an AI agent reads back from a tool is the tool's output: n8n hands it the JSON of every output
 * item (and keeps the same in the execution). One rule for every operation, applied where the node's output is
 * built for a tool run (the node's execute): no key reaches the model, whether the platform issued it (a new
 * assistant's key from Assistant → Create or Custom API Request POST /assistants), echoed it, or an option asked
 * for it. The keys the credentials hold are already redacted by the transport; this rule covers the keys no
 * credential knows.
 */

/** Field names that hold a key: assistantApiKey, apiKey_assistente, portalApiKey, secret, password, token, … */
const KEY_FIELD = /api_?key|secret|passw(or)?d|^token$|access_?token|refresh_?token|authorization/i;

/** A field that holds a key (a hint of one, such as assistantApiKeyHint, is its last characters only). */
export function isKeyField(name: string): boolean {
	return KEY_FIELD.test(name) && !/hint$/i.test(name);
}

/**
 * `value` without its key fields, at any depth, and without their values anywhere else in it (a key repeated in a
 * message or a URL is redacted as "***"). Objects without a key are returned as they are.
 */
export function withoutKeys<T>(value: T): T {
	const found: string[] = [];
	const strip = (node: unknown, depth: number): unknown => {
		if (node === null || typeof node !== 'object' || depth >= MAX_JSON_DEPTH) return node;
		if (Array.isArray(node)) {
			const mapped = node.map((entry) => strip(entry, depth + 1));
			return mapped.some((entry, i) => entry !== node[i]) ? mapped : node;
		}
		let copy: IDataObject | undefined;
		for (const [key, child] of Object.entries(node as IDataObject)) {
			if (isKeyField(key)) {
				if (typeof child === 'string' && child !== '') found.push(child);
				copy ??= { ...(node as IDataObject) };
				delete copy[key];
				continue;
			}
			const next = strip(child, depth + 1);
			if (next !== child) {
				copy ??= { ...(node as IDataObject) };
				copy[key] = next as IDataObject[string];
			}
		}
		return copy ?? node;
	};
	const stripped = strip(value, 0) as T;
	return found.length > 0 ? redactSecrets(stripped, found) : stripped;
}

/** The node's output as a tool gives it to the model: every item without keys (see withoutKeys). */
export function outputForModel(output: NodeOutput): NodeOutput {
	if (!Array.isArray(output)) return output;
	return output.map((items) =>
		(items as INodeExecutionData[]).map((item) => (isObject(item.json) ? { ...item, json: withoutKeys(item.json) } : item)),
	) as NodeOutput;
}
