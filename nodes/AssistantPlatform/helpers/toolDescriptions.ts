import type { INodeProperties, NodeParameterValueType } from 'n8n-workflow';

/*
 * What the model of an AI agent is told about each operation of the Assistant Platform node attached as a tool,
 * in one place. n8n builds a tool from the node's parameters: its description is the parameter `toolDescription`
 * (else the automatic "<action> in Assistant Platform", which tells a model nothing), and its input schema is made
 * of the `$fromAI()` expressions in the parameters, with their descriptions. The editor inserts `$fromAI()` with an
 * empty description, and n8n 2.41 does not apply `usableAsTool.replacements` when a tool runs, so both live in the
 * node's own properties, shown only when the node runs as a tool (the `@tool` display condition): a
 * `toolDescription` per operation, and for every input the model fills a tool-only twin of its parameter whose
 * default is a described `$fromAI()`. Outside tools nothing changes.
 */

/**
 * An input the model fills: what the model is told (with an example) and its type. Its `$fromAI()` key is the
 * parameter's display name as n8n's editor makes it ("Destination Number" -> Destination_Number), so editing the
 * description in the editor keeps the key.
 */
export interface ModelInput {
	description: string;
	type?: 'string' | 'number' | 'boolean' | 'json';
}

/** One operation as a tool: its description for a model, and the node parameters the model fills. */
export interface ToolSpec {
	description: string;
	inputs?: Record<string, ModelInput>;
}

const ASSISTANT_ID: ModelInput = {
	description:
		'The assistantId of the assistant, as Create an assistant or Get many assistants returned it (e.g. asst_8dKq2Lm4Xz)',
};

const RAG_ID: ModelInput = {
	description:
		'The ragId of the collection: rag_ followed by letters and digits, as Create a RAG collection or Get many RAG collections returned it (e.g. rag_Q7pX2mK9)',
};

/** What every runtime operation tells the model: it changes a live assistant, how to undo it, its input. */
const RUNTIME_NOTE =
	'It changes how a live assistant behaves on its next calls; run it again with the previous values to undo it. Input: Assistant (its assistantId).';

/** resource value -> operation value -> what the model is told. */
export const TOOL_SPECS: Record<string, Record<string, ToolSpec>> = {
	outboundCall: {
		placeCall: {
			description:
				'Places a real phone call now: the assistant of this tool dials the number and talks with whoever answers. Every call rings a real person and is billed; it cannot be undone. Call only a number the user asked you to call, and only once: never place the same call again on your own. Input: Destination_Number in international E.164 form (e.g. +14155550123). The answer holds internal_id: keep it, it is the only way to learn what happened to the call (give it to the call status tool; the outcome is known only after the call ends). An error says whether a call was placed: "no call was placed" means nothing happened; "the call may have been placed" means do not place it again. This tool may be limited to some destinations and to a number of calls per run: a refusal says so, and no call was placed.',
			inputs: {
				dst: {
					description:
						'The number to call, given by the user or found in their data, in international E.164 form: a plus sign, the country code and the number, digits only (e.g. +14155550123)',
				},
			},
		},
	},
	callStatus: {
		get: {
			description:
				'Tells what happened to a call placed with the place call tool: answered, busy, no answer, failed, or still in progress. Read-only and free: it never places a call. Input: Internal_ID, the internal_id the place call tool returned. The answer has message (what happened, in words), dialStatus (the platform code, e.g. ANSWER, BUSY, NOANSWER; null while the call is in progress), billSec (billed seconds) and trafficCost. A call still ringing or talking is reported as still in progress: ask again later, never place the call again to find out.',
			inputs: {
				internalId: {
					description: 'The internal_id the place call tool returned for the call (e.g. 9f1c2e4b7a8d4f0e9c3b5a6d7e8f9012)',
				},
			},
		},
	},
	doNotCallList: {
		add: {
			description:
				'Adds a phone number to the do-not-call list: from then on no call to it is placed by any tool, campaign or workflow that checks the list. Use it when a person asked not to be called again. Free: it places no call, and a number already listed stays as it is. Input: Number in international E.164 form (e.g. +14155550123). The answer confirms the number is listed.',
			inputs: {
				number: { description: 'The number never to call again, in international E.164 form (e.g. +14155550123)' },
			},
		},
		check: {
			description:
				'Tells whether a phone number is on the do-not-call list (the number itself, or a prefix of it): a listed number must not be called. Read-only and free. Input: Number in international E.164 form (e.g. +14155550123).',
			inputs: {
				number: { description: 'The number to look up, in international E.164 form (e.g. +14155550123)' },
			},
		},
	},
	campaign: {
		dial: {
			description:
				'Places the real phone calls that are due in a call campaign (its contacts and their state are in a data table the user chose): as many as lines are free, each contact once per attempt. Every call rings a real person and is billed; it cannot be undone. Use it only when the user asked to run the campaign now. No input. The answer counts what was placed and lists each call with internal_id.',
		},
		contacts: {
			description:
				"Lists the contacts of a call campaign as a results view: each one's state (pending, placed, answered, finished, failed, unknown, doNotCall), attempts, last outcome, cost, when it is called next and why. Read-only and free: it places no call. No input.",
		},
		summary: {
			description:
				'Tells how a call campaign stands: its status (running, paused, stopped) and how many contacts are in flight, answered, finished (out of attempts), failed, unknown (may have been called: never called again automatically), on the do-not-call list (doNotCall) and due, and what the calls cost so far (spent). Read-only and free. No input.',
		},
		pause: {
			description: 'Pauses a call campaign: once it answers, no new call is placed until it is resumed, and calls already in progress end normally and are recorded. Free; undo it with the resume tool. No input.',
		},
		resume: {
			description: 'Resumes a paused call campaign: its due contacts are called again from the next dial run on, which places real, billed calls. Undo it with the pause tool. No input.',
		},
		stop: {
			description: 'Stops a call campaign for good: once it answers, no further call is placed and it cannot be resumed (calls in progress end normally and are recorded). It cannot be undone. No input.',
		},
		prepare: {
			description: "Adds a call campaign's state columns to its contacts table, which is needed once before the first dial run; it is free, changes no contact and places no call. No input.",
		},
		recordResult: {
			description:
				'Records the result of a call of a campaign by its internal_id, checked against the platform\'s call record, and schedules the next attempt when the retry policy says so. Free: it places no call, and a result already recorded is never recorded twice. Input: Internal_ID.',
			inputs: {
				internalId: { description: 'The internal_id of the call whose result to record (e.g. 9f1c2e4b7a8d4f0e9c3b5a6d7e8f9012)' },
			},
		},
	},
	assistant: {
		create: {
			description:
				'Creates a new voice assistant on the platform (an account resource; delete it with the delete tool to undo). Inputs: Name and Description. The answer holds assistantId: keep it to configure the assistant with other tools. The assistant key is never shown to you.',
			inputs: {
				name: { description: 'Name of the new assistant, as the user will see it (e.g. Front desk)' },
				description: {
					description: 'What the assistant is for, in one sentence; may be empty (e.g. Answers calls for the Acme front desk)',
				},
			},
		},
		delete: {
			description:
				'Deletes an assistant for good: its configuration is deleted and its demo and purchased phone numbers are released. It cannot be undone. Only when the user asked for this assistant to be deleted. Input: Assistant (its assistantId). The answer confirms the deletion.',
			inputs: { assistantId: ASSISTANT_ID },
		},
		getAll: {
			description:
				'Lists the assistants of the account: one entry each, with assistantId, name, description and mode. Read-only and free. No input. Use it to find the assistantId other tools need.',
		},
		updatePrompt: {
			description:
				'Replaces the whole prompt of an assistant: the instructions it follows on its next calls. The previous prompt is not kept; to undo, update it again with the old text. Inputs: Assistant (its assistantId) and Prompt (the complete new prompt).',
			inputs: {
				assistantId: ASSISTANT_ID,
				prompt: {
					description:
						'The complete new prompt of the assistant, replacing the current one (e.g. You are the front desk of Acme. Greet the caller and ask how you can help.)',
				},
			},
		},
	},
	runtime: {
		setProvider: {
			description: `Sets the provider (and model) of one kind, fixed in this tool, that an assistant uses for speech synthesis, speech recognition, its language model or audio-to-audio. ${RUNTIME_NOTE} Also Provider (a providerId) and Model, from Get the providers of a kind. The answer is the new configuration.`,
			inputs: {
				assistantId: ASSISTANT_ID,
				providerId: {
					description: 'The providerId of a provider listed by Get the providers of a kind (e.g. openai)',
				},
				model: {
					description: 'A model of that provider from the same list; empty for the provider default (e.g. gpt-4o-mini)',
				},
			},
		},
		updateTools: {
			description: `Adds or removes the tools, fixed in this tool, that an assistant may use during its calls. ${RUNTIME_NOTE} The answer lists the tools bound now.`,
			inputs: { assistantId: ASSISTANT_ID },
		},
		attachRag: {
			description: `Attaches a RAG collection (documents the assistant can look up during calls) to an assistant, replacing the one attached before. ${RUNTIME_NOTE} Also RAG_Collection (its ragId).`,
			inputs: { assistantId: ASSISTANT_ID, ragId: RAG_ID },
		},
		detachRag: {
			description: `Detaches the RAG collection of an assistant (needed before that collection can be deleted). ${RUNTIME_NOTE}`,
			inputs: { assistantId: ASSISTANT_ID },
		},
		configureConversationWebhook: {
			description: `Sets where the platform reports the end of each conversation of an assistant, to the address fixed in this tool, or turns that report off. ${RUNTIME_NOTE}`,
			inputs: { assistantId: ASSISTANT_ID },
		},
		configureDataExtraction: {
			description: `Sets the data an assistant extracts from each conversation, and the address that receives it, both fixed in this tool. ${RUNTIME_NOTE}`,
			inputs: { assistantId: ASSISTANT_ID },
		},
		clearDataExtraction: {
			description: `Removes the data extraction of an assistant: no data is extracted from its next conversations. ${RUNTIME_NOTE}`,
			inputs: { assistantId: ASSISTANT_ID },
		},
		configurePostCallMcp: {
			description: `Sets the tool server (MCP) the platform runs after each call of an assistant, fixed in this tool, or turns it off. ${RUNTIME_NOTE}`,
			inputs: { assistantId: ASSISTANT_ID },
		},
	},
	catalog: {
		getProviders: {
			description:
				'Lists the providers of one kind, fixed in this tool (speech synthesis, speech recognition, language model or audio-to-audio), with their providerId and models. Read-only and free. No input. Use it before setting a provider.',
		},
		getTools: {
			description:
				'Lists the tools assistants may use during their calls: one entry each, with toolName, kind (custom_tool, plugin_tool or custom_mcp_tool) and instanceName. Read-only and free. No input.',
		},
		getAssistantTools: {
			description:
				'Lists the tools an assistant may use during its calls: one entry each, with toolName, subscriptionName and kind. Read-only and free. Input: Assistant (its assistantId).',
			inputs: { assistantId: ASSISTANT_ID },
		},
	},
	ragCollection: {
		create: {
			description:
				'Creates an empty RAG collection (a set of documents assistants can look up during calls). Delete it with the delete tool to undo. Inputs: Name and Description. The answer holds ragId: keep it to attach the collection or list its documents.',
			inputs: {
				name: { description: 'Name of the new collection (e.g. Product manuals)' },
				description: {
					description: 'What the collection holds, in one sentence; may be empty (e.g. Manuals of the 2026 product line)',
				},
			},
		},
		delete: {
			description:
				'Deletes a RAG collection and all its documents for good; it cannot be undone. It fails while the collection is attached to an assistant (detach it first). Only when the user asked for it. Input: RAG_Collection (its ragId).',
			inputs: { ragId: RAG_ID },
		},
		estimateUpload: {
			description:
				'Estimates the chunks and storage an upload of the files of the current workflow item would use, and whether it fits the 200 MB allowance. Read-only and free. No input: the files come from the workflow, not from you.',
		},
		getAll: {
			description:
				'Lists the RAG collections of the account: one entry each, with ragId, name and description. Read-only and free. No input.',
		},
		getManyDocuments: {
			description:
				'Lists the documents of a RAG collection, the files assistants can look up during calls: one entry each, with documentId and its file details. Read-only and free. Input: RAG_Collection (its ragId).',
			inputs: { ragId: RAG_ID },
		},
		getUploadProgress: {
			description:
				'Tells how far the processing of a document upload has got (its state, e.g. processing, completed or failed). Read-only and free. Input: Upload_ID.',
			inputs: {
				uploadId: {
					description: 'The uploadId the upload returned (e.g. upl_3kX9pQ2w)',
				},
			},
		},
		uploadDocuments: {
			description:
				'Uploads the files of the current workflow item to a RAG collection, fixed in this tool; assistants can look them up once processed. Delete the documents or the collection to undo. No input: the files come from the workflow, not from you; if the answer says there is no file, tell the user. The answer holds uploadId, to follow the processing.',
		},
	},
	customApiRequest: {
		request: {
			description:
				'Sends one request to the management API of the voice platform (the method is fixed in this tool). A GET only reads and is free. POST, PUT, PATCH and DELETE change the account: they are sent once, never repeated, and only another request can undo them. Inputs: Path and, for POST, PUT and PATCH, Body. The answer is what the platform returned; keys it returns are never shown to you.',
			inputs: {
				path: {
					description: 'The API path relative to /api/v1, starting with a slash, without a query string (e.g. /knowledge)',
				},
				body: {
					type: 'json',
					description: 'The JSON body of a POST, PUT or PATCH request (e.g. {"name": "Front desk"})',
				},
			},
		},
	},
};

/**
 * n8n's FROM_AI_AUTO_GENERATED_MARKER (n8n-workflow 2.x): with it the editor shows a `$fromAI()` value as "Defined
 * automatically by the model", its description editable, as for one the user asked for. Written out here: an
 * older n8n-workflow does not export it, and in an expression it is only a comment.
 */
const FROM_AI_MARKER = '/*n8n-auto-generated-fromAI-override*/';

/** The `$fromAI()` key of a parameter, as n8n's editor makes it from the display name. */
export function fromAiKey(displayName: string): string {
	return displayName.replace(/[^a-zA-Z0-9-]/g, '_').slice(0, 63);
}

/** A `$fromAI()` expression for an input, its description quoted for n8n's expression and `$fromAI` parsers. */
export function fromAiExpression(key: string, input: ModelInput): string {
	const quoted = input.description.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
	return `={{ ${FROM_AI_MARKER} $fromAI('${key}', '${quoted}', '${input.type ?? 'string'}') }}`;
}

type Show = Record<string, NodeParameterValueType[]>;

/** The operations a property is shown for, when it is shown for exactly one resource. */
function scopeOf(property: INodeProperties): { resource?: string; operations: string[] } {
	const show = (property.displayOptions?.show ?? {}) as Show;
	const resources = show.resource ?? [];
	return {
		resource: resources.length === 1 ? String(resources[0]) : undefined,
		operations: (show.operation ?? []).map(String),
	};
}

/** The `toolDescription` of each operation of a resource, shown only on the tool. */
function toolDescriptionProperties(resource: string): INodeProperties[] {
	return Object.entries(TOOL_SPECS[resource] ?? {}).map(([operation, { description }]) => ({
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 6 },
		default: description,
		description:
			'What the AI agent is told about this tool: what it does, what it costs, whether it can be undone, what to give and what comes back. Add your own rules here.',
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
	}));
}

/** The same property hidden on the tool, where its twin (a described `$fromAI()` default) takes its place. */
function hiddenOnTool(property: INodeProperties): INodeProperties {
	const hidden = { ...property };
	hidden.displayOptions = { ...property.displayOptions, hide: { ...(property.displayOptions?.hide ?? {}), '@tool': [true] } };
	return hidden;
}

function toolTwin(property: INodeProperties, input: ModelInput): INodeProperties {
	const expression = fromAiExpression(fromAiKey(property.displayName), input);
	const show = { ...(property.displayOptions?.show ?? {}), '@tool': [true] };
	return {
		...property,
		default: property.type === 'resourceLocator' ? { mode: 'id', value: expression } : expression,
		displayOptions: { ...property.displayOptions, show },
	};
}

/**
 * The node's properties with what the tool needs: after each resource's operation selector the tool
 * descriptions of its operations, and for each input the model fills the parameter hidden on the tool and its
 * tool-only twin right after it. Properties outside TOOL_SPECS are returned as they are.
 */
export function withToolProperties(properties: INodeProperties[]): INodeProperties[] {
	const result: INodeProperties[] = [];
	for (const property of properties) {
		const { resource, operations } = scopeOf(property);
		if (resource && property.name === 'operation') {
			result.push(property, ...toolDescriptionProperties(resource));
			continue;
		}
		const input = resource && operations.length === 1 ? TOOL_SPECS[resource]?.[operations[0]]?.inputs?.[property.name] : undefined;
		if (!input) {
			result.push(property);
			continue;
		}
		result.push(hiddenOnTool(property), toolTwin(property, input));
	}
	return result;
}
