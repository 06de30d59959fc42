import type { INode } from 'n8n-workflow';

import { readNumber } from '../../../shared/core/numbers';
import { assertIntegerInRange, assertNonEmpty, invalid } from '../../../shared/core/validation';

/*
 * The rules of RAG collections and their uploads, checked before anything is sent: the rag_ form of a
 * collection ID, the chunk size, the accepted file types and the storage allowance.
 */

export const ACCEPTED_UPLOAD_EXTENSIONS = ['.pdf', '.txt', '.doc', '.docx', '.csv', '.xls', '.xlsx'];
export const STORAGE_ALLOWANCE_BYTES = 200 * 1024 * 1024;
export const CHUNK_SIZE_MIN = 500;
export const CHUNK_SIZE_MAX = 10_000;
export const CHUNK_SIZE_DEFAULT = 5_000;

export function assertChunkSize(node: INode, value: unknown, itemIndex?: number): number {
	return assertIntegerInRange(node, 'Chunk Size', value, CHUNK_SIZE_MIN, CHUNK_SIZE_MAX, itemIndex);
}

export function fileExtension(fileName: string): string {
	const dot = fileName.lastIndexOf('.');
	return dot < 0 ? '' : fileName.slice(dot).toLowerCase();
}

export function assertAcceptedFileType(
	node: INode,
	field: string,
	fileName: string,
	itemIndex?: number,
): void {
	if (!ACCEPTED_UPLOAD_EXTENSIONS.includes(fileExtension(fileName))) {
		throw invalid(
			node,
			field,
			`file type not accepted: "${fileName}". Accepted types: ${ACCEPTED_UPLOAD_EXTENSIONS.join(' ')}`,
			itemIndex,
		);
	}
}

const RAG_ID = /^rag_[A-Za-z0-9]+$/;

export function assertRagId(node: INode, field: string, value: unknown, itemIndex?: number): string {
	const text = assertNonEmpty(node, field, value, itemIndex);
	if (!RAG_ID.test(text)) {
		throw invalid(node, field, `must be a collection ID of the form rag_ followed by letters and digits (got "${text}")`, itemIndex);
	}
	return text;
}

/** A file's Size in Bytes (Estimate Upload): a whole number of bytes, 0 or more, its text accepted. */
export function readSizeBytes(node: INode, raw: unknown, fileName: string, itemIndex?: number): number {
	const sizeBytes = readNumber(raw);
	if (sizeBytes === undefined || !Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
		throw invalid(node, 'Size in Bytes', `must be a whole number of bytes, 0 or more (got ${JSON.stringify(raw)} for "${fileName}")`, itemIndex);
	}
	return sizeBytes;
}
