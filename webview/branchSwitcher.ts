// The ‹ 1/2 › switcher under a message or an answer where the chat forks: it draws the host's branch info and names the neighbouring branches.
import type { BranchView, TranscriptItem } from '../src/protocol/messages.js';
import { button, el } from './dom.js';

function arrow(dir: 'previous' | 'next', target: string | undefined): HTMLButtonElement {
  const b = button({
    icon: dir === 'previous' ? 'chevron-left' : 'chevron-right',
    label: dir === 'previous' ? 'Previous branch' : 'Next branch',
    action: 'branch-switch',
    className: `branch-${dir}`,
    data: { dir, ...(target === undefined ? {} : { target }) },
  });
  // At either end the button stays in place (nothing shifts) but is not offered.
  if (target === undefined) b.disabled = true;
  return b;
}

export function branchSwitcher(b: BranchView): HTMLElement {
  const where = `Branch ${b.index} of ${b.count}`;
  return el('div', { className: 'branch-switcher', attrs: { role: 'group', 'aria-label': where, title: where } }, [
    arrow('previous', b.previous),
    el('span', { className: 'branch-count', text: `${b.index}/${b.count}`, attrs: { 'aria-hidden': 'true' } }),
    arrow('next', b.next),
  ]);
}

/** A ‹ › click waiting for its snapshot: the branch's first item takes the clicked item's place, the switcher keeps focus. */
export interface PendingSwitch {
  readonly target: string;
  readonly dir: string;
  /** The clicked item's top below the viewport's top, in px. */
  readonly offset: number;
}

export function pendingSwitch(target: string, btn: HTMLElement, scroller: HTMLElement): PendingSwitch {
  let node = btn.closest('.item');
  // Retry's switcher sits on the answer and names the question of the other branch: that question takes the place of
  // the one above this answer, so the answer (same question, same height) and its switcher stay where they were.
  if (node && !node.classList.contains('item-user')) {
    for (let p = node.previousElementSibling; p; p = p.previousElementSibling) {
      if (p.classList.contains('item-user')) {
        node = p;
        break;
      }
    }
  }
  const offset = node ? node.getBoundingClientRect().top - scroller.getBoundingClientRect().top : 0;
  return { target, dir: btn.dataset.dir === 'next' ? 'next' : 'previous', offset };
}

function focusIn(root: Element | undefined, dir: string): boolean {
  const group = root?.querySelector('.branch-switcher');
  if (!group) return false;
  const same = group.querySelector<HTMLButtonElement>(`button[data-dir="${dir}"]`);
  const other = group.querySelector<HTMLButtonElement>(`button[data-dir="${dir === 'next' ? 'previous' : 'next'}"]`);
  // At the end of the branches the same side is no longer offered: the other one keeps the focus in the switcher.
  const target = same && !same.disabled ? same : other && !other.disabled ? other : undefined;
  target?.focus();
  return target !== undefined;
}

/** After a switch re-rendered the list: focus the switcher of the fork, on the branch's first item or its answer (Retry). */
export function refocusSwitcher(items: readonly TranscriptItem[], at: number | undefined, nodeOf: (id: string) => Element | undefined, dir: string): void {
  if (at === undefined) return;
  for (let i = at; i < items.length; i++) {
    const item = items[i];
    if (item === undefined || (i > at && item.kind === 'user')) return;
    if (focusIn(nodeOf(item.id), dir)) return;
  }
}
