// Number, duration and time formatting for the webview (kept here because the webview may import no runtime code from src).

/** 38420 → "38.4k", 1250000 → "1.25M", 950 → "950". */
export function shortTokens(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${trim(n / 1_000_000, abs >= 10_000_000 ? 1 : 2)}M`;
  if (abs >= 1000) return `${trim(n / 1000, abs >= 100_000 ? 0 : 1)}k`;
  return String(Math.round(n));
}

function trim(v: number, digits: number): string {
  return v.toFixed(digits).replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
}

/** 38420 → "38,420", without depending on the page's locale data. */
export function fullTokens(n: number): string {
  const sign = n < 0 ? '-' : '';
  return sign + String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 0.478 → "48%". */
export function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/** 125000 → "2m ago". */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** 850 → "850 ms", 3200 → "3.2 s", 125000 → "2m 5s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim(ms / 1000, 1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${s % 60}s`;
}
