// The waiting room's language (CASES C14): Accept-Language picks German
// or English by the exact rules of the table, always 200, with
// Content-Language, <html lang> and Vary: Accept-Language; ?lang= (the
// page's own switch) wins over the header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, req } from './lib.mjs';

const table = [
	['de-DE,de;q=0.9,en;q=0.8', 'de'],
	['en-GB,de;q=0', 'en'],
	['de;q=0,en;q=0', 'en'],
	['fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5', 'de'],
	['*;q=0.5, de;q=0', 'en'],
	['DE', 'de'],
	['de;q=0.000, en;q=0.001', 'en'],
	['en;q=0.8, de;q=0.8', 'en'],
	['de;q=abc, en', 'en'],
	['de;q=1.5, en;q=0.5', 'en'],
	['de;q=-1, en', 'en'],
	[';;;,,,', 'en'],
	['', 'en'],
	['a,'.repeat(4096), 'en'],
	['de-', 'en'],
	['-de', 'en'],
	['dek', 'en'],
];

test('Accept-Language table of C14', async () => {
	const q = createQueue({ rate: 600 });
	for (const [header, want] of table) {
		const r = await req(`/queue/${q.slug}`,
		    { headers: { 'accept-language': header } });
		const what = JSON.stringify(header.slice(0, 40));
		assert.equal(r.status, 200, what);
		assert.equal(r.headers.get('content-language'), want, what);
		assert.match(r.text, new RegExp(`<html lang="${want}" dir="ltr">`), what);
		assert.match(r.headers.get('vary'), /Accept-Language/, what);
	}
});

test('no Accept-Language at all: English', async () => {
	const q = createQueue({ rate: 600 });
	const r = await req(`/queue/${q.slug}`);
	assert.equal(r.headers.get('content-language'), 'en');
	assert.match(r.text, /Your number/);
});

test('?lang= chosen on the page wins over the header', async () => {
	const q = createQueue({ rate: 600 });
	let r = await req(`/queue/${q.slug}?lang=en`,
	    { headers: { 'accept-language': 'de' } });
	assert.equal(r.headers.get('content-language'), 'en');
	assert.match(r.text, /<a href="\/queue\/[^"]*\?lang=de"[^>]*>Deutsch<\/a>/);
	r = await req(`/queue/${q.slug}?lang=de`,
	    { headers: { 'accept-language': 'en' } });
	assert.equal(r.headers.get('content-language'), 'de');
	assert.match(r.text, /Ihre Nummer/);
	r = await req(`/queue/${q.slug}?lang=fr`,
	    { headers: { 'accept-language': 'de' } });
	assert.equal(r.headers.get('content-language'), 'de',
	    'an unknown choice falls back to the header');
});
