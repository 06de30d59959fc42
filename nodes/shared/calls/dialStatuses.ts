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

type DialStatus = (typeof DIAL_STATUSES)[number];

/** What each status means: the option descriptions, and what a model reads after the outcome (dialStatusInWords). */
export const DIAL_STATUS_MEANING: Record<DialStatus, string> = {
	ANSWER: 'The call was answered',
	BUSY: 'The line was busy; nobody answered',
	CANCEL: 'The call was cancelled before it was answered',
	CHANUNAVAIL: 'The number could not be reached (unavailable, switched off, out of coverage)',
	CONGESTION: 'The network was congested and the call could not be connected',
	DONTCALL: "The person's privacy manager declined the call (do not call)",
	FAILED: 'The call could not be connected',
	INVALIDARGS: 'The call could not be dialled (invalid dial arguments)',
	NOANSWER: 'The phone rang but nobody answered',
	TORTURE: "The person's privacy manager sent the call to a torture menu",
};

/** The outcome a status stands for, the first words a model reads. */
const OUTCOME: Record<DialStatus, string> = {
	ANSWER: 'Answered',
	BUSY: 'Busy',
	CANCEL: 'Cancelled',
	CHANUNAVAIL: 'Failed',
	CONGESTION: 'Failed',
	DONTCALL: 'Declined',
	FAILED: 'Failed',
	INVALIDARGS: 'Failed',
	NOANSWER: 'No answer',
	TORTURE: 'Declined',
};

/**
 * A listed status in words a model can act on, "Busy: the line was busy; nobody answered.", with `detail`
 * before the full stop; undefined for a status not listed.
 */
export function dialStatusInWords(status: string, detail = ''): string | undefined {
	if (!Object.hasOwn(OUTCOME, status)) return undefined;
	const meaning = DIAL_STATUS_MEANING[status as DialStatus];
	return `${OUTCOME[status as DialStatus]}: ${meaning[0].toLowerCase()}${meaning.slice(1)}${detail}.`;
}

/** A dial status as text compares: trimmed, upper case. */
export function normalizeDialStatus(status: unknown): string {
	return typeof status === 'string' ? status.trim().toUpperCase() : '';
}

/** A status typed by a user (normalised): letters, digits, "_" and "-", at most 40. */
export function isTypedStatus(status: string): boolean {
	return /^[A-Z0-9_-]{1,40}$/.test(status);
}
