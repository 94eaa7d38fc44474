// Number, size, duration and age formatting shared by the host views and the webview. It may import nothing but the
// engine's figures (which import nothing), so the webview bundle can take it at runtime (test/unit/layering).
export { formatAge as age, formatTokens as fullTokens } from '../engine/tokens/figures.js';

/** 38420 → "38.4k", 1250000 → "1.25M", 950 → "950". */
export function shortTokens(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${trim(n / 1_000_000, abs >= 10_000_000 ? 1 : 2)}M`;
  if (abs >= 1000) return `${trim(n / 1000, abs >= 100_000 ? 0 : 1)}k`;
  return String(Math.round(n));
}

function trim(v: number, digits: number): string {
  return v
    .toFixed(digits)
    .replace(/\.0+$/, '')
    .replace(/(\.\d*?)0+$/, '$1');
}

/** 0.478 → "48%". */
export function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/** 850 → "850 ms", 3200 → "3.2 s", 125000 → "2m 5s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim(ms / 1000, 1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** 900 → "900 B", 2048 → "2.0 KB", 3145728 → "3.0 MB". */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Why a compaction happened, in the words the chat's cards and the Checkpoints tree both use (trigger ids stay in tooltips). */
export const TRIGGER_WORDS: Readonly<Record<string, string>> = {
  hard_limit: 'context size (hard limit)',
  auto_threshold: 'context size',
  turn_complete: 'context size (turn complete)',
  context_overflow: 'overflow',
  user: 'manual',
  idle: 'idle',
  model_switch: 'model switch',
  milestone: 'milestone',
  plan_pivot: 'plan pivot',
};
