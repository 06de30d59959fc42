/**
 * Credentials for an engine run, shared by the test harness (test/harness/engine.ts) and the benchmarks
 * (bench/engine.ts): kept in memory, and applied to a request the way n8n's CredentialsHelper.authenticate
 * does (n8n-core leaves that to its host). A function-form `authenticate` is called with the decrypted
 * credential and the request options and its result is sent; every `={{ }}` value of a generic block is
 * resolved with the workflow's expression engine, so its per-request cost is the real one. Given the node
 * types, which node may use which credential is decided as n8n's CredentialsHelper decides it (n8n-core asks
 * before it hands a node a credential).
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialsHelper,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	INodeType,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';

export class MemoryCredentialsHelper implements ICredentialsHelper {
	/** getDecrypted calls per credential type: each is a load and decrypt from the database in n8n. */
	readonly reads: Record<string, number> = {};

	/**
	 * `nodeTypes`: the run's node types by name, read when asked (a type registered later counts). Without them every
	 * node may use every credential.
	 */
	constructor(
		private readonly store: Record<string, ICredentialDataDecryptedObject>,
		private readonly types: Record<string, ICredentialType>,
		private readonly nodeTypes?: Record<string, INodeType | IVersionedNodeType>,
	) {}

	getParentTypes(): string[] {
		return [];
	}

	/**
	 * n8n's rule (2.x CredentialsHelper.isCredentialUsableByNode): a credential type with `restrictToSupportedNodes`
	 * goes only to its supported nodes, every other type (and an unknown one) to any node. n8n's supported nodes of a
	 * type are the node types whose description, in any version, lists it, and the tool variant n8n derives from each;
	 * a tool variant's description is the node's, so here: the node types whose description lists it.
	 */
	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.types[credentialType]?.restrictToSupportedNodes || !this.nodeTypes) return true;
		const type = this.nodeTypes[nodeType];
		if (!type) return false;
		const versions = 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
		return versions.some((version) => (version.description.credentials ?? []).some((credential) => credential.name === credentialType));
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.types[typeName];
		if (!type?.authenticate) return requestOptions;
		if (typeof type.authenticate === 'function') return await type.authenticate(credentials, requestOptions);
		const resolveValue = (value: string): string =>
			typeof value === 'string' && value.charAt(0) === '='
				? String(
						workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, ''),
					)
				: value;
		const result: IHttpRequestOptions = { ...requestOptions };
		const props = type.authenticate.properties as Record<string, Record<string, string>>;
		for (const part of ['headers', 'qs', 'body'] as const) {
			const values = props[part];
			if (!values) continue;
			const target = { ...((result[part] as IDataObject) ?? {}) };
			for (const [key, value] of Object.entries(values)) target[resolveValue(key)] = resolveValue(value);
			(result as unknown as Record<string, unknown>)[part] = target;
		}
		return result;
	}

	async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, _type: string): Promise<ICredentials> {
		throw new Error('getCredentials is not used by the engine runs');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		this.reads[type] = (this.reads[type] ?? 0) + 1;
		const data = this.store[type];
		if (!data) throw new Error(`No credentials of type ${type} configured for this run`);
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}
}
