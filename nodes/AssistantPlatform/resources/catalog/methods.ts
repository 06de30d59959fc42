import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { textField } from '../../../shared/core/validation';

import { assertProviderKind, readProviders, readToolCatalog } from './catalogReader';

function matches(needle: string, ...values: Array<string | undefined>): boolean {
	if (!needle) return true;
	return values.some((value) => (value ?? '').toLowerCase().includes(needle));
}

function currentText(ctx: ILoadOptionsFunctions, name: string, label: string): string {
	return textField(ctx.getNode(), label, ctx.getCurrentNodeParameter(name, { extractValue: true }));
}

/** Provider picker (Runtime → Set Provider): the live catalog of the chosen Kind, filtered locally. */
export async function searchProviders(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const kind = assertProviderKind(this, this.getCurrentNodeParameter('providerKind'));
	const providers = await readProviders(this, kind);
	const needle = (filter ?? '').toLowerCase();
	const results: INodeListSearchItems[] = providers
		.filter((p) => matches(needle, p.providerId, p.name))
		.map((p) => ({
			name: p.name && p.name !== p.providerId ? `${p.name} (${p.providerId})` : p.providerId,
			value: p.providerId,
		}));
	return { results };
}

/**
 * Model picker: the models the chosen provider lists in the catalog. Empty until a provider is chosen, and for a
 * provider the catalog does not have; an error when its entry has no models list.
 */
export async function searchProviderModels(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const kind = assertProviderKind(this, this.getCurrentNodeParameter('providerKind'));
	const providerId = currentText(this, 'providerId', 'Provider');
	if (providerId === '') return { results: [] };
	const providers = await readProviders(this, kind);
	const provider = providers.find((p) => p.providerId === providerId);
	if (!provider) return { results: [] };
	// The fields of a provider are not shown by the spec: without a models list, the model is typed.
	if (!Array.isArray(provider.models)) {
		throw new NodeOperationError(
			this.getNode(),
			`The provider catalog lists no models for "${providerId}": type the model By Name, or leave Model empty for the provider's default`,
			{ description: 'The spec does not show the fields of a provider; this list reads its "models".' },
		);
	}
	const needle = (filter ?? '').toLowerCase();
	const models = provider.models.filter((m) => typeof m === 'string' && matches(needle, m));
	return { results: models.map((model) => ({ name: model, value: model })) };
}

/**
 * Tool dropdown (Runtime → Add/Remove Tools): every tool of the catalog, all pages. A tool name
 * offered by several instances appears once; its description lists the instances.
 */
export async function getCatalogTools(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const tools = await readToolCatalog(this);
	const byName = new Map<string, { kinds: Set<string>; instances: string[]; description?: string }>();
	for (const tool of tools) {
		const entry = byName.get(tool.toolName) ?? { kinds: new Set<string>(), instances: [] };
		if (tool.kind) entry.kinds.add(tool.kind);
		if (typeof tool.instanceName === 'string' && tool.instanceName !== '') {
			entry.instances.push(tool.instanceName);
		}
		entry.description ??= typeof tool.description === 'string' ? tool.description : undefined;
		byName.set(tool.toolName, entry);
	}
	return [...byName.entries()]
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([toolName, entry]) => {
			const parts = [[...entry.kinds].join('/')];
			if (entry.instances.length > 0) parts.push(`instance ${entry.instances.join(', ')}`);
			if (entry.description) parts.push(entry.description);
			return { name: toolName, value: toolName, description: parts.filter(Boolean).join(' · ') };
		});
}
