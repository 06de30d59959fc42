/**
 * Shared by the hardening suites: the Assistant Platform node loaded the way n8n loads it
 * (DirectoryLoader adds Settings > Request Options with Timeout and Batching to declarative nodes),
 * the Call and Wait node, resource-locator and binary helpers, and a run wrapper that checks every
 * output and error for secrets.
 */
import { DirectoryLoader } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import type { RunOptions, RunResult } from '../harness/engine';
import { registerNodeType, runNode } from '../harness/engine';
import type { SandboxFixture } from '../harness/sandbox';
import { assistantKeysOf } from '../harness/sandbox';

export const AP_TYPE = 'test.hardening.assistantPlatform';
export const WAIT_TYPE = 'test.hardening.assistantPlatformCallAndWait';

const loaded = new AssistantPlatform();
DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
registerNodeType(AP_TYPE, loaded);
registerNodeType(WAIT_TYPE, new AssistantPlatformCallAndWait());

/** The loaded Assistant Platform node (for its listSearch / loadOptions methods). */
export const apNode = loaded;

/**
 * Every operation of the Assistant Platform node (resource.operation) and the Call and Wait node:
 * the tables of the bad-input matrix and of the hostile-platform suite each cover all of them.
 */
export const OPERATIONS = [
	'assistant.create',
	'assistant.delete',
	'assistant.getAll',
	'assistant.updatePrompt',
	'runtime.setProvider',
	'runtime.updateTools',
	'runtime.attachRag',
	'runtime.detachRag',
	'runtime.configureConversationWebhook',
	'runtime.configureDataExtraction',
	'runtime.clearDataExtraction',
	'runtime.configurePostCallMcp',
	'catalog.getProviders',
	'catalog.getTools',
	'catalog.getAssistantTools',
	'ragCollection.create',
	'ragCollection.delete',
	'ragCollection.estimateUpload',
	'ragCollection.getAll',
	'ragCollection.getManyDocuments',
	'ragCollection.getUploadProgress',
	'ragCollection.uploadDocuments',
	'outboundCall.placeCall',
	'callStatus.get',
	'campaign.dial',
	'campaign.contacts',
	'campaign.summary',
	'campaign.pause',
	'campaign.prepare',
	'campaign.recordResult',
	'campaign.resume',
	'campaign.stop',
	'doNotCallList.add',
	'doNotCallList.check',
	'customApiRequest.request',
	'callAndWait',
];

export const byId = (value: unknown) => ({ __rl: true, mode: 'id', value });

/** One binary field per entry; `bytes` overrides the size metadata n8n keeps. */
export function itemWithFiles(
	files: Record<string, { fileName: string; content?: string; bytes?: number; mimeType?: string }>,
	json: IDataObject = {},
): INodeExecutionData {
	const binary: NonNullable<INodeExecutionData['binary']> = {};
	for (const [property, file] of Object.entries(files)) {
		binary[property] = {
			data: Buffer.from(file.content ?? `content of ${file.fileName}`, 'utf8').toString('base64'),
			mimeType: file.mimeType ?? 'application/octet-stream',
			fileName: file.fileName,
			...(file.bytes !== undefined ? { bytes: file.bytes } : {}),
		};
	}
	return { json, binary };
}

/** Every key the sandbox knows plus the extra ones given. */
export function secretsOf(fx: SandboxFixture, extra: string[] = []): string[] {
	return [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox), ...extra].filter(
		(key) => typeof key === 'string' && key.length >= 8,
	);
}

export function expectNoSecretsIn(fx: SandboxFixture, value: unknown, extra: string[] = []): void {
	const text = JSON.stringify(value) ?? '';
	for (const key of secretsOf(fx, extra)) expect(text).not.toContain(key);
}

export type Target = 'ap' | 'wait';

/** Runs the Assistant Platform node (or the Call and Wait node) and checks the result for secrets. */
export async function run(
	fx: SandboxFixture,
	target: Target,
	parameters: IDataObject,
	options: Partial<Omit<RunOptions, 'parameters' | 'nodeType'>> = {},
): Promise<RunResult> {
	const result = await runNode({
		nodeType: target === 'wait' ? WAIT_TYPE : AP_TYPE,
		parameters,
		credentials: fx.credentials,
		...options,
	});
	expectNoSecretsIn(fx, result.items);
	if (result.error) {
		expectNoSecretsIn(fx, { message: result.error.message, description: result.error.description });
	}
	return result;
}
