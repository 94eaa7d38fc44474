// Windows learned from providers' overflow errors, persisted per endpoint + model in a small JSON file (docs/compaction.md#overflow-recovery).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { PartialLimits } from '../engine/tokens/modelLimits.js';

const MAX_ENTRIES = 500;
const count = z.number().int().positive().max(1e9);
const EntrySchema = z.object({ contextWindow: count, maxOutputTokens: count.optional(), learnedAt: z.string().optional() });
const FileSchema = z.object({ version: z.literal(1), limits: z.record(z.string(), EntrySchema.optional().catch(undefined)) });
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

/** Reads and writes one limits file; a missing, unreadable or garbled file is an empty one, never an error. */
export class LearnedLimitsFile {
  constructor(readonly path: string) {}

  private async all(): Promise<Record<string, Entry>> {
    try {
      const parsed = FileSchema.safeParse(JSON.parse(await readFile(this.path, 'utf8')) as unknown);
      if (!parsed.success) return {};
      const out: Record<string, Entry> = {};
      for (const [k, v] of Object.entries(parsed.data.limits)) if (v !== undefined) out[k] = v;
      return out;
    } catch {
      return {};
    }
  }

  async get(baseURL: string, model: string): Promise<PartialLimits | undefined> {
    const e = (await this.all())[limitsKey(baseURL, model)];
    if (e === undefined) return undefined;
    return { contextWindow: e.contextWindow, ...(e.maxOutputTokens === undefined ? {} : { maxOutputTokens: e.maxOutputTokens }) };
  }

  /** Records (or replaces) what an overflow error stated; written to a temporary file first so a crash never leaves half a file. */
  async record(baseURL: string, model: string, limits: { readonly contextWindow: number; readonly maxOutputTokens?: number }, now = new Date()): Promise<void> {
    const limitsMap = await this.all();
    limitsMap[limitsKey(baseURL, model)] = { contextWindow: limits.contextWindow, ...(limits.maxOutputTokens === undefined ? {} : { maxOutputTokens: limits.maxOutputTokens }), learnedAt: now.toISOString() };
    const keys = Object.keys(limitsMap);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete limitsMap[k];
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ version: 1, limits: limitsMap }, null, 2)}\n`, 'utf8');
    await rename(tmp, this.path);
  }
}
