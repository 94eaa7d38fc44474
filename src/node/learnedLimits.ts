// Windows learned from providers' overflow errors, persisted per endpoint + model in a small JSON file (docs/compaction.md#overflow-recovery).
import { tempPathBeside } from './fsUtil.js';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as z from '../engine/zod.js';
import type { PartialLimits } from '../engine/tokens/modelLimits.js';
import { errCode, oneLine } from './fsUtil.js';
import { parseJsonText } from '../engine/jsonText.js';
import { NotRegularFileError, readRegularFile } from './regularFile.js';

const MAX_ENTRIES = 500;
const count = z.number().check(z.int(), z.positive(), z.lte(1e9));
const EntrySchema = z.object({ contextWindow: count, maxOutputTokens: z.optional(count), learnedAt: z.optional(z.string()) });
const FileSchema = z.object({ version: z.literal(1), limits: z.record(z.string(), z.catch(z.optional(EntrySchema), undefined)) });
type Entry = z.infer<typeof EntrySchema>;

/** The key of an endpoint + model: the base URL without trailing slashes, then the model id. */
export function limitsKey(baseURL: string, model: string): string {
  return `${baseURL.trim().replace(/\/+$/, '')} ${model.trim()}`;
}

/** The CLI's file: $CAPSULE_LIMITS_FILE, else $XDG_CONFIG_HOME/capsule/limits.json, else ~/.config/capsule/limits.json. */
export function cliLimitsPath(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CAPSULE_LIMITS_FILE?.trim();
  if (explicit) return explicit;
  const config = env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
  return join(config, 'capsule', 'limits.json');
}

/** One learned window, as `capsule limits` lists it. */
export interface LearnedLimit {
  readonly endpoint: string;
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
  /** ISO time of the overflow error it was learned from (absent in files written before it was recorded). */
  readonly learnedAt?: string;
}

/** " on 2026-12-01" from the entry's timestamp ('' for files written before dates were kept). */
export function learnedOn(e: { readonly learnedAt?: string }): string {
  const day = e.learnedAt === undefined ? undefined : /^\d{4}-\d{2}-\d{2}/.exec(e.learnedAt)?.[0];
  return day === undefined ? '' : ` on ${day}`;
}

/** What the file holds, and why it was read as empty when it was (a garbled file, a FIFO in its place). */
interface Contents {
  readonly entries: Record<string, Entry>;
  readonly problem?: string;
}

function splitKey(key: string): { endpoint: string; model: string } {
  const at = key.indexOf(' ');
  return at < 0 ? { endpoint: key, model: '' } : { endpoint: key.slice(0, at), model: key.slice(at + 1) };
}

/**
 * Reads and writes one limits file. A missing or garbled file is an empty one, never an error; one that is not a
 * regular file (a FIFO, a folder) is read as empty without blocking, and never written over.
 */
export class LearnedLimitsFile {
  constructor(readonly path: string) {}

  private async contents(): Promise<Contents> {
    let text: string;
    try {
      text = (await readRegularFile(this.path, 'learned-limits file')).toString('utf8');
    } catch (err) {
      if (errCode(err) === 'ENOENT') return { entries: {} };
      return { entries: {}, problem: `${oneLine(err).replace(/; refusing to read it$/, '')}; ignoring it` };
    }
    let raw: unknown;
    try {
      raw = parseJsonText(text);
    } catch (err) {
      return { entries: {}, problem: `learned-limits file ${this.path} is not valid JSON (${oneLine(err)}); ignoring it` };
    }
    const parsed = FileSchema.safeParse(raw);
    if (!parsed.success) return { entries: {}, problem: `learned-limits file ${this.path} is not in the expected format; ignoring it` };
    const entries: Record<string, Entry> = {};
    for (const [k, v] of Object.entries(parsed.data.limits)) if (v !== undefined) entries[k] = v;
    return { entries };
  }

  /** Why the file is read as empty, when it is (undefined when it is fine or absent). */
  async problem(): Promise<string | undefined> {
    return (await this.contents()).problem;
  }

  async get(baseURL: string, model: string): Promise<PartialLimits | undefined> {
    const e = (await this.contents()).entries[limitsKey(baseURL, model)];
    if (e === undefined) return undefined;
    return { contextWindow: e.contextWindow, ...(e.maxOutputTokens === undefined ? {} : { maxOutputTokens: e.maxOutputTokens }) };
  }

  /** Every learned window, oldest first, and why the file was read as empty when it was. */
  async list(): Promise<{ readonly limits: readonly LearnedLimit[]; readonly problem?: string }> {
    const c = await this.contents();
    const limits = Object.entries(c.entries).map(([k, e]) => ({ ...splitKey(k), ...e }));
    return { limits, ...(c.problem === undefined ? {} : { problem: c.problem }) };
  }

  /** One learned window with its date, or undefined. */
  async entry(baseURL: string, model: string): Promise<LearnedLimit | undefined> {
    const key = limitsKey(baseURL, model);
    const e = (await this.contents()).entries[key];
    return e === undefined ? undefined : { ...splitKey(key), ...e };
  }

  /** Records (or replaces) what an overflow error stated. */
  async record(baseURL: string, model: string, limits: { readonly contextWindow: number; readonly maxOutputTokens?: number }, now = new Date()): Promise<void> {
    const limitsMap = { ...(await this.writable()).entries };
    limitsMap[limitsKey(baseURL, model)] = {
      contextWindow: limits.contextWindow,
      ...(limits.maxOutputTokens === undefined ? {} : { maxOutputTokens: limits.maxOutputTokens }),
      learnedAt: now.toISOString(),
    };
    const keys = Object.keys(limitsMap);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete limitsMap[k];
    await this.write(limitsMap);
  }

  /** Drops what was learned for an endpoint + model (every entry when `which` is 'all'); returns what was dropped. */
  async forget(which: { readonly endpoint: string; readonly model: string } | 'all'): Promise<readonly LearnedLimit[]> {
    const entries = { ...(await this.writable()).entries };
    const keys = which === 'all' ? Object.keys(entries) : [limitsKey(which.endpoint, which.model)].filter((k) => entries[k] !== undefined);
    const dropped = keys.flatMap((k) => {
      const e = entries[k];
      return e === undefined ? [] : [{ ...splitKey(k), ...e }];
    });
    if (dropped.length === 0) return [];
    for (const k of keys) delete entries[k];
    await this.write(entries);
    return dropped;
  }

  /** The contents, refusing a path that holds something other than a regular file: replacing it would lose it. */
  private async writable(): Promise<Contents> {
    const c = await this.contents();
    if (c.problem !== undefined && /not a regular file/.test(c.problem)) throw new NotRegularFileError(c.problem.replace(/; ignoring it$/, '; not writing it'));
    return c;
  }

  /** Written to a temporary file first so a crash never leaves half a file. */
  private async write(limitsMap: Record<string, Entry>): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    // A fresh name created exclusively, so nothing planted at the temporary name is ever opened (a FIFO would block).
    const tmp = await tempPathBeside(this.path);
    try {
      await writeFile(tmp, `${JSON.stringify({ version: 1, limits: limitsMap }, null, 2)}\n`, { encoding: 'utf8', flag: 'wx' });
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
}
