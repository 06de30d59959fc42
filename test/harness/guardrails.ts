import type { IDataObject } from 'n8n-workflow';

/*
 * The Guardrails collection as a saved workflow holds it (Place Call and Call and Wait: `guardrails`; Dial Due
 * Contacts: `campaignGuardrails`), so that a test names only what it sets.
 */

/** Guardrails > Limit Calls Across Executions: `max` calls per `minutes`, counted per `countPer`. */
export function callLimit(max = 1, more: { minutes?: number | string; countPer?: string; maxRaw?: unknown } = {}): IDataObject {
	const limit: IDataObject = { max: more.maxRaw ?? max, minutes: more.minutes ?? 60 };
	if (more.countPer) limit.countPer = more.countPer;
	return { guardrails: { callLimit: { limit } } };
}

/** Guardrails with the given entries (`doNotCallList`, `callsPerNumber`, `spendingLimit`, ...), on Place Call or a campaign. */
export function guardrails(entries: IDataObject, campaign = false): IDataObject {
	return { [campaign ? 'campaignGuardrails' : 'guardrails']: entries };
}

/** Guardrails > Max Calls per Number. */
export const callsPerNumber = (max: number, hours = 24): IDataObject => ({ callsPerNumber: { limit: { max, hours } } });

/** Guardrails > Spending Limit. */
export const spendingLimit = (amount: number, perCall: number, countPer?: string): IDataObject => ({
	spendingLimit: { limit: { amount, perCall, ...(countPer ? { countPer } : {}) } },
});
