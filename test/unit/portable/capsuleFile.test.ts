// Validation of imported .capsule.md text: round trip, checksum and "load anyway", size, version, sections, binary, strictness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECTION_NAMES, parseCapsuleSections } from '../../../src/engine/compaction/capsuleFormat.js';
import { LEDGER_HEADING } from '../../../src/engine/compaction/ledgerFormat.js';
import {
  MAX_CAPSULE_FILE_BYTES,
  checksumOf,
  parseCapsuleFile,
  renderCapsuleFile,
  utf8Length,
  type CapsuleFileResult,
} from '../../../src/engine/portable/capsuleFile.js';
import { sha256Hex } from '../../../src/node/capsuleFiles.js';
import { IMG, META, SCRIPT, SECTIONS, bodyText, fileText } from './helpers.js';

const parse = (text: string, allowModified = false): CapsuleFileResult => parseCapsuleFile(text, { sha256: sha256Hex, allowModified });

function problemOf(r: CapsuleFileResult): { kind: string; message: string } {
  assert.ok(!r.ok, 'expected the file to be rejected');
  assert.doesNotMatch(r.message, /\n/, 'one line');
  return { kind: r.kind, message: r.message };
}

const ledgerBlock = (text: string): string => text.slice(text.indexOf(LEDGER_HEADING));

test('a rendered file has the documented front matter and parses back to the same metadata and body', () => {
  const text = fileText();
  const lines = text.split('\n');
  assert.deepEqual(
    lines.slice(0, 10).map((l) => l.split(':')[0]),
    ['---', 'capsule', 'id', 'title', 'created', 'source_session', 'source_checkpoint', 'model', 'quality', 'tokens'],
  );
  assert.equal(lines[3], 'title: "handoff auth work"');
  assert.match(lines[10] ?? '', /^checksum: sha256:[0-9a-f]{64}$/);
  assert.equal(lines[11], '---');
  const r = parse(text);
  assert.ok(r.ok, r.ok ? '' : r.message);
  assert.deepEqual(r.meta, META);
  assert.equal(r.body, bodyText());
  assert.equal(r.modified, false);
  assert.equal(r.hasLedger, true);
  assert.equal(r.checksum, checksumOf(META, bodyText(), sha256Hex));
});

test('the checksum covers the front matter: a degraded capsule relabelled full, or a new title, is refused as modified', () => {
  const degraded = renderCapsuleFile({ ...META, quality: 'degraded' }, bodyText(), sha256Hex);
  for (const edited of [degraded.replace(/^quality: degraded$/m, 'quality: full'), fileText().replace(/^title: .*$/m, 'title: "Something else"')]) {
    const r = parse(edited);
    assert.equal(r.ok, false);
    assert.equal(r.ok ? '' : r.kind, 'modified');
    // Loaded anyway, an edited capsule cannot vouch for its label.
    const anyway = parse(edited, true);
    assert.ok(anyway.ok && anyway.modified && anyway.meta.quality === 'degraded');
  }
});

test('prototype keys in front matter are refused, not silently dropped', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    const r = parse(fileText().replace(/^title: /m, `${key}: x\ntitle: `));
    assert.equal(r.ok, false, key);
    assert.match(r.ok ? '' : r.message, new RegExp(`'${key}' is not allowed as a key`));
  }
  const unknown = parse(fileText().replace(/^title: /m, 'colour: blue\ntitle: '));
  assert.equal(unknown.ok, false);
  assert.match(unknown.ok ? '' : unknown.message, /colour/);
});

test('every section and the ledger come back exactly', () => {
  const r = parse(fileText());
  assert.ok(r.ok);
  const parsed = parseCapsuleSections(r.body);
  assert.deepEqual(parsed.missing, []);
  for (const name of SECTION_NAMES) assert.equal(parsed.sections[name], SECTIONS[name], name);
  assert.equal(ledgerBlock(r.body), ledgerBlock(bodyText()));
  assert.match(ledgerBlock(r.body), /Move auth to device codes/);
});

test('an edited body fails its checksum, says how to load it anyway, and loads with allowModified', () => {
  const text = fileText().replace('Finish polling', 'Finish polling and push to main');
  const p = problemOf(parse(text));
  assert.equal(p.kind, 'modified');
  assert.match(p.message, /edited after export/);
  assert.match(p.message, /load it anyway/);
  assert.match(p.message, /--anyway/);
  const r = parse(text, true);
  assert.ok(r.ok);
  assert.equal(r.modified, true);
  assert.match(r.body, /push to main/);
});

test('a file whose line endings were converted to CRLF is the same capsule, not a modified one', () => {
  const r = parse(fileText().replace(/\n/g, '\r\n'));
  assert.ok(r.ok, r.ok ? '' : r.message);
  assert.equal(r.modified, false);
  assert.equal(r.body, bodyText());
  assert.deepEqual(r.meta, META);
});

test('a UTF-8 byte-order mark is ignored', () => {
  const r = parse(`\ufeff${fileText()}`);
  assert.ok(r.ok);
});

test('an oversized file is refused with its size and the limit', () => {
  const padding = `\n<!-- ${'x'.repeat(300 * 1024)} -->\n`;
  const text = fileText(META, `${bodyText()}${padding}`);
  const p = problemOf(parse(text));
  assert.equal(p.kind, 'too_large');
  assert.equal(p.message, `capsule file is ${Math.ceil(utf8Length(text) / 1024)} KB; the limit is 256 KB`);
  // Multi-byte characters count as bytes, not characters.
  const wide = fileText(META, `${bodyText()}${'é'.repeat(MAX_CAPSULE_FILE_BYTES / 2)}`);
  assert.equal(problemOf(parse(wide)).kind, 'too_large');
});

test('an unknown format version is named; a missing version is a front-matter error', () => {
  const v2 = problemOf(parse(fileText().replace(/^capsule: 1$/m, 'capsule: 2')));
  assert.equal(v2.kind, 'unknown_version');
  assert.match(v2.message, /format version 2 is not supported \(this Capsule reads version 1\)/);
  const none = problemOf(parse(fileText().replace(/^capsule: 1\n/m, '')));
  assert.equal(none.kind, 'bad_front_matter');
  assert.match(none.message, /no `capsule:` format version/);
});

test('missing sections are listed by name; an empty body is refused', () => {
  const body = bodyText().replace(/## Next Steps\n[\s\S]*?\n\n## Critical Context/, '## Critical Context');
  const p = problemOf(parse(fileText(META, body)));
  assert.equal(p.kind, 'missing_sections');
  assert.equal(p.message, 'capsule is missing sections: Next Steps');
  assert.equal(problemOf(parse(fileText(META, ''))).kind, 'missing_sections');
  // Missing sections are reported even when "load anyway" is given: it only overrides the checksum.
  assert.equal(problemOf(parse(fileText(META, body).replace('## Goal', '## Gaol'), true)).kind, 'missing_sections');
});

test('binary garbage and NUL bytes are refused as not text', () => {
  const withNul = fileText().replace('Token store', 'Token\u0000store');
  const p = problemOf(parse(withNul, true));
  assert.equal(p.kind, 'not_text');
  assert.match(p.message, /not UTF-8 text/);
  const garbage = String.fromCharCode(...Array.from({ length: 512 }, (_, i) => (i * 37) % 256));
  assert.equal(problemOf(parse(garbage)).kind, 'not_text');
});

test('the front matter is validated strictly', () => {
  const cases: Array<[string, RegExp]> = [
    [fileText().replace(/^tokens: 2840$/m, 'tokens: 2840\nauthor: eve'), /Unrecognized key.*author/],
    [fileText().replace(/^quality: full$/m, 'quality: excellent'), /'quality'/],
    [fileText().replace(/^checksum: sha256:[0-9a-f]+$/m, 'checksum: md5:abc'), /'checksum': must be sha256:/],
    [fileText().replace(/^id: cap_test1$/m, 'id: ../../etc'), /'id': must look like cap_/],
    [fileText().replace(/^created: .*$/m, 'created: yesterday'), /'created'/],
    [fileText().replace(/^tokens: 2840$/m, 'tokens: -3'), /'tokens'/],
    [fileText().replace(/^title: .*$/m, 'title: "two\\nlines"'), /'title': must be one line/],
    [fileText().replace(/^capsule: 1$/m, 'capsule: "1"'), /format version must be a number/],
  ];
  for (const [text, expected] of cases) {
    const p = problemOf(parse(text));
    assert.equal(p.kind, 'bad_front_matter', p.message);
    assert.match(p.message, expected);
  }
});

test('HTML and script in a capsule stay inert text: nothing evaluates them and they round-trip byte for byte', () => {
  const scope = globalThis as { __capsulePwned?: boolean };
  delete scope.__capsulePwned;
  const r = parse(fileText());
  assert.ok(r.ok);
  assert.ok(r.body.includes(SCRIPT));
  assert.ok(r.body.includes(IMG));
  assert.equal(parseCapsuleSections(r.body).sections['Key Decisions'], SECTIONS['Key Decisions']);
  assert.equal(scope.__capsulePwned, undefined);
});
