import { randomString } from 'n8n-workflow';

export interface MultipartFile {
	fieldName: string;
	fileName: string;
	contentType: string;
	content: Buffer;
}

export interface MultipartBody {
	body: Buffer;
	contentType: string;
}

/** Quotes a header parameter value the way browsers do for form data (RFC 7578 §4.2, HTML spec). */
function quoteParameter(value: string): string {
	return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

function headerSafe(value: string): string {
	return value.replace(/[\r\n]/g, ' ');
}

/**
 * Builds a `multipart/form-data` body (RFC 7578) in memory: text fields first, then the files.
 * The boundary is random and checked not to occur in any part.
 */
export function buildMultipart(fields: Array<[string, string]>, files: MultipartFile[]): MultipartBody {
	const contents = [...fields.map(([, value]) => Buffer.from(value, 'utf8')), ...files.map((f) => f.content)];
	let boundary = '';
	do {
		boundary = `----n8nAssistantPlatform${randomString(24)}`;
	} while (contents.some((content) => content.includes(boundary)));

	const parts: Buffer[] = [];
	for (const [name, value] of fields) {
		parts.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="${quoteParameter(name)}"\r\n\r\n`,
				'utf8',
			),
			Buffer.from(value, 'utf8'),
			Buffer.from('\r\n', 'utf8'),
		);
	}
	for (const file of files) {
		parts.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="${quoteParameter(file.fieldName)}"; filename="${quoteParameter(file.fileName)}"\r\nContent-Type: ${headerSafe(file.contentType)}\r\n\r\n`,
				'utf8',
			),
			file.content,
			Buffer.from('\r\n', 'utf8'),
		);
	}
	parts.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
	return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
