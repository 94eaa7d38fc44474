// The Agent/Ask switch beside Send: hidden while the host says nothing about the mode (no chat, or one without instructions).
import { el } from './dom.js';

/** `chosen`: the mode the user picked. */
export function modeSelect(chosen: (mode: string) => void): HTMLSelectElement {
  const select = el('select', {
    className: 'mode-select hidden',
    attrs: { 'aria-label': 'Chat mode', title: 'Agent edits and runs commands with your approval; Ask only reads' },
  });
  for (const [value, label] of [
    ['agent', 'Agent'],
    ['ask', 'Ask'],
  ] as const)
    select.appendChild(el('option', { text: label, attrs: { value } }));
  select.addEventListener('change', () => chosen(select.value));
  return select;
}

/** The mode the host reports (with each budget); undefined hides the switch. */
export function showMode(select: HTMLSelectElement, mode: 'agent' | 'ask' | undefined, readOnly: boolean): void {
  select.classList.toggle('hidden', mode === undefined);
  if (mode !== undefined && select.value !== mode) select.value = mode;
  select.disabled = readOnly;
}
