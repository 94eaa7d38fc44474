// The portable `.capsule.md` format (docs/behaviour.md#portable): front matter schema, rendering, and validation of an imported file.
import * as z from '../zod.js';
import { parseCapsuleSections } from '../compaction/capsuleFormat.js';
import { LEDGER_HEADING } from '../compaction/ledgerFormat.js';
import { renderFrontMatter, splitFrontMatter } from './capsuleFrontMatter.js';

const CAPSULE_FORMAT_VERSION = 1;
/** A capsule is at most ~10k tokens (~40 KB); 256 KB leaves room for hand edits and long ledgers, not for a transcript. */
export const MAX_CAPSULE_FILE_BYTES = 256 * 1024;
export const MAX_TITLE_CHARS = 200;

/** sha256 of a string's UTF-8 bytes, as lowercase hex; the caller supplies it (node:crypto, WebCrypto...). */
export type Sha256 = (text: string) => string;

const oneLine = (max: number): z.ZodMiniString =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[^\u0000-\u001f\u007f\u2028\u2029]*$/, 'must be one line without control characters'));

const CapsuleFrontMatterSchema = z.strictObject({
  capsule: z.literal(CAPSULE_FORMAT_VERSION),
  id: z.string().check(z.regex(/^cap_[A-Za-z0-9_-]{1,64}$/, 'must look like cap_<letters, digits, _ or ->')),
  title: oneLine(MAX_TITLE_CHARS),
  created: z.iso.datetime({ offset: true }),
  source_session: z.optional(oneLine(200)),
  source_checkpoint: z.optional(oneLine(200)),
  model: z.optional(oneLine(200)),
  quality: z.enum(['full', 'partial', 'degraded']),
  tokens: z.number().check(z.int(), z.nonnegative()),
  checksum: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lowercase hex digits>')),
});

/** What the front matter says about a capsule (everything but the version and checksum). */
export interface CapsuleMeta {
  readonly id: string;
  readonly title: string;
  /** ISO 8601 time the capsule was made. */
  readonly created: string;
  readonly sourceSession?: string;
  readonly sourceCheckpoint?: string;
  readonly model?: string;
  readonly quality: 'full' | 'partial' | 'degraded';
  readonly tokens: number;
}

export type CapsuleProblemKind = 'too_large' | 'not_text' | 'no_front_matter' | 'bad_front_matter' | 'unknown_version' | 'missing_sections' | 'modified';

interface CapsuleProblem {
  readonly kind: CapsuleProblemKind;
  /** One line, fit to show the user as is. */
  readonly message: string;
}

export interface ParsedCapsuleFile {
  readonly meta: CapsuleMeta;
  /** The capsule text exactly as exported (sections and ledger); data, never instructions. */
  readonly body: string;
  /** True when the body no longer matches its checksum and was accepted with allowModified. */
  readonly modified: boolean;
  readonly hasLedger: boolean;
  readonly checksum: string;
}

export type CapsuleFileResult = ({ readonly ok: true } & ParsedCapsuleFile) | ({ readonly ok: false } & CapsuleProblem);

/** UTF-8 byte length without TextEncoder (the engine stays free of host globals). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function tooLargeMessage(bytes: number): string {
  return `capsule file is ${Math.ceil(bytes / 1024)} KB; the limit is ${MAX_CAPSULE_FILE_BYTES / 1024} KB`;
}

export const NOT_TEXT_MESSAGE = 'capsule file is not UTF-8 text (binary data or NUL bytes); a .capsule.md file is markdown';
const MODIFIED_MESSAGE =
  'capsule does not match its checksum (body or front matter): it was edited after export; load it anyway only if you trust the edit (allowModified / --anyway; it then loads as degraded)';

// Tab, LF, CR and form feed occur in text; other C0 controls and NUL mean binary data.
const BINARY = /[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffe\uffff]/;

function metaFields(meta: CapsuleMeta): [string, string | number | undefined][] {
  return [
    ['capsule', CAPSULE_FORMAT_VERSION],
    ['id', meta.id],
    ['title', meta.title],
    ['created', meta.created],
    ['source_session', meta.sourceSession],
    ['source_checkpoint', meta.sourceCheckpoint],
    ['model', meta.model],
    ['quality', meta.quality],
    ['tokens', meta.tokens],
  ];
}

/**
 * What the checksum covers: every front matter field but the checksum, rendered canonically, then the body — so a
 * relabelled `quality: full` or a changed title fails the check just like an edited body.
 */
export function checksumOf(meta: CapsuleMeta, body: string, sha256: Sha256): string {
  return `sha256:${sha256(`${renderFrontMatter(metaFields(meta))}${body}`)}`;
}

export function renderCapsuleFile(meta: CapsuleMeta, body: string, sha256: Sha256): string {
  const fm = renderFrontMatter([...metaFields(meta), ['checksum', checksumOf(meta, body, sha256)]]);
  return `${fm}${body}`;
}

function fail(kind: CapsuleProblemKind, message: string): CapsuleFileResult {
  return { ok: false, kind, message };
}

function zodMessage(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'front matter is invalid';
  const where = issue.path.length > 0 ? ` '${issue.path.map(String).join('.')}'` : '';
  return `front matter${where}: ${issue.message}`.replace(/\s+/g, ' ');
}

/**
 * Validates a capsule file's text: size, text-ness, front matter (strict), version, the seven
 * sections, then the checksum. A body edited after export is refused unless `allowModified`.
 * Nothing here interprets the body: it is returned as the exact string that was hashed.
 */
export function parseCapsuleFile(text: string, opts: { readonly sha256: Sha256; readonly allowModified?: boolean }): CapsuleFileResult {
  const bytes = utf8Length(text);
  if (bytes > MAX_CAPSULE_FILE_BYTES) return fail('too_large', tooLargeMessage(bytes));
  if (BINARY.test(text)) return fail('not_text', NOT_TEXT_MESSAGE);
  const split = splitFrontMatter(text.startsWith('\ufeff') ? text.slice(1) : text);
  if (!split.ok) return fail(split.kind, split.message);
  const version = split.fields.capsule;
  if (version === undefined) return fail('bad_front_matter', 'front matter has no `capsule:` format version');
  if (typeof version !== 'number')
    return fail('bad_front_matter', `front matter 'capsule': the format version must be a number (got ${JSON.stringify(version)})`);
  if (version !== CAPSULE_FORMAT_VERSION) {
    return fail('unknown_version', `capsule format version ${JSON.stringify(version)} is not supported (this Capsule reads version ${CAPSULE_FORMAT_VERSION})`);
  }
  const fm = CapsuleFrontMatterSchema.safeParse(split.fields);
  if (!fm.success) return fail('bad_front_matter', zodMessage(fm.error));
  const f = fm.data;
  if (split.body.trim() === '') return fail('missing_sections', 'capsule file has no body: the seven sections are missing');
  const { missing } = parseCapsuleSections(split.body);
  if (missing.length > 0) return fail('missing_sections', `capsule is missing sections: ${missing.join(', ')}`);

  const stated: CapsuleMeta = {
    id: f.id,
    title: f.title,
    created: f.created,
    ...(f.source_session === undefined ? {} : { sourceSession: f.source_session }),
    ...(f.source_checkpoint === undefined ? {} : { sourceCheckpoint: f.source_checkpoint }),
    ...(f.model === undefined ? {} : { model: f.model }),
    quality: f.quality,
    tokens: f.tokens,
  };
  let body = split.body;
  let modified = checksumOf(stated, body, opts.sha256) !== f.checksum;
  if (modified && body.includes('\r')) {
    // Only the line endings changed (an editor or git autocrlf): the same content, kept with LF.
    const lf = body.replace(/\r\n/g, '\n');
    if (checksumOf(stated, lf, opts.sha256) === f.checksum) {
      body = lf;
      modified = false;
    }
  }
  if (modified && opts.allowModified !== true) return fail('modified', MODIFIED_MESSAGE);
  // An edited file loaded anyway cannot vouch for its own label: whatever it says, it is not a full capsule.
  const meta: CapsuleMeta = modified ? { ...stated, quality: 'degraded' } : stated;
  const hasLedger = body.split(/\r?\n/).some((l) => l.trim() === LEDGER_HEADING);
  return { ok: true, meta, body, modified, hasLedger, checksum: f.checksum };
}

/** Checks metadata before writing, so an export never produces a file that would not load. */
export function metaProblem(meta: CapsuleMeta): string | undefined {
  const r = CapsuleFrontMatterSchema.safeParse({
    capsule: CAPSULE_FORMAT_VERSION,
    id: meta.id,
    title: meta.title,
    created: meta.created,
    source_session: meta.sourceSession,
    source_checkpoint: meta.sourceCheckpoint,
    model: meta.model,
    quality: meta.quality,
    tokens: meta.tokens,
    checksum: `sha256:${'0'.repeat(64)}`,
  });
  return r.success ? undefined : zodMessage(r.error);
}
