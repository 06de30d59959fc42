import { api, expectError, expectRichError, file, useSandboxAndReceiver, upload } from './helpers';

const ALLOWANCE = 300_000;

const fx = useSandboxAndReceiver({ storageAllowanceBytes: ALLOWANCE, uploadQueueMs: 200, uploadProcessingMs: 1000 });

async function newCollection(name = 'Docs'): Promise<string> {
	const res = await api(fx.sandbox, 'POST', '/rag/collections', { body: { name, description: 'd' } });
	expect(res.status).toBe(201);
	return res.body.ragId;
}

function assistantId(name: string): string {
	const a = [...fx.sandbox.state.assistants].find((x) => x.name === name);
	if (!a) throw new Error(name);
	return a.assistantId;
}

/** Bytes of the seeded documents (faq.pdf, returns-policy.txt, price-list.xlsx). */
const SEEDED_BYTES = 48_213 + 5_120 + 18_432;

describe('collections', () => {
	it('POST /rag/collections: 201 with the documented shape', async () => {
		const res = await api(fx.sandbox, 'POST', '/rag/collections', { body: { name: 'Manuals' } });
		expect(res.status).toBe(201);
		expect(res.body).toEqual({ ragId: expect.stringMatching(/^rag_[A-Za-z0-9]{12}$/), name: 'Manuals', description: '', createdAt: expect.any(String), documentCount: 0, sizeBytes: 0 });
		const got = await api(fx.sandbox, 'GET', `/rag/collections/${res.body.ragId}`);
		expect(got.body).toEqual(res.body);
	});

	it.each([[{}, 'name'], [{ name: '' }, 'name'], [{ name: 'x', description: 1 }, 'description']])('rejects %j', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await api(fx.sandbox, 'POST', '/rag/collections', { body }), 400, 'VALIDATION_ERROR', field);
	});

	it('seeded collections carry their documents', async () => {
		const res = await api(fx.sandbox, 'GET', '/rag/collections');
		expect(res.body.map((c: { name: string; documentCount: number; sizeBytes: number }) => [c.name, c.documentCount, c.sizeBytes])).toEqual([
			['Product FAQ', 2, 53_333],
			['Price List 2025', 1, 18_432],
		]);
		expect(fx.sandbox.state.usedStorageBytes).toBe(SEEDED_BYTES);
	});

	it('delete: 409 RAG_COLLECTION_IN_USE while attached (details.assistantIds), 200 after detach', async () => {
		const ragId = await newCollection();
		const a = assistantId('Survey Caller');
		const b = assistantId('Reception Desk');
		expect((await api(fx.sandbox, 'PATCH', `/assistants/${a}/runtime/rag`, { body: { ragId } })).body).toEqual({ assistantId: a, ragId });
		await api(fx.sandbox, 'PATCH', `/assistants/${b}/runtime/rag`, { body: { ragId } });
		expectError(await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`), 409, 'RAG_COLLECTION_IN_USE');
		fx.sandbox.setAnswers('rich'); // details.assistantIds
		const refused = await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`);
		expectRichError(refused, 409, 'RAG_COLLECTION_IN_USE');
		expect(refused.body.error.details).toEqual({ ragId, assistantIds: [a, b] });
		expect(fx.sandbox.state.collections.has(ragId)).toBe(true);
		expect((await api(fx.sandbox, 'PATCH', `/assistants/${a}/runtime/rag`, { body: { ragId: null } })).body).toEqual({ assistantId: a, ragId: null });
		expect((await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`)).body.error.details.assistantIds).toEqual([b]);
		await api(fx.sandbox, 'PATCH', `/assistants/${b}/runtime/rag`, { body: { ragId: null } });
		const done = await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`);
		expect(done.status).toBe(200);
		expect(done.body).toEqual({ ragId, deleted: true });
		expectRichError(await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`), 404, 'NOT_FOUND');
	});

	it('at most one collection per assistant: attaching another replaces it', async () => {
		const first = await newCollection('First');
		const second = await newCollection('Second');
		const a = assistantId('Survey Caller');
		await api(fx.sandbox, 'PATCH', `/assistants/${a}/runtime/rag`, { body: { ragId: first } });
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a}/runtime/rag`, { body: { ragId: second } });
		expect(res.body).toEqual({ assistantId: a, ragId: second });
		expect(fx.sandbox.state.ragAttachments.get(a)).toBe(second);
		expect((await api(fx.sandbox, 'DELETE', `/rag/collections/${first}`)).status).toBe(200);
		expect((await api(fx.sandbox, 'GET', `/assistants/${a}`)).body.ragId).toBe(second);
	});

	it.each([
		[{}, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 'abc' }, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 'rag_' }, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 'rag_ab-c' }, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 5 }, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 'rag_DoesNotExist1' }, 404, 'NOT_FOUND', 'ragId'],
	])('attach rejects %j with %i %s', async (body, status, code, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = assistantId('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a}/runtime/rag`, { body }), status, code, field);
		expect(fx.sandbox.state.ragAttachments.has(a)).toBe(false);
	});

	it('attach to an unknown assistant: 404', async () => {
		const ragId = await newCollection();
		expectError(await api(fx.sandbox, 'PATCH', '/assistants/asst_nope/runtime/rag', { body: { ragId } }), 404, 'NOT_FOUND');
	});
});

describe('estimate', () => {
	it('computes bytes, chunks and the allowance', async () => {
		const res = await api(fx.sandbox, 'POST', '/rag/documents/estimate', {
			body: { chunkSize: 1000, files: [{ fileName: 'a.pdf', sizeBytes: 2500 }, { fileName: 'b.TXT', sizeBytes: 1000 }, { fileName: 'c.csv', sizeBytes: 0 }] },
		});
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			totalBytes: 3500,
			estimatedChunks: 4,
			chunkSize: 1000,
			usedBytes: SEEDED_BYTES,
			allowanceBytes: ALLOWANCE,
			remainingBytes: ALLOWANCE - SEEDED_BYTES,
			fitsAllowance: true,
		});
		const big = await api(fx.sandbox, 'POST', '/rag/documents/estimate', { body: { files: [{ fileName: 'big.pdf', sizeBytes: ALLOWANCE }] } });
		expect(big.body).toMatchObject({ chunkSize: 5000, estimatedChunks: ALLOWANCE / 5000, fitsAllowance: false });
	});

	it.each([
		[{ files: [] }, 400, 'VALIDATION_ERROR', 'files'],
		[{ chunkSize: 499, files: [{ fileName: 'a.pdf', sizeBytes: 1 }] }, 400, 'VALIDATION_ERROR', 'chunkSize'],
		[{ chunkSize: 10001, files: [{ fileName: 'a.pdf', sizeBytes: 1 }] }, 400, 'VALIDATION_ERROR', 'chunkSize'],
		[{ chunkSize: '1000', files: [{ fileName: 'a.pdf', sizeBytes: 1 }] }, 400, 'VALIDATION_ERROR', 'chunkSize'],
		[{ files: [{ fileName: 'a.pdf', sizeBytes: -1 }] }, 400, 'VALIDATION_ERROR', 'files[0].sizeBytes'],
		[{ files: [{ fileName: '', sizeBytes: 1 }] }, 400, 'VALIDATION_ERROR', 'files[0].fileName'],
		[{ files: [{ fileName: 'a.pdf', sizeBytes: 1 }, { fileName: 'b.exe', sizeBytes: 1 }] }, 400, 'UNSUPPORTED_FILE_TYPE', 'files[1].fileName'],
		[{ ragId: 'x', files: [{ fileName: 'a.pdf', sizeBytes: 1 }] }, 400, 'VALIDATION_ERROR', 'ragId'],
		[{ ragId: 'rag_missing', files: [{ fileName: 'a.pdf', sizeBytes: 1 }] }, 404, 'NOT_FOUND', 'ragId'],
	])('rejects %j with %i %s', async (body, status, code, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await api(fx.sandbox, 'POST', '/rag/documents/estimate', { body }), status, code, field);
	});
});

describe('upload', () => {
	it('accepts every allowed extension, case-insensitive: 202 queued', async () => {
		const ragId = await newCollection();
		const names = ['a.pdf', 'b.txt', 'c.doc', 'd.docx', 'e.csv', 'f.xls', 'g.XLSX', 'h.PDF'];
		const res = await upload(fx.sandbox, ragId, [...names.map((n) => file(n, 10)), { name: 'chunkSize', value: '800' }]);
		expect(res.status).toBe(202);
		expect(res.body).toEqual({
			uploadId: expect.stringMatching(/^upl_[A-Za-z0-9]{16}$/),
			ragId,
			status: 'queued',
			chunkSize: 800,
			documents: names.map((fileName) => ({ documentId: expect.stringMatching(/^doc_[A-Za-z0-9]{16}$/), fileName, sizeBytes: 10, status: 'queued' })),
		});
		const docs = await api(fx.sandbox, 'GET', `/rag/collections/${ragId}/documents`);
		expect(docs.body.map((d: { fileName: string; chunkSize: number; uploadId: string }) => [d.fileName, d.chunkSize, d.uploadId])).toEqual(
			names.map((n) => [n, 800, res.body.uploadId]),
		);
		expect((await api(fx.sandbox, 'GET', `/rag/collections/${ragId}`)).body).toMatchObject({ documentCount: 8, sizeBytes: 80 });
	});

	it('defaults chunkSize to 5000', async () => {
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('a.txt', 5)]);
		expect(res.body.chunkSize).toBe(5000);
	});

	it.each(['.exe', '.png', '.pdf.zip', '', '.md'])('rejects extension "%s" with 400 UNSUPPORTED_FILE_TYPE', async (ext) => {
		fx.sandbox.setAnswers('rich'); // details {field, fileName}
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('ok.pdf', 5), file(`bad${ext}`, 5)]);
		expectRichError(res, 400, 'UNSUPPORTED_FILE_TYPE', 'files');
		expect(res.body.error.details.fileName).toBe(`bad${ext}`);
		expect(fx.sandbox.state.collections.get(ragId)?.documents.length).toBe(0);
	});

	it.each(['499', '10001', 'abc', '1e3', '', '600.5'])('rejects chunkSize "%s"', async (chunk) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const ragId = await newCollection();
		expectRichError(await upload(fx.sandbox, ragId, [file('a.pdf', 5), { name: 'chunkSize', value: chunk }]), 400, 'VALIDATION_ERROR', 'chunkSize');
	});

	it.each(['500', '10000'])('accepts chunkSize %s (bounds)', async (chunk) => {
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('a.pdf', 5), { name: 'chunkSize', value: chunk }]);
		expect(res.status).toBe(202);
		expect(res.body.chunkSize).toBe(Number(chunk));
	});

	it('rejects a body without file parts, a text "files" part, and JSON', async () => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const ragId = await newCollection();
		expectRichError(await upload(fx.sandbox, ragId, [{ name: 'chunkSize', value: '1000' }]), 400, 'VALIDATION_ERROR', 'files');
		expectRichError(await upload(fx.sandbox, ragId, [{ name: 'files', value: 'not a file' }]), 400, 'VALIDATION_ERROR', 'files');
		expectRichError(await api(fx.sandbox, 'POST', `/rag/collections/${ragId}/documents`, { body: { files: [] } }), 400, 'VALIDATION_ERROR', 'body');
	});

	it('404 for an unknown collection', async () => {
		expectError(await upload(fx.sandbox, 'rag_unknown', [file('a.pdf', 5)]), 404, 'NOT_FOUND');
	});

	it('enforces the per-account allowance across collections: 413 STORAGE_ALLOWANCE_EXCEEDED', async () => {
		const one = await newCollection('One');
		const two = await newCollection('Two');
		const room = ALLOWANCE - SEEDED_BYTES;
		expect((await upload(fx.sandbox, one, [file('a.pdf', room - 100)])).status).toBe(202);
		expectError(await upload(fx.sandbox, two, [file('b.pdf', 101)]), 413, 'STORAGE_ALLOWANCE_EXCEEDED');
		fx.sandbox.setAnswers('rich'); // details {usedBytes, requestedBytes, allowanceBytes}
		const refused = await upload(fx.sandbox, two, [file('b.pdf', 101)]);
		expectRichError(refused, 413, 'STORAGE_ALLOWANCE_EXCEEDED');
		expect(refused.body.error.details).toEqual({ usedBytes: ALLOWANCE - 100, requestedBytes: 101, allowanceBytes: ALLOWANCE });
		expect((await upload(fx.sandbox, two, [file('c.pdf', 100)])).status).toBe(202);
		expect(fx.sandbox.state.usedStorageBytes).toBe(ALLOWANCE);
		// Deleting a collection frees its bytes.
		expect((await api(fx.sandbox, 'DELETE', `/rag/collections/${one}`)).status).toBe(200);
		expect(fx.sandbox.state.usedStorageBytes).toBe(ALLOWANCE - (room - 100));
	});

	it('413 for a request body larger than the allowance plus overhead', async () => {
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('huge.pdf', ALLOWANCE + 1024 * 1024 + 10)]);
		expectError(res, 413, 'PAYLOAD_TOO_LARGE');
		expect(fx.sandbox.journal[fx.sandbox.journal.length - 1]).toMatchObject({ status: 413, body: '[body too large]' });
	});

	it('progress moves on the manual clock: queued → processing (rising) → completed', async () => {
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('a.pdf', 10 * 1024), file('b.txt', 10 * 1024)]);
		const id = res.body.uploadId;
		const read = async () => (await api(fx.sandbox, 'GET', `/rag/uploads/${id}`)).body;
		const first = await read();
		expect(first).toEqual({
			uploadId: id,
			ragId,
			status: 'queued',
			progress: 0,
			documents: [
				{ documentId: expect.any(String), fileName: 'a.pdf', sizeBytes: 10240, status: 'queued' },
				{ documentId: expect.any(String), fileName: 'b.txt', sizeBytes: 10240, status: 'queued' },
			],
			error: null,
		});
		await fx.sandbox.clock.advance(199);
		expect((await read()).status).toBe('queued');
		await fx.sandbox.clock.advance(1);
		const started = await read();
		expect([started.status, started.progress]).toEqual(['processing', 1]);
		expect(started.documents.map((d: { status: string }) => d.status)).toEqual(['processing', 'processing']);
		// processing lasts 1000 ms + 1 ms per KB (20 KB) = 1020 ms
		await fx.sandbox.clock.advance(510);
		expect(await read()).toMatchObject({ status: 'processing', progress: 50 });
		await fx.sandbox.clock.advance(509);
		expect(await read()).toMatchObject({ status: 'processing', progress: 99 });
		await fx.sandbox.clock.advance(1);
		const done = await read();
		expect([done.status, done.progress, done.error]).toEqual(['completed', 100, null]);
		expect(done.documents.map((d: { status: string }) => d.status)).toEqual(['completed', 'completed']);
		const docs = await api(fx.sandbox, 'GET', `/rag/collections/${ragId}/documents?limit=1`);
		expect(docs.body.data[0].status).toBe('completed');
		expect(docs.body.meta).toMatchObject({ totalCount: 2, hasMore: true });
	});

	it('a file whose name contains "corrupt" fails; its bytes are released', async () => {
		const ragId = await newCollection();
		const res = await upload(fx.sandbox, ragId, [file('good.pdf', 1000), file('Corrupt-scan.pdf', 2000)]);
		expect(fx.sandbox.state.usedStorageBytes).toBe(SEEDED_BYTES + 3000);
		await fx.sandbox.clock.advance(5000);
		const done = (await api(fx.sandbox, 'GET', `/rag/uploads/${res.body.uploadId}`)).body;
		expect(done.status).toBe('failed');
		expect(done.progress).toBe(100);
		expect(done.error).toBe('Could not extract text from: Corrupt-scan.pdf');
		expect(done.documents.map((d: { status: string }) => d.status)).toEqual(['completed', 'failed']);
		expect(fx.sandbox.state.usedStorageBytes).toBe(SEEDED_BYTES + 1000);
		expect((await api(fx.sandbox, 'GET', `/rag/collections/${ragId}`)).body).toMatchObject({ documentCount: 2, sizeBytes: 1000 });
	});

	it('GET /rag/uploads/{id}: 404 for an unknown upload', async () => {
		expectError(await api(fx.sandbox, 'GET', '/rag/uploads/upl_nope'), 404, 'NOT_FOUND');
	});

	it('documents of an unknown collection: 404', async () => {
		expectError(await api(fx.sandbox, 'GET', '/rag/collections/rag_nope/documents'), 404, 'NOT_FOUND');
	});
});
