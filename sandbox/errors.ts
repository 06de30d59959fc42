import type { SandboxAnswers } from './types';

/** Error body shape (docs/assumptions.md, Transport): {"error": {code, message, status, details?}}. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: Record<string, unknown>,
		readonly headers?: Record<string, string>,
	) {
		super(message);
	}

	/**
	 * The error body. The interface document shows no error body, only codes (RAG_COLLECTION_IN_USE): `spec` answers
	 * carry the least that conveys one, `{error: {code, message}}`; `rich` ones add `status` and `details`.
	 */
	toBody(answers: SandboxAnswers = 'rich'): { error: { code: string; message: string; status?: number; details?: Record<string, unknown> } } {
		const error: { code: string; message: string; status?: number; details?: Record<string, unknown> } = { code: this.code, message: this.message };
		if (answers === 'spec') return { error };
		error.status = this.status;
		if (this.details) error.details = this.details;
		return { error };
	}
}

export function invalid(field: string, message: string, extra?: Record<string, unknown>): ApiError {
	return new ApiError(400, 'VALIDATION_ERROR', `${field}: ${message}`, { field, ...extra });
}

export function notFound(what: string, id?: string): ApiError {
	return new ApiError(404, 'NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${id} not found`);
}

export function errorBody(status: number, code: string, message: string, details?: Record<string, unknown>, answers?: SandboxAnswers) {
	return new ApiError(status, code, message, details).toBody(answers);
}

/** Default error code of an injected status fault. */
export function defaultCodeFor(status: number): string {
	switch (status) {
		case 400:
			return 'VALIDATION_ERROR';
		case 401:
			return 'UNAUTHORIZED';
		case 403:
			return 'FORBIDDEN';
		case 404:
			return 'NOT_FOUND';
		case 409:
			return 'CONFLICT';
		case 413:
			return 'PAYLOAD_TOO_LARGE';
		case 429:
			return 'RATE_LIMITED';
		case 500:
			return 'INTERNAL_ERROR';
		case 502:
			return 'BAD_GATEWAY';
		case 503:
			return 'SERVICE_UNAVAILABLE';
		case 504:
			return 'GATEWAY_TIMEOUT';
		default:
			return status >= 500 ? 'INTERNAL_ERROR' : 'FAULT_INJECTED';
	}
}
