// The OpenAPI document (static/openapi.json) as the tests check answers
// against it: checkOp(path, method, r) asserts that r's status is
// documented for the operation, with its media type, and that r's body
// matches the schema the document gives for that status.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { env } from './lib.mjs';

export const doc = JSON.parse(readFileSync(`${env.root}/static/openapi.json`,
    'utf8'));
export const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'api', components: doc.components });

// check(name, value): value must match components.schemas[name].
export function check(name, value) {
	const v = ajv.getSchema(`api#/components/schemas/${name}`);
	assert.ok(v(value), `${name}: ${ajv.errorsText(v.errors)}\n` +
	    JSON.stringify(value));
}

// checkOp(path, method, r): r's body must match what the document says
// the operation answers with r's status.
export function checkOp(path, method, r) {
	const op = doc.paths[path]?.[method];
	assert.ok(op, `${method} ${path} is in the document`);
	let resp = op.responses[String(r.status)];
	assert.ok(resp, `${method} ${path} documents ${r.status}`);
	if (resp.$ref)
		resp = doc.components.responses[resp.$ref.split('/').pop()];
	// a documented media type, and the body it says
	if (resp.content !== undefined) {
		// (a console Client's answer has h(), a req() answer headers)
		const type = ((r.h ? r.h('content-type') :
		    r.headers.get('content-type')) ?? '').split(';')[0].trim();
		assert.ok(type in resp.content, `${method} ${path} ` +
		    `${r.status}: ${type} is documented`);
	}
	const schema = resp.content?.['application/json']?.schema;
	if (schema === undefined)
		return;
	// the document's own references, resolved in the added schema
	const v = ajv.compile(JSON.parse(JSON.stringify(schema)
	    .replaceAll('"#/components/', '"api#/components/')));
	assert.ok(v(r.json), `${method} ${path} ${r.status}: ` +
	    `${ajv.errorsText(v.errors)}\n${r.text}`);
}
