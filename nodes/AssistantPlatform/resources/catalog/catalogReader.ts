import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { readWholeList } from '../../helpers/lists';
import type { RequestContext } from '../../../shared/transport/endpoint';
import { portalRequest } from '../../../shared/transport/request';
import { invalid } from '../../../shared/core/validation';

/** Provider kinds: the four runtime slots of an assistant (also the catalog path segment). */
export const PROVIDER_KINDS = ['tts', 'asr', 'llm', 'audio-to-audio'];

export const providerKindOptions: INodePropertyOptions[] = [
	{ name: 'Audio-to-Audio', value: 'audio-to-audio', description: 'A combined speech-to-speech provider' },
	{ name: 'ASR (Speech Recognition)', value: 'asr', description: 'Speech-to-text' },
	{ name: 'LLM (Language Model)', value: 'llm', description: 'The language model that drives the conversation' },
	{ name: 'TTS (Speech Synthesis)', value: 'tts', description: 'Text-to-speech' },
];

/** A provider of the catalog (docs/assumptions.md row 5). */
export interface CatalogProvider {
	providerId: string;
	name?: string;
	kind?: string;
	models?: string[];
	voices?: string[];
	languages?: string[];
}

/** A tool of the catalog (docs/assumptions.md row 7). */
export interface CatalogTool {
	toolName: string;
	kind?: string;
	instanceName?: string | null;
	description?: string;
}

/** A tool bound to an assistant (docs/assumptions.md row 8). */
export interface BoundTool {
	toolName: string;
	subscriptionName?: string | null;
	kind?: string;
}

export function assertProviderKind(ctx: RequestContext, value: unknown, itemIndex?: number): string {
	const kind = typeof value === 'string' ? value.trim() : '';
	if (!PROVIDER_KINDS.includes(kind)) {
		throw invalid(
			ctx.getNode(),
			'Kind',
			`must be one of ${PROVIDER_KINDS.join(', ')} (got ${JSON.stringify(value ?? null)})`,
			itemIndex,
		);
	}
	return kind;
}

/** GET /catalog/providers/{kind}: a small, unpaginated bare array (read with retries). */
export async function readProviders(
	ctx: RequestContext,
	kind: string,
	itemIndex?: number,
): Promise<CatalogProvider[]> {
	const { body } = await portalRequest(ctx, 'GET', `/catalog/providers/${encodeURIComponent(kind)}`, {
		retry: true,
		itemIndex,
	});
	const list = Array.isArray(body)
		? body
		: Array.isArray((body as IDataObject | undefined)?.data)
			? ((body as IDataObject).data as unknown[])
			: [];
	return list.filter(
		(entry): entry is CatalogProvider =>
			!!entry && typeof entry === 'object' && typeof (entry as IDataObject).providerId === 'string',
	);
}

/** Every tool of the catalog (GET /catalog/tools, all pages). */
export async function readToolCatalog(ctx: RequestContext, itemIndex?: number): Promise<CatalogTool[]> {
	const entries = await readWholeList(ctx, '/catalog/tools', itemIndex);
	return entries.filter((entry): entry is IDataObject & CatalogTool => typeof entry.toolName === 'string');
}

/** Every tool bound to an assistant (GET /catalog/assistants/{assistantId}/tools, all pages). */
export async function readAssistantTools(
	ctx: RequestContext,
	assistantId: string,
	itemIndex?: number,
): Promise<BoundTool[]> {
	const entries = await readWholeList(
		ctx,
		`/catalog/assistants/${encodeURIComponent(assistantId)}/tools`,
		itemIndex,
	);
	return entries.filter((entry): entry is IDataObject & BoundTool => typeof entry.toolName === 'string');
}
