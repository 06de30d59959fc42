import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readNumber } from './numbers';

/**
 * Bad input is rejected before anything is sent, with an error that names the field and the rule.
 */
export function invalid(
	node: INode,
	field: string,
	rule: string,
	itemIndex?: number,
): NodeOperationError {
	return new NodeOperationError(node, `Invalid "${field}": ${rule}`, {
		itemIndex,
		description: `The value of "${field}" was rejected before anything was sent to the platform.`,
	});
}

/** E.164: a plus, then 1 to 15 digits, the first not 0. Short national plans are accepted. */
const E164 = /^\+[1-9]\d{1,14}$/;

export function assertE164(node: INode, field: string, value: unknown, itemIndex?: number): string {
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalid(node, field, 'must be a phone number in international form, e.g. +14155550123', itemIndex);
	}
	const text = String(value).trim();
	if (!E164.test(text)) {
		throw invalid(
			node,
			field,
			`must be in international (E.164) form: a leading + then 2 to 15 digits, e.g. +14155550123 (got "${text}")`,
			itemIndex,
		);
	}
	return text;
}

/**
 * A phone number in the one form numbers are compared in (E.164: +, country code, digits): spaces, dots, hyphens,
 * slashes and parentheses dropped, a leading 00 read as +. Undefined for anything that is not then E.164 (a national
 * number without its country code cannot be placed in a country, so it is never guessed).
 */
export function canonicalNumber(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	let text = String(value).trim().replace(/[\s.\-/()]/g, '');
	if (text.startsWith('00')) text = `+${text.slice(2)}`;
	return E164.test(text) ? text : undefined;
}

/** "an object", "a list", "a boolean", ...: what an expression resolved to, without its content. */
export function kindOf(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'null';
	if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : 'a number that is not finite';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'boolean') return 'a boolean';
	return `a ${typeof value}`;
}

/** A short rendering of a value for an error: numbers and booleans as they are, other values by kind. */
function describeValue(value: unknown): string {
	if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
	return kindOf(value);
}

export function assertHttpUrl(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): string {
	const text = typeof value === 'string' ? value.trim() : '';
	if (value !== undefined && value !== null && typeof value !== 'string') {
		// An expression that resolved to a number, an object, ...: say what it was.
		throw invalid(node, field, `must be an http:// or https:// URL (got ${describeValue(value)})`, itemIndex);
	}
	let ok = false;
	try {
		const url = new URL(text);
		ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		ok = false;
	}
	if (!ok) {
		throw invalid(node, field, `must be an http:// or https:// URL (got "${text}")`, itemIndex);
	}
	return text;
}

export function assertNonEmpty(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		throw invalid(node, field, 'must not be empty', itemIndex);
	}
	if (typeof value !== 'string') {
		// An expression that resolved to an object, a list, a boolean, ...
		throw invalid(node, field, `must be text, not ${kindOf(value)} (check the expression)`, itemIndex);
	}
	return value.trim();
}

/**
 * An optional text field: undefined, null and "" are empty (""), a number is its text (unless
 * `numbers` is false: keys are never numbers); an object, a list or a boolean (an expression of the
 * wrong type) is refused naming the field, never read as empty or sent as "[object Object]". Trimmed
 * unless `trim` is false.
 */
export function textField(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
	options: { trim?: boolean; numbers?: boolean } = {},
): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'number' && Number.isFinite(value) && options.numbers !== false) return String(value);
	if (typeof value !== 'string') {
		throw invalid(node, field, `must be text, not ${kindOf(value)} (check the expression)`, itemIndex);
	}
	return options.trim === false ? value : value.trim();
}

/** A choice among fixed values (an options field, also from an expression): anything else is refused. */
export function optionField<T extends string>(
	node: INode,
	field: string,
	value: unknown,
	allowed: readonly T[],
	itemIndex?: number,
): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		const got = typeof value === 'string' ? `"${value}"` : kindOf(value);
		throw invalid(node, field, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')} (got ${got})`, itemIndex);
	}
	return value as T;
}

/**
 * An optional number field: undefined, null and "" are `fallback`; anything but a number (or its text,
 * readNumber) is refused.
 */
export function numberField(node: INode, field: string, value: unknown, fallback: number, itemIndex?: number): number {
	if (value === undefined || value === null || value === '') return fallback;
	const n = readNumber(value);
	if (n === undefined) {
		throw invalid(node, field, `must be a number (got ${typeof value === 'string' ? JSON.stringify(value) : kindOf(value)})`, itemIndex);
	}
	return n;
}

/**
 * An id that goes into a URL path: not empty, not "." or "..", and without "/" or "\\", so that it
 * can only address the resource it names (a dot segment would address its parent).
 */
export function assertPathId(node: INode, field: string, value: unknown, itemIndex?: number): string {
	const text = assertNonEmpty(node, field, value, itemIndex);
	if (text === '.' || text === '..') {
		throw invalid(node, field, `must be an ID, not "${text}" (a path segment that would address another resource)`, itemIndex);
	}
	if (/[/\\]/.test(text)) {
		throw invalid(node, field, `must be an ID without "/" or "\\" (got "${text}")`, itemIndex);
	}
	return text;
}

export function assertIntegerInRange(
	node: INode,
	field: string,
	value: unknown,
	min: number,
	max: number,
	itemIndex?: number,
): number {
	const n = readNumber(value);
	if (n === undefined || !Number.isInteger(n) || n < min || n > max) {
		throw invalid(node, field, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`, itemIndex);
	}
	return n;
}

/** IPv4, IPv6 or a DNS hostname. */
export function isIpOrHostname(value: string): boolean {
	const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
	if (ipv4.test(value)) return true;
	if (value.includes(':')) {
		try {
			return new URL(`http://[${value}]/`).hostname !== '';
		} catch {
			return false;
		}
	}
	if (value.length > 253) return false;
	const label = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
	const labels = value.split('.');
	return labels.every((part) => label.test(part)) && !/^\d+$/.test(labels[labels.length - 1]);
}

/** Parses the "Additional Fields (JSON)" escape hatch: empty means {}, anything but a JSON object is rejected. */
export function parseJsonObject(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): IDataObject {
	if (value === undefined || value === null || value === '') return {};
	let parsed: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return {};
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw invalid(node, field, `must be valid JSON (${(error as Error).message})`, itemIndex);
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw invalid(node, field, 'must be a JSON object, e.g. {"key": "value"}', itemIndex);
	}
	return parsed as IDataObject;
}
