import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * Names a user gives (Additional Fields keys, Result Context field names) are looked up as the object's own
 * properties only: a name such as "constructor" or "toString" is an ordinary name, not something every object
 * inherits. Otherwise such a field is refused as a field the node sets itself, or as a name given twice.
 */

const CALLER = '+390212345678';
const RESULT_URL = 'https://n8n.example.com/webhook/3f1c/call-result';
const fx = useSandbox();
useCallerAssistant(fx, CALLER);

const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');

async function place(parameters: IDataObject) {
	return await runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550123', ...parameters },
		credentials: fx.credentials,
	});
}

describe('user-given names that every object inherits are ordinary names', () => {
	test.each(['toString', 'hasOwnProperty', 'valueOf'])('Additional Fields (JSON) with "%s": sent as given', async (name) => {
		const { error } = await place({ additionalFieldsJson: JSON.stringify({ [name]: 'x' }) });
		expect(error).toBeUndefined();
		expect((posts()[0].body as IDataObject)[name]).toBe('x');
	});

	test.each(['constructor', 'toString', 'valueOf'])('a Result Context field named "%s": carried in the Call Result URL', async (name) => {
		const { error } = await place({
			options: { callResultUrl: RESULT_URL, resultContext: { fields: [{ name, value: 'v1' }] } },
		});
		expect(error).toBeUndefined();
		expect((posts()[0].body as IDataObject).callResultUrl).toBe(`${RESULT_URL}?ctx_${name}=v1`);
	});
});
