/**
 * Helpers shared by the Runtime and Catalog tests: secrets checks, a real n8n-core LoadOptionsContext
 * for calling listSearch/loadOptions methods directly, and sandbox state shortcuts.
 */
import { LoadOptionsContext } from 'n8n-core';
import type { IDataObject, ILoadOptionsFunctions, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { PlatformSandbox, ToolKind } from '../../sandbox';
import { makeAdditionalData, NODE_TYPE, nodeTypes } from '../harness/engine';
import type { SandboxFixture } from '../harness/sandbox';
import { recordProduced } from '../harness/secretsGuard';

export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

export { expectNoSecrets } from '../harness/sandbox';

/** A real LoadOptionsContext for the node with the given current parameters. */
export function loadOptionsContext(
	fx: SandboxFixture,
	currentNodeParameters: IDataObject,
	credentials = fx.credentials,
): ILoadOptionsFunctions {
	const node: INode = {
		id: 'under-test',
		name: 'Assistant Platform',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: currentNodeParameters as INode['parameters'],
		credentials: {
			assistantPlatformPortalApi: { id: 'portal-id', name: 'Portal (test)' },
		},
	};
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const additionalData = makeAdditionalData(credentials);
	additionalData.currentNodeParameters = currentNodeParameters as INode['parameters'];
	return new LoadOptionsContext(workflow, node, additionalData, 'parameters') as ILoadOptionsFunctions;
}

/** Runs a method and records what it produced (or its error) for the secrets guard. */
export async function recorded<T>(run: () => Promise<T>): Promise<T> {
	try {
		const result = await run();
		recordProduced(result);
		return result;
	} catch (error) {
		recordProduced(error);
		throw error;
	}
}

/** Appends tools to the sandbox tool catalog (after the seeded ones). */
export function addCatalogTools(
	sandbox: PlatformSandbox,
	tools: Array<{ toolName: string; kind: ToolKind; instanceName: string | null; description?: string }>,
): void {
	const catalog = sandbox.state.toolCatalog;
	for (const tool of tools) {
		catalog.add({ seq: catalog.takeSeq(), description: '', ...tool });
	}
}

export function fillerTools(count: number, prefix = 'filler_tool'): Array<{ toolName: string; kind: ToolKind; instanceName: string | null }> {
	return Array.from({ length: count }, (_, i) => ({
		toolName: `${prefix}_${String(i).padStart(5, '0')}`,
		kind: 'custom_tool' as ToolKind,
		instanceName: null,
	}));
}

/** Portal GET straight to the sandbox (to learn what the platform answers, e.g. cursors). */
export async function portalGet(fx: SandboxFixture, path: string): Promise<IDataObject> {
	const response = await fetch(`${fx.sandbox.url}/api/v1${path}`, {
		headers: { Authorization: `Bearer ${fx.sandbox.portalKey}`, Accept: 'application/json' },
	});
	return (await response.json()) as IDataObject;
}
