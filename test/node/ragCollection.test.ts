import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RunOptions, RunResult } from '../harness/engine';
import { expectNoSecrets, useSandbox } from '../harness/sandbox';
import { runNode } from '../harness/engine';

const fx = useSandbox();

const ALLOWANCE = 209_715_200;
const byId = (value: string) => ({ __rl: true, mode: 'id', value });


interface FileSpec {
	fileName: string;
	mimeType?: string;
	content?: string;
	/** Overrides the `bytes` metadata n8n keeps for binary data. */
	bytes?: number;
}

function binaryOf(files: Record<string, FileSpec>): INodeExecutionData['binary'] {
	const binary: NonNullable<INodeExecutionData['binary']> = {};
	for (const [property, file] of Object.entries(files)) {
		const content = Buffer.from(file.content ?? `content of ${file.fileName}`, 'utf8');
		binary[property] = {
			data: content.toString('base64'),
			mimeType: file.mimeType ?? 'application/octet-stream',
			fileName: file.fileName,
			...(file.bytes !== undefined ? { bytes: file.bytes } : {}),
		};
	}
	return binary;
}

function itemWith(files: Record<string, FileSpec>, json: IDataObject = {}): INodeExecutionData {
	return { json, binary: binaryOf(files) };
}

/** A fresh, empty collection created directly in the sandbox state through the API of the node. */
async function newCollection(name = 'Test collection'): Promise<string> {
	const { items, error } = await runNode({
		parameters: { resource: 'ragCollection', operation: 'create', name },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	return String(items[0].json.ragId);
}

function collectionNamed(name: string): string {
	const found = fx.sandbox.state.collections.list.find((c) => c.name === name);
	if (!found) throw new Error(`no collection ${name}`);
	return found.ragId;
}

/**
 * Runs the node while the sandbox's manual clock moves on (uploads progress on that clock), until
 * the run is over. The node itself waits with real sleeps between polls.
 */
async function runAdvancing(options: RunOptions, stepMs = 250): Promise<RunResult> {
	let done = false;
	const run = runNode(options).finally(() => {
		done = true;
	});
	while (!done) {
		await fx.sandbox.clock.advance(stepMs);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return await run;
}

async function upload(ragId: string, files: Record<string, FileSpec>, extra: IDataObject = {}): Promise<IDataObject> {
	const { items, error } = await runNode({
		parameters: {
			resource: 'ragCollection',
			operation: 'uploadDocuments',
			ragId: byId(ragId),
			binarySelection: 'all',
			...extra,
		},
		items: [itemWith(files)],
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	return items[0].json;
}

describe('RAG Collection → Create', () => {
	test('POSTs name and description and outputs the new collection', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'create',
				name: 'Manuals',
				description: 'Product manuals',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry).toMatchObject({ method: 'POST', path: '/api/v1/rag/collections', auth: 'ok', status: 201 });
		expect(entry.headers['content-type']).toContain('application/json');
		expect(entry.body).toEqual({ name: 'Manuals', description: 'Product manuals' });
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ name: 'Manuals', description: 'Product manuals', documentCount: 0, sizeBytes: 0 });
		expect(items[0].json.ragId).toMatch(/^rag_[A-Za-z0-9]+$/);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(fx.sandbox.state.collections.get(String(items[0].json.ragId))?.name).toBe('Manuals');
		expectNoSecrets(fx, items);
	});

	test('leaves an empty description out and merges Additional Fields (JSON), its keys winning', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'create',
				name: 'Plain',
				additionalFieldsJson: '{"description":"from JSON","name":"Overridden"}',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({ name: 'Overridden', description: 'from JSON' });

		fx.sandbox.clearJournal();
		await runNode({
			parameters: { resource: 'ragCollection', operation: 'create', name: 'No description', description: '  ' },
			credentials: fx.credentials,
		});
		expect(fx.sandbox.journal[0].body).toEqual({ name: 'No description' });
	});

	test.each([
		['a blank name', { name: '   ' }, 'Invalid "Name": must not be empty'],
		['a name expression that is empty', { name: '={{ $json.missing }}' }, 'Invalid "Name": must not be empty'],
		['malformed Additional Fields (JSON)', { name: 'A', additionalFieldsJson: '{"name":' }, 'Invalid "Additional Fields (JSON)": must be valid JSON'],
		['Additional Fields (JSON) that is not an object', { name: 'A', additionalFieldsJson: '["x"]' }, 'Invalid "Additional Fields (JSON)": must be a JSON object'],
	])('rejects %s before sending', async (_label, fields, message) => {
		fx.sandbox.clearJournal();
		const { error, items } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'create', ...fields },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(items).toHaveLength(0);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('RAG Collection → Get Many', () => {
	test('Return All walks every page with the same limit', async () => {
		fx.sandbox.seed({ collections: 1_100 });
		const total = fx.sandbox.state.collections.size;
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'getAll', returnAll: true },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(total);
		expect(fx.sandbox.journal).toHaveLength(Math.ceil(total / 500));
		for (const entry of fx.sandbox.journal) {
			expect(entry).toMatchObject({ method: 'GET', path: '/api/v1/rag/collections', auth: 'ok' });
			expect(entry.query.limit).toBe('500');
		}
		expect(fx.sandbox.journal[0].query.cursor).toBeUndefined();
		expect(typeof fx.sandbox.journal[1].query.cursor).toBe('string');
		expect(new Set(items.map((i) => i.json.ragId)).size).toBe(total);
	});

	test('Limit asks for just that many', async () => {
		fx.sandbox.clearJournal();
		const { items } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'getAll', returnAll: false, limit: 1 },
			credentials: fx.credentials,
		});
		expect(items).toHaveLength(1);
		expect(items[0].json.name).toBe('Product FAQ');
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].query).toEqual({ limit: '1' });
	});
});

describe('RAG Collection → Delete', () => {
	test('DELETEs a collection that is not attached', async () => {
		const ragId = await newCollection('To delete');
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId(ragId) },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'DELETE',
			path: `/api/v1/rag/collections/${ragId}`,
			auth: 'ok',
			status: 200,
		});
		expect(items.map((i) => i.json)).toEqual([{ ragId, deleted: true }]);
		expect(fx.sandbox.state.collections.has(ragId)).toBe(false);
	});

	test('RAG_COLLECTION_IN_USE says to detach first; after detaching, the delete succeeds', async () => {
		// The demo data attaches "Product FAQ" to the support assistant.
		const ragId = collectionNamed('Product FAQ');
		const [assistantId] = [...fx.sandbox.state.ragAttachments.entries()].find(([, id]) => id === ragId)!;
		fx.sandbox.clearJournal();
		const first = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId(ragId) },
			credentials: fx.credentials,
		});
		expect(first.error?.message).toBe(
			'RAG_COLLECTION_IN_USE: The RAG collection is attached to an assistant and must be detached first',
		);
		expect(first.error?.description).toContain('Detach it');
		expect(first.error?.httpCode).toBe('409');
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].status).toBe(409);
		expect(fx.sandbox.state.collections.has(ragId)).toBe(true);

		// Detach through the Custom API Request resource.
		const detach = await runNode({
			parameters: {
				resource: 'customApiRequest',
				operation: 'request',
				method: 'PATCH',
				path: `/assistants/${assistantId}/runtime/rag`,
				body: '{"ragId": null}',
			},
			credentials: fx.credentials,
		});
		expect(detach.error).toBeUndefined();
		expect(detach.items[0].json).toEqual({ assistantId, ragId: null });

		fx.sandbox.clearJournal();
		const second = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId(ragId) },
			credentials: fx.credentials,
		});
		expect(second.error).toBeUndefined();
		expect(second.items[0].json).toEqual({ ragId, deleted: true });
		expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.status])).toEqual([
			['DELETE', `/api/v1/rag/collections/${ragId}`, 200],
		]);
		expectNoSecrets(fx, [first.error?.message, first.error?.description, second.items]);
	});

	// Expressions get past n8n's own By ID check (see below) and reach the node's.
	test.each([
		['an empty ID', '={{ $json.nothing }}', 'Invalid "RAG Collection": must not be empty'],
		['a blank ID', '={{ "   " }}', 'Invalid "RAG Collection": must not be empty'],
		['an ID without rag_', '={{ "Q7pXk2LmZ9aB" }}', 'Invalid "RAG Collection": must be a collection ID of the form rag_ followed by letters and digits (got "Q7pXk2LmZ9aB")'],
		['an ID with other characters', '={{ "rag_abc/../x" }}', 'Invalid "RAG Collection": must be a collection ID of the form rag_'],
		['the rag_ prefix alone', '={{ "rag_" }}', 'Invalid "RAG Collection": must be a collection ID of the form rag_'],
	])('rejects %s before sending', async (_label, value, message) => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId(value) },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a literal malformed ID is already refused by n8n (the By ID mode validates rag_), nothing sent', async () => {
		fx.sandbox.clearJournal();
		const { error, items } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId('rag-123') },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain('A collection ID is rag_ followed by letters and digits');
		expect(items).toHaveLength(0);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('RAG Collection → Estimate Upload', () => {
	test('estimates the binary files of the item, as Upload Documents would send them', async () => {
		const ragId = collectionNamed('Price List 2025');
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'estimateUpload',
				ragId: byId(ragId),
				binaryPropertyName: 'data, notes',
				chunkSize: 1000,
			},
			items: [
				itemWith({
					data: { fileName: 'manual.pdf', content: 'x'.repeat(2500) },
					notes: { fileName: 'notes.TXT', content: 'y'.repeat(999) },
					ignored: { fileName: 'other.csv', content: 'z' },
				}),
			],
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'POST', path: '/api/v1/rag/documents/estimate', auth: 'ok', status: 200 });
		expect(fx.sandbox.journal[0].body).toEqual({
			ragId,
			chunkSize: 1000,
			files: [
				{ fileName: 'manual.pdf', sizeBytes: 2500 },
				{ fileName: 'notes.TXT', sizeBytes: 999 },
			],
		});
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ totalBytes: 3499, estimatedChunks: 4, chunkSize: 1000, allowanceBytes: ALLOWANCE, fitsAllowance: true });
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	test('All Binary Fields takes every binary of the item; the default chunk size is 5000; no collection means no ragId', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'estimateUpload', binarySelection: 'all' },
			items: [itemWith({ a: { fileName: 'a.docx', content: 'a'.repeat(12_000) }, b: { fileName: 'b.xlsx', content: 'b' } })],
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({
			chunkSize: 5000,
			files: [
				{ fileName: 'a.docx', sizeBytes: 12_000 },
				{ fileName: 'b.xlsx', sizeBytes: 1 },
			],
		});
		expect(items[0].json.estimatedChunks).toBe(4);
	});

	test('a typed list of names and sizes, with Additional Fields (JSON) merged', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'estimateUpload',
				filesFrom: 'list',
				fileList: {
					files: [
						{ fileName: 'big.pdf', sizeBytes: 150_000_000 },
						{ fileName: 'small.csv', sizeBytes: 10 },
					],
				},
				chunkSize: 10_000,
				additionalFieldsJson: '{"dryRunTag":"n8n"}',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({
			chunkSize: 10_000,
			files: [
				{ fileName: 'big.pdf', sizeBytes: 150_000_000 },
				{ fileName: 'small.csv', sizeBytes: 10 },
			],
			dryRunTag: 'n8n',
		});
		expect(items[0].json).toMatchObject({ totalBytes: 150_000_010, estimatedChunks: 15_001 });
	});

	test.each<[string, IDataObject, INodeExecutionData[] | undefined, string]>([
		['chunk size 499', { chunkSize: 499 }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Chunk Size": must be a whole number from 500 to 10000'],
		['chunk size 10001', { chunkSize: 10_001 }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Chunk Size": must be a whole number from 500 to 10000'],
		['an .exe binary', {}, [itemWith({ data: { fileName: 'setup.exe' } })], 'file type not accepted: "setup.exe"'],
		['a missing binary field', { binaryPropertyName: 'data,attachment' }, [itemWith({ data: { fileName: 'a.pdf' } })], 'the input item has no binary field "attachment"'],
		['binaries over 200 MB (metadata)', {}, [itemWith({ data: { fileName: 'huge.pdf', bytes: ALLOWANCE + 1 } })], `the files add up to ${ALLOWANCE + 1} bytes, more than the 200 MB`],
		['an .exe in the list', { filesFrom: 'list', fileList: { files: [{ fileName: 'tool.exe', sizeBytes: 1 }] } }, undefined, 'Invalid "File Name": file type not accepted: "tool.exe"'],
		['a list over 200 MB', { filesFrom: 'list', fileList: { files: [{ fileName: 'a.pdf', sizeBytes: ALLOWANCE }, { fileName: 'b.pdf', sizeBytes: 1 }] } }, undefined, 'Invalid "Files": the files add up to 209715201 bytes'],
		['an empty list', { filesFrom: 'list', fileList: {} }, undefined, 'Invalid "Files": add at least one file'],
		['a bad collection ID', { ragId: byId('={{ "collection-1" }}') }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "RAG Collection": must be a collection ID of the form rag_'],
		['malformed Additional Fields (JSON)', { additionalFieldsJson: '{oops}' }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Additional Fields (JSON)": must be valid JSON'],
	])('rejects %s before sending', async (_label, fields, items, message) => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'estimateUpload', ...fields },
			items,
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('RAG Collection → Upload Documents', () => {
	test('POSTs multipart/form-data: one "files" part per file and a chunkSize text field', async () => {
		const ragId = await newCollection();
		fx.sandbox.clearJournal();
		const pdf = '%PDF-1.4 '.padEnd(3000, 'p');
		const { items, error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'uploadDocuments',
				ragId: byId(ragId),
				binaryPropertyName: 'data, sheet',
				chunkSize: 2000,
			},
			items: [
				itemWith({
					data: { fileName: 'manual.pdf', mimeType: 'application/pdf', content: pdf },
					sheet: { fileName: 'prices.csv', mimeType: 'text/csv', content: 'a,b\n1,2\n' },
					other: { fileName: 'not-sent.txt', mimeType: 'text/plain' },
				}),
			],
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry).toMatchObject({ method: 'POST', path: `/api/v1/rag/collections/${ragId}/documents`, auth: 'ok', status: 202 });
		expect(String(entry.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
		expect(entry.body).toEqual({
			fields: { chunkSize: '2000' },
			files: [
				{ fieldName: 'files', fileName: 'manual.pdf', contentType: 'application/pdf', size: 3000 },
				{ fieldName: 'files', fileName: 'prices.csv', contentType: 'text/csv', size: 8 },
			],
		});
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json).toMatchObject({ ragId, status: 'queued', chunkSize: 2000 });
		const uploadId = String(items[0].json.uploadId);
		expect(uploadId).toMatch(/^upl_/);
		expect((items[0].json.documents as IDataObject[]).map((d) => [d.fileName, d.sizeBytes])).toEqual([
			['manual.pdf', 3000],
			['prices.csv', 8],
		]);
		// The sandbox holds the documents.
		const collection = fx.sandbox.state.collections.get(ragId)!;
		expect(collection.documents.map((d) => [d.fileName, d.sizeBytes, d.chunkSize, d.contentType, d.uploadId])).toEqual([
			['manual.pdf', 3000, 2000, 'application/pdf', uploadId],
			['prices.csv', 8, 2000, 'text/csv', uploadId],
		]);
		expect(fx.sandbox.state.uploads.get(uploadId)?.status).toBe('queued');
		expectNoSecrets(fx, items);
	});

	test('All Binary Fields uploads every binary of the item; the default chunk size is 5000', async () => {
		const ragId = await newCollection();
		fx.sandbox.clearJournal();
		const json = await upload(ragId, {
			one: { fileName: 'één.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
			two: { fileName: 'b "quoted".xls', mimeType: 'application/vnd.ms-excel' },
		});
		expect(json.status).toBe('queued');
		const body = fx.sandbox.journal[0].body as { fields: IDataObject; files: IDataObject[] };
		expect(body.fields).toEqual({ chunkSize: '5000' });
		expect(body.files.map((f) => [f.fieldName, f.fileName, f.contentType])).toEqual([
			['files', 'één.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
			['files', 'b "quoted".xls', 'application/vnd.ms-excel'],
		]);
	});

	test('Wait for Processing polls until the upload is completed and outputs the final state', async () => {
		const ragId = await newCollection();
		fx.sandbox.clearJournal();
		const { items, error } = await runAdvancing({
			parameters: {
				resource: 'ragCollection',
				operation: 'uploadDocuments',
				ragId: byId(ragId),
				waitForProcessing: true,
				waitOptions: { pollIntervalMs: 100 },
			},
			items: [itemWith({ data: { fileName: 'faq.txt', mimeType: 'text/plain', content: 'q'.repeat(4096) } })],
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ ragId, status: 'completed', progress: 100, error: null, chunkSize: 5000, timedOut: false });
		const uploadId = String(items[0].json.uploadId);
		const journal = fx.sandbox.journal;
		expect(journal[0]).toMatchObject({ method: 'POST', path: `/api/v1/rag/collections/${ragId}/documents` });
		expect(journal.filter((e) => e.method === 'POST')).toHaveLength(1);
		expect(journal.length).toBeGreaterThan(1);
		for (const entry of journal.slice(1)) {
			expect(entry).toMatchObject({ method: 'GET', path: `/api/v1/rag/uploads/${uploadId}`, auth: 'ok', status: 200 });
		}
		expect(fx.sandbox.state.collections.get(ragId)!.documents[0].status).toBe('completed');
	});

	test('the upload is a write: a 503 is reported, never retried', async () => {
		const ragId = await newCollection();
		fx.sandbox.injectFault({ method: 'POST', path: `/api/v1/rag/collections/${ragId}/documents`, kind: 'status', status: 503, times: 1 });
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'uploadDocuments', ragId: byId(ragId) },
			items: [itemWith({ data: { fileName: 'a.pdf' } })],
			credentials: fx.credentials,
		});
		expect(error?.message).toContain('503');
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.state.collections.get(ragId)!.documents).toHaveLength(0);
	});

	test.each<[string, IDataObject, INodeExecutionData[], string]>([
		['chunk size 499', { chunkSize: 499 }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Chunk Size": must be a whole number from 500 to 10000 (got 499)'],
		['chunk size 10001', { chunkSize: 10_001 }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Chunk Size": must be a whole number from 500 to 10000 (got 10001)'],
		['an .exe file', {}, [itemWith({ data: { fileName: 'installer.exe' } })], 'Invalid "Input Binary Fields": file type not accepted: "installer.exe". Accepted types: .pdf .txt .doc .docx .csv .xls .xlsx'],
		['a file without extension', {}, [itemWith({ data: { fileName: 'README' } })], 'file type not accepted: "README"'],
		['a missing binary field', {}, [itemWith({ file: { fileName: 'a.pdf' } })], 'Invalid "Input Binary Fields": the input item has no binary field "data" (it has: file)'],
		['an item without binary data', {}, [{ json: {} }], 'the input item has no binary field "data" (it has no binary data)'],
		['All Binary Fields on an item without binary data', { binarySelection: 'all' }, [{ json: {} }], 'Invalid "Binary Fields": the input item has no binary data'],
		['an empty Input Binary Fields', { binaryPropertyName: ' , ' }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Input Binary Fields": must name at least one binary field'],
		['files over 200 MB (metadata)', { binaryPropertyName: 'a,b' }, [itemWith({ a: { fileName: 'a.pdf', bytes: 200_000_000 }, b: { fileName: 'b.pdf', bytes: ALLOWANCE + 1 - 200_000_000 } })], `the files add up to ${ALLOWANCE + 1} bytes, more than the 200 MB document storage allowance (${ALLOWANCE} bytes)`],
		['a bad collection ID', { ragId: byId('={{ "rag-123" }}') }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "RAG Collection": must be a collection ID of the form rag_'],
		['an empty collection ID', { ragId: byId('={{ $json.ragId }}') }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "RAG Collection": must not be empty'],
		['malformed Additional Fields (JSON)', { additionalFieldsJson: '{"a":1,}' }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Additional Fields (JSON)": must be valid JSON'],
		['a Max Wait of 0', { waitForProcessing: true, waitOptions: { maxWaitSeconds: 0 } }, [itemWith({ data: { fileName: 'a.pdf' } })], 'Invalid "Max Wait (Seconds)"'],
	])('rejects %s before sending', async (_label, fields, items, message) => {
		const ragId = collectionNamed('Price List 2025');
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'uploadDocuments', ragId: byId(ragId), ...fields },
			items,
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a real buffer over 200 MB is rejected before sending, even when its metadata says less', async () => {
		const ragId = collectionNamed('Price List 2025');
		fx.sandbox.clearJournal();
		// bytes metadata understates the size; the node checks the bytes it actually read too.
		const big = Buffer.alloc(ALLOWANCE + 1, 0x61);
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'uploadDocuments', ragId: byId(ragId) },
			items: [{ json: {}, binary: { data: { data: big.toString('base64'), mimeType: 'text/plain', fileName: 'big.txt', bytes: 10 } } }],
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(`the files add up to ${ALLOWANCE + 1} bytes`);
		expect(fx.sandbox.journal).toHaveLength(0);
	}, 120_000);

	test('Continue On Fail: a bad item becomes an error item, the others are uploaded, pairing kept', async () => {
		const ragId = await newCollection();
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'uploadDocuments', ragId: byId(ragId) },
			items: [
				itemWith({ data: { fileName: 'one.pdf' } }),
				itemWith({ data: { fileName: 'two.exe' } }),
				itemWith({ data: { fileName: 'three.txt' } }),
			],
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.status).toBe('queued');
		expect(String(items[1].json.error)).toContain('file type not accepted: "two.exe"');
		expect(items[2].json.status).toBe('queued');
		expect(fx.sandbox.journal).toHaveLength(2);
		expect(fx.sandbox.state.collections.get(ragId)!.documents.map((d) => d.fileName)).toEqual(['one.pdf', 'three.txt']);
	});
});

describe('RAG Collection → Get Upload Progress', () => {
	const progress = (uploadId: string, extra: IDataObject = {}): RunOptions => ({
		parameters: { resource: 'ragCollection', operation: 'getUploadProgress', uploadId, ...extra },
		credentials: fx.credentials,
	});

	test('without waiting: one GET per run, following queued → processing → completed', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf', content: 'd'.repeat(2048) } })).uploadId);
		const seen: IDataObject[] = [];
		for (const advance of [0, 200, 1000, 10]) {
			await fx.sandbox.clock.advance(advance);
			fx.sandbox.clearJournal();
			const { items, error } = await runNode(progress(uploadId));
			expect(error).toBeUndefined();
			expect(fx.sandbox.journal).toHaveLength(1);
			expect(fx.sandbox.journal[0]).toMatchObject({ method: 'GET', path: `/api/v1/rag/uploads/${uploadId}`, auth: 'ok', status: 200 });
			expect(items).toHaveLength(1);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			expect(items[0].json.timedOut).toBeUndefined();
			seen.push(items[0].json);
		}
		expect(seen.map((s) => s.status)).toEqual(['queued', 'processing', 'processing', 'completed']);
		expect(seen[3]).toMatchObject({ uploadId, ragId, progress: 100, error: null });
		expect((seen[3].documents as IDataObject[])[0]).toMatchObject({ fileName: 'doc.pdf', sizeBytes: 2048, status: 'completed' });
	});

	test('Wait for Processing polls until the upload is completed', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf' } })).uploadId);
		fx.sandbox.clearJournal();
		const { items, error } = await runAdvancing(
			progress(uploadId, { waitForProcessing: true, waitOptions: { pollIntervalMs: 100 } }),
			100,
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ uploadId, status: 'completed', progress: 100, timedOut: false });
		expect(fx.sandbox.journal.length).toBeGreaterThanOrEqual(2);
		for (const entry of fx.sandbox.journal) expect(entry).toMatchObject({ method: 'GET', path: `/api/v1/rag/uploads/${uploadId}` });
	});

	test('a failed processing is output as data by default, and stops the node with Error on Failed Processing', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'corrupt.pdf' } })).uploadId);
		const asData = await runAdvancing(progress(uploadId, { waitForProcessing: true, waitOptions: { pollIntervalMs: 100 } }));
		expect(asData.error).toBeUndefined();
		expect(asData.items[0].json).toMatchObject({ uploadId, status: 'failed', timedOut: false });
		expect(String(asData.items[0].json.error)).toContain('corrupt.pdf');

		const asError = await runNode(progress(uploadId, { waitForProcessing: true, waitOptions: { errorOnFailed: true } }));
		expect(asError.error?.message).toBe(`Processing of upload ${uploadId} failed: Could not extract text from: corrupt.pdf`);
	});

	test('timeout: an error by default, reporting the last state', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf' } })).uploadId);
		fx.sandbox.clearJournal();
		// The sandbox clock does not move: the upload stays queued.
		const { error, items } = await runNode(
			progress(uploadId, { waitForProcessing: true, waitOptions: { maxWaitSeconds: 1, pollIntervalMs: 200 } }),
		);
		expect(items).toHaveLength(0);
		expect(error?.message).toBe(`Upload ${uploadId} was still being processed after 1 s (last status "queued", progress 0%)`);
		expect(error?.description).toContain('Output Last State');
		expect(fx.sandbox.journal.length).toBeGreaterThanOrEqual(2);
		expect(fx.sandbox.journal.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)).toEqual([]);
	});

	test('timeout: Output Last State outputs the last state with timedOut true', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf' } })).uploadId);
		await fx.sandbox.clock.advance(200);
		const { error, items } = await runNode(
			progress(uploadId, { waitForProcessing: true, waitOptions: { maxWaitSeconds: 1, pollIntervalMs: 200, onTimeout: 'output' } }),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ uploadId, status: 'processing', timedOut: true });
	});

	test('reads are retried: a 503 is followed by a successful read', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf' } })).uploadId);
		fx.sandbox.injectFault({ method: 'GET', path: `/api/v1/rag/uploads/${uploadId}`, kind: 'status', status: 503, times: 1 });
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(progress(uploadId));
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('queued');
		expect(fx.sandbox.journal.map((e) => e.status)).toEqual([503, 200]);
	});

	test('an empty Upload ID is rejected before sending; an unknown one is a clear 404', async () => {
		fx.sandbox.clearJournal();
		const empty = await runNode(progress('={{ $json.uploadId }}'));
		expect(empty.error?.message).toContain('Invalid "Upload ID": must not be empty');
		expect(fx.sandbox.journal).toHaveLength(0);

		const unknown = await runNode(progress('upl_doesnotexist0000'));
		expect(unknown.error?.message).toContain('NOT_FOUND');
		expect(unknown.error?.httpCode).toBe('404');
		expect(fx.sandbox.journal).toHaveLength(1);
	});

	test('Continue On Fail keeps one paired output per input', async () => {
		const ragId = await newCollection();
		const uploadId = String((await upload(ragId, { data: { fileName: 'doc.pdf' } })).uploadId);
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'getUploadProgress', uploadId: '={{ $json.id }}' },
			items: [{ json: { id: uploadId } }, { json: { id: '' } }, { json: { id: 'upl_unknown000000000' } }],
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.status).toBe('queued');
		expect(String(items[1].json.error)).toContain('Upload ID');
		expect(String(items[2].json.error)).toContain('NOT_FOUND');
	});
});

describe('RAG Collection → Get Many Documents', () => {
	const documents = (ragId: string, extra: IDataObject): RunOptions => ({
		parameters: { resource: 'ragCollection', operation: 'getManyDocuments', ragId: byId(ragId), ...extra },
		credentials: fx.credentials,
	});

	async function collectionWith(count: number): Promise<string> {
		const ragId = await newCollection();
		const files: Record<string, FileSpec> = {};
		for (let i = 1; i <= count; i++) files[`f${i}`] = { fileName: `doc-${i}.txt` };
		if (count > 0) await upload(ragId, files);
		return ragId;
	}

	test.each([
		['an empty collection: one request, no items', 0],
		['exactly one full page: one request', 5],
	])('%s', async (_title, count) => {
		const ragId = await collectionWith(count);
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(documents(ragId, { returnAll: true, options: { pageSize: 5 } }));
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.fileName)).toEqual(Array.from({ length: count }, (_, i) => `doc-${i + 1}.txt`));
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'GET', path: `/api/v1/rag/collections/${ragId}/documents`, auth: 'ok' });
		expect(fx.sandbox.journal[0].query).toEqual({ limit: '5' });
	});

	test('many pages: the same limit on every page, the cursor as received', async () => {
		const ragId = await collectionWith(5);
		fx.sandbox.clearJournal();
		const { items } = await runNode(documents(ragId, { returnAll: true, options: { pageSize: 2 } }));
		expect(items).toHaveLength(5);
		expect(items[0].json).toMatchObject({ fileName: 'doc-1.txt', status: 'queued', chunkSize: 5000 });
		expect(items.map((i) => i.pairedItem).filter((p) => !p || (p as { item: number }).item !== 0)).toEqual([]);
		const journal = fx.sandbox.journal;
		expect(journal).toHaveLength(3);
		expect(journal.map((e) => e.query.limit)).toEqual(['2', '2', '2']);
		expect(journal[0].query.cursor).toBeUndefined();
		expect(typeof journal[1].query.cursor).toBe('string');
		expect(journal[2].query.cursor).not.toBe(journal[1].query.cursor);
	});

	test('Limit stops once enough documents are read', async () => {
		const ragId = await collectionWith(5);
		fx.sandbox.clearJournal();
		const { items } = await runNode(documents(ragId, { returnAll: false, limit: 3, options: { pageSize: 2 } }));
		expect(items.map((i) => i.json.fileName)).toEqual(['doc-1.txt', 'doc-2.txt', 'doc-3.txt']);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['2', '2']);
	});

	test('a bad collection ID is rejected before sending', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode(documents('={{ "rag_bad-id" }}', { returnAll: true }));
		expect(error?.message).toContain('Invalid "RAG Collection": must be a collection ID of the form rag_');
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});
