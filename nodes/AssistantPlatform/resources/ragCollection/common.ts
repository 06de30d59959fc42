import type {
	IBinaryData,
	IDisplayOptions,
	INode,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { ItemScope } from '../../helpers/items';
import { showOperations } from '../../helpers/module';
import { splitList } from '../../../shared/core/text';
import { invalid, optionField } from '../../../shared/core/validation';

import {
	assertAcceptedFileType,
	assertRagId,
	CHUNK_SIZE_DEFAULT,
	CHUNK_SIZE_MAX,
	CHUNK_SIZE_MIN,
	STORAGE_ALLOWANCE_BYTES,
} from './rules';

export const RESOURCE = 'ragCollection';

/** A `displayOptions.show` condition. */
export type Show = NonNullable<IDisplayOptions['show']>;

export const showFor = showOperations(RESOURCE);

/** Reads the RAG Collection locator and checks the rag_ form (empty and malformed values are rejected). */
export function readRagId(
	node: INode,
	value: unknown,
	itemIndex: number,
	field = 'RAG Collection',
): string {
	return assertRagId(node, field, value, itemIndex);
}

/** `template` with `{ragId}` from the RAG Collection locator of one item: empty values and values not of the rag_ form are refused before anything is sent. */
export function ragPathOf(scope: ItemScope, template: string): string {
	const value = scope.getNodeParameter('ragId', '', { extractValue: true });
	const ragId = readRagId(scope.getNode(), value, scope.getItemIndex());
	return template.replace('{ragId}', encodeURIComponent(ragId));
}

export function chunkSizeProperty(show: Show): INodeProperties {
	return {
		displayName: 'Chunk Size',
		name: 'chunkSize',
		type: 'number',
		typeOptions: { minValue: CHUNK_SIZE_MIN, maxValue: CHUNK_SIZE_MAX },
		default: CHUNK_SIZE_DEFAULT,
		description: `Characters per chunk the documents are split into for retrieval (${CHUNK_SIZE_MIN} to ${CHUNK_SIZE_MAX}, default ${CHUNK_SIZE_DEFAULT})`,
		displayOptions: { show },
	};
}

/** "Binary Fields" and "Input Binary Fields": which binary properties of the input item are the files. */
export function binarySelectionProperties(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Binary Fields',
			name: 'binarySelection',
			type: 'options',
			options: [
				{
					name: 'Named Fields',
					value: 'named',
					description: 'The binary fields listed in Input Binary Fields',
				},
				{
					name: 'All Binary Fields of the Item',
					value: 'all',
					description: 'Every binary field the input item carries, one file each',
				},
			],
			default: 'named',
			description: 'Which binary fields of the input item are the documents',
			displayOptions: { show },
		},
		{
			displayName: 'Input Binary Fields',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			placeholder: 'e.g. data, attachment_0',
			hint: 'Names of the binary fields holding the files, separated by commas',
			description:
				'Names of the binary fields of the input item that hold the documents, separated by commas (one file per field)',
			displayOptions: { show: { ...show, binarySelection: ['named'] } },
		},
	];
}

/** One document taken from the input item's binary data. */
export interface SelectedFile {
	property: string;
	fileName: string;
	mimeType: string;
	sizeBytes: number;
	binary: IBinaryData;
}

/** The binary helpers both execution contexts offer, reduced to what file selection needs. */
export interface BinaryAccess {
	item: INodeExecutionData;
	assertBinaryData(property: string): IBinaryData;
	getBuffer(property: string): Promise<Buffer>;
}

function parsePropertyNames(node: INode, value: unknown, itemIndex: number): string[] {
	const names = splitList(String(value ?? ''));
	if (names.length === 0) {
		throw invalid(
			node,
			'Input Binary Fields',
			'must name at least one binary field, e.g. "data" (several separated by commas)',
			itemIndex,
		);
	}
	const seen = new Set<string>();
	for (const name of names) {
		if (seen.has(name)) {
			throw invalid(node, 'Input Binary Fields', `names the field "${name}" twice`, itemIndex);
		}
		seen.add(name);
	}
	return names;
}

/**
 * Size of one binary without reading it when n8n already knows it: the `bytes` metadata, else the
 * decoded length of in-memory base64 data, else the length of the stored buffer.
 */
async function binarySize(access: BinaryAccess, property: string, binary: IBinaryData): Promise<number> {
	if (typeof binary.bytes === 'number' && Number.isFinite(binary.bytes) && binary.bytes >= 0) {
		return binary.bytes;
	}
	if (!binary.id && typeof binary.data === 'string') {
		return Buffer.byteLength(binary.data, 'base64');
	}
	return (await access.getBuffer(property)).length;
}

/**
 * The files of one item, checked before anything is sent: every named binary field exists, every
 * file name has an accepted extension, and together they fit the 200 MB allowance.
 */
export async function selectFiles(
	node: INode,
	access: BinaryAccess,
	selection: unknown,
	propertyNames: unknown,
	itemIndex: number,
): Promise<SelectedFile[]> {
	let properties: string[];
	if (optionField(node, 'Binary Fields', selection, ['named', 'all'], itemIndex) === 'all') {
		properties = Object.keys(access.item.binary ?? {});
		if (properties.length === 0) {
			throw invalid(
				node,
				'Binary Fields',
				'the input item has no binary data; add the documents as binary data first (e.g. with a Read/Write Files or HTTP Request node)',
				itemIndex,
			);
		}
	} else {
		properties = parsePropertyNames(node, propertyNames, itemIndex);
	}

	const files: SelectedFile[] = [];
	for (const property of properties) {
		let binary: IBinaryData;
		try {
			binary = access.assertBinaryData(property);
		} catch {
			const available = Object.keys(access.item.binary ?? {});
			throw invalid(
				node,
				'Input Binary Fields',
				`the input item has no binary field "${property}" (${available.length > 0 ? `it has: ${available.join(', ')}` : 'it has no binary data'})`,
				itemIndex,
			);
		}
		const fileName = String(binary.fileName ?? '').trim();
		if (fileName === '') {
			throw invalid(
				node,
				'Input Binary Fields',
				`the binary field "${property}" has no file name; the platform needs one with an accepted extension`,
				itemIndex,
			);
		}
		assertAcceptedFileType(node, 'Input Binary Fields', fileName, itemIndex);
		files.push({
			property,
			fileName,
			mimeType: binary.mimeType || 'application/octet-stream',
			sizeBytes: await binarySize(access, property, binary),
			binary,
		});
	}
	assertWithinAllowance(
		node,
		'Input Binary Fields',
		files.map((f) => f.sizeBytes),
		itemIndex,
	);
	return files;
}

/** A single upload (or estimate) larger than the whole 200 MB allowance is rejected before sending. */
export function assertWithinAllowance(
	node: INode,
	field: string,
	sizes: number[],
	itemIndex: number,
): number {
	const total = sizes.reduce((sum, size) => sum + size, 0);
	if (total > STORAGE_ALLOWANCE_BYTES) {
		throw invalid(
			node,
			field,
			`the files add up to ${total} bytes, more than the 200 MB document storage allowance (${STORAGE_ALLOWANCE_BYTES} bytes)`,
			itemIndex,
		);
	}
	return total;
}

/** A value of an extra multipart text field: strings as they are, anything else as JSON text. */
export function stringifyFormValue(value: unknown): string {
	if (typeof value === 'string') return value;
	return JSON.stringify(value) ?? '';
}
