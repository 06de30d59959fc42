import type { IDataObject } from 'n8n-workflow';

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A platform answer as an item's JSON: the object itself, anything else under `data`. */
export function asObject(value: unknown): IDataObject {
	return isObject(value) ? value : { data: value as IDataObject[string] };
}
