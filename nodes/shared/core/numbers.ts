/*
 * Which text is a number: one rule for every number field a node reads. The range, whole numbers or not,
 * and the error are each field's own.
 */

/** Decimal notation: an optional sign, digits with an optional fraction, an optional exponent. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The number a value stands for: a finite number, or text in decimal notation ("10", " 1.5 ", "-2", "+3",
 * "1e3"; spaces around it ignored). Anything else is undefined: hexadecimal, binary or octal text ("0x10"),
 * empty text, text too large to be finite ("1e999"), booleans, null, lists and objects.
 */
export function readNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (!DECIMAL.test(text)) return undefined;
	const n = Number(text);
	return Number.isFinite(n) ? n : undefined;
}
