/*
 * The outcomes the platform reports: Asterisk's DIALSTATUS values (the spec shows only ANSWER). The
 * trigger's Dial Status filter and the Retry Policy list them; a status not listed is accepted as text.
 */

export const DIAL_STATUSES = [
	'ANSWER',
	'BUSY',
	'CANCEL',
	'CHANUNAVAIL',
	'CONGESTION',
	'DONTCALL',
	'FAILED',
	'INVALIDARGS',
	'NOANSWER',
	'TORTURE',
] as const;

/** What each status means, for option descriptions. */
export const DIAL_STATUS_MEANING: Record<(typeof DIAL_STATUSES)[number], string> = {
	ANSWER: 'The call was answered',
	BUSY: 'The line was busy',
	CANCEL: 'The call was cancelled before it was answered',
	CHANUNAVAIL: 'The number could not be reached (unavailable, switched off, out of coverage)',
	CONGESTION: 'The network was congested',
	DONTCALL: "The person's privacy manager declined the call (do not call)",
	FAILED: 'The call failed',
	INVALIDARGS: 'The call could not be dialled (invalid dial arguments)',
	NOANSWER: 'Nobody answered',
	TORTURE: "The person's privacy manager sent the call to a torture menu",
};

/** A dial status as text compares: trimmed, upper case. */
export function normalizeDialStatus(status: unknown): string {
	return typeof status === 'string' ? status.trim().toUpperCase() : '';
}

/** A status typed by a user (normalised): letters, digits, "_" and "-", at most 40. */
export function isTypedStatus(status: string): boolean {
	return /^[A-Z0-9_-]{1,40}$/.test(status);
}
