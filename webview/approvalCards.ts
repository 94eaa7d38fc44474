// Inline approval cards above the composer: the rest of the chat stays usable while a write or a command waits for the user.
import type { ApprovalChoice, ApprovalView } from '../src/protocol/messages.js';
import type { Announcer } from './dom.js';
import { button, el } from './dom.js';

export interface ApprovalActions {
  answer(id: string, choice: ApprovalChoice, feedback?: string): void;
}

export class ApprovalCards {
  readonly element = el('section', { className: 'approvals hidden', attrs: { 'aria-label': 'Approvals' } });
  #shown = '';

  constructor(private readonly actions: ApprovalActions, private readonly announcer: Announcer) {}

  show(list: readonly ApprovalView[]): void {
    const key = list.map((a) => a.id).join(',');
    if (key === this.#shown) return;
    const added = list.filter((a) => !this.#shown.split(',').includes(a.id));
    this.#shown = key;
    this.element.classList.toggle('hidden', list.length === 0);
    this.element.replaceChildren(...list.map((a) => this.#card(a)));
    const first = added[0];
    if (first !== undefined) this.announcer.say(`Approval needed: ${first.title}`);
  }

  #card(a: ApprovalView): HTMLElement {
    const card = el('div', { className: `approval-card ${a.kind}`, attrs: { role: 'group', 'aria-label': a.title, 'data-approval': a.id } });
    card.appendChild(el('div', { className: 'approval-title', text: a.title }));
    if (a.kind === 'command') {
      card.appendChild(el('pre', { className: 'approval-command' }, [el('code', { text: a.command ?? '' })]));
      if (a.cwd !== undefined) card.appendChild(el('div', { className: 'approval-cwd muted', text: `in ${a.cwd}` }));
    } else if (a.diff !== undefined) {
      const details = el('details', { className: 'approval-diff' }, [el('summary', { text: 'Changes' })]);
      const pre = el('pre', { className: 'diff' });
      for (const line of a.diff.split('\n')) {
        const cls = line.startsWith('+') && !line.startsWith('+++') ? 'diff-add' : line.startsWith('-') && !line.startsWith('---') ? 'diff-del' : 'diff-ctx';
        pre.appendChild(el('span', { className: `diff-line ${cls}`, text: `${line}\n` }));
      }
      details.appendChild(pre);
      card.appendChild(details);
    }
    const row = el('div', { className: 'approval-buttons' });
    const add = (text: string, choice: ApprovalChoice, cls = ''): void => {
      const b = button({ text, label: text, className: cls, data: { choice } });
      b.addEventListener('click', () => this.actions.answer(a.id, choice));
      row.appendChild(b);
    };
    if (a.kind === 'write') {
      add('Open diff', 'openDiff');
      add('Accept', 'allow', 'primary');
      add('Allow all edits in this chat', 'allowAllEdits');
      add('Reject', 'deny');
    } else {
      add('Allow once', 'allow', 'primary');
      if (a.rule !== undefined) add(`Always allow commands starting with ${a.rule}`, 'allowAlways');
      add('Deny', 'deny');
    }
    const feedback = button({ text: a.kind === 'write' ? 'Reject with feedback' : 'Deny with feedback', label: 'Deny with feedback', data: { choice: 'feedback' } });
    row.appendChild(feedback);
    card.appendChild(row);
    feedback.addEventListener('click', () => {
      if (card.querySelector('.approval-feedback')) return;
      const input = el('textarea', { className: 'approval-feedback', attrs: { rows: '2', 'aria-label': 'What should the agent do instead?', placeholder: 'What should the agent do instead?' } });
      const send = button({ text: 'Send feedback', label: 'Send feedback', className: 'primary' });
      const submit = (): void => this.actions.answer(a.id, 'deny', input.value.slice(0, 4000));
      send.addEventListener('click', submit);
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey) {
          e.preventDefault();
          submit();
        }
      });
      card.append(input, send);
      input.focus();
    });
    return card;
  }
}
