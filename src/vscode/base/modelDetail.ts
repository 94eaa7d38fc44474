// The model picker's detail line: the window and where it came from, the soft threshold and hard limit, derived ones as "auto: N".
import type { ModelOption } from '../../protocol/chatState.js';
import { fullTokens } from '../../protocol/format.js';

const SOURCE: Readonly<Record<NonNullable<ModelOption['windowSource']>, string>> = {
  table: 'built-in table',
  provider: 'provider',
  learned: 'learned from overflow error',
  override: 'your override',
  default: 'unknown, assumed: set capsule.model.contextWindow',
};

function figure(n: number, derived: boolean | undefined): string {
  return derived === true ? `auto: ${fullTokens(n)}` : fullTokens(n);
}

export function modelDetail(m: ModelOption): string {
  const source = m.windowSource === undefined ? '' : ` (${SOURCE[m.windowSource]})`;
  return `window ${fullTokens(m.contextWindow)}${source} · compacts from ${figure(m.softLimit, m.softDerived)} · hard limit ${figure(m.hardLimit, m.hardDerived)}`;
}
