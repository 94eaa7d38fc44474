// The /budget text block (docs/behaviour.md#observability), laid out like the seed's "Context Stats" example.
import type { Budget } from './budget.js';
import { formatAge, formatTokens } from './figures.js';
import { windowText } from './modelLimits.js';

export { formatAge, formatTokens };

const LABEL_WIDTH = 21;

function line(label: string, value: string): string {
  return `  ${`${label}:`.padEnd(LABEL_WIDTH)}${value}`;
}

/** Token figures right-aligned in a 6-wide column, small counts in a 2-wide one, as in the seed. */
const tok = (n: number): string => formatTokens(n).padStart(6);
const cnt = (n: number): string => String(n).padStart(2);

/** "auto: 6,144" for a value derived from the window, the plain figure for one the user set. */
function setting(b: Budget, key: string, n: number): string {
  return b.derived?.includes(key) === true ? `${tok(n)} (auto: ${formatTokens(n)})` : tok(n);
}

export function formatBudget(b: Budget): string {
  const last = b.lastCapsule
    ? `${formatAge(b.lastCapsule.ageMs)} (${formatTokens(b.lastCapsule.tokens)} tokens${b.lastCapsule.quality === 'degraded' ? ', degraded' : ''})`
    : 'none';
  const c = b.categories;
  return [
    'Context Stats:',
    line('Effective tokens', tok(b.effectiveTokens)),
    line('Measurement source', b.source),
    line('Soft limit', b.derived?.includes('minTokensForAutoCompact') === true ? `${tok(b.softLimit)} (auto)` : tok(b.softLimit)),
    line('Hard limit', tok(b.hardLimit)),
    line('Safety reserve', setting(b, 'safetyReserveTokens', b.safetyReserveTokens)),
    line('Keep recent', setting(b, 'keepRecentTokens', b.keepRecentTokens)),
    line('Capsules', cnt(b.capsules)),
    line('Messages', cnt(b.messages)),
    line('Turns', cnt(b.turns)),
    line('Last capsule', last),
    line('Savings ratio', `${b.savingsRatio.toFixed(2)} (${Math.round(b.savingsRatio * 100)}%)`),
    line('Auto-compact', b.autoCompact ? 'ON' : 'OFF'),
    line('Next trigger est.', b.nextTrigger),
    '',
    line('Model', `${b.model} (${windowText(b)}, max output ${formatTokens(b.maxOutputTokens)})`),
    line('Of hard limit', `${b.percentOfHard.toFixed(1)}%`),
    line('Reclaimable', tok(b.reclaimableTokens)),
    ...(b.lastCapsule ? [line('Last checkpoint', b.lastCapsule.checkpointId)] : []),
    line(
      'Categories',
      `system ${formatTokens(c.system)} · tools ${formatTokens(c.tools)} · capsule ${formatTokens(c.capsule)} · messages ${formatTokens(c.messages)} · tool results ${formatTokens(c.toolResults)} · reserved output ${formatTokens(c.reservedOutput)}`,
    ),
  ].join('\n');
}
