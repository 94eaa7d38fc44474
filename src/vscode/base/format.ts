// Short token figures for the status bar and tree ("38.4k"), and full ones for tooltips ("38,420").
export { formatTokens as fullTokens } from '../../engine/tokens/budgetFormat.js';

export function shortTokens(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${trim(n / 1_000_000, abs >= 10_000_000 ? 1 : 2)}M`;
  if (abs >= 1000) return `${trim(n / 1000, abs >= 100_000 ? 0 : 1)}k`;
  return String(Math.round(n));
}

function trim(v: number, digits: number): string {
  return v.toFixed(digits).replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
