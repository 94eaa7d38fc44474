// Approval cards pinned above the composer: always whole on screen (no inner scroll hides a button); the always-allow rule is the user's to shape.
import type { AllowRuleScope, ApprovalChoice, ApprovalView, WebviewToHost } from '../src/protocol/messages.js';
import { LIMITS } from '../src/protocol/limits.js';
import type { Announcer } from './dom.js';
import { button, el } from './dom.js';

export interface ApprovalActions {
  answer(id: string, choice: ApprovalChoice, extra?: AnswerExtra): void;
}

type AnswerExtra = { readonly feedback?: string; readonly rule?: string; readonly scope?: AllowRuleScope };

/** The `approval` message for an answer: only the fields that answer carries, cut to the protocol's limits. */
export function approvalMessage(id: string, choice: ApprovalChoice, extra?: AnswerExtra): Extract<WebviewToHost, { type: 'approval' }> {
  return {
    type: 'approval',
    id,
    choice,
    ...(extra?.feedback === undefined ? {} : { feedback: extra.feedback.slice(0, LIMITS.notice) }),
    ...(extra?.rule === undefined ? {} : { rule: extra.rule.slice(0, LIMITS.label) }),
    ...(extra?.scope === undefined ? {} : { scope: extra.scope }),
  };
}

/** The words of a command as the user reads them (whitespace-separated; the host parses it properly again). */
function words(s: string): string[] {
  return s
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
}

/**
 * Why `rule` cannot be saved for `command`, or undefined. The host checks again with the shell parser; this says it
 * at once, in the card: a rule must be the command's first words, and a line with `;`, `&&`, `|`, redirections or
 * `$` always asks, so such characters never belong in a rule.
 */
function ruleProblem(rule: string, command: string): string | undefined {
  const r = words(rule);
  if (r.length === 0) return 'Type the start of the command, for example its name.';
  if (/[;&|<>$`()\\{}*?[\]~!#\n]/.test(rule)) return 'A rule is plain words: no ; & | < > $ or quotes.';
  const c = words(command);
  if (r.length > c.length || r.some((w, i) => c[i] !== w)) return `The rule must be how this command starts: ${c.slice(0, Math.max(1, r.length)).join(' ')}`;
  return undefined;
}

export class ApprovalCards {
  readonly element = el('section', { className: 'approvals hidden', attrs: { 'aria-label': 'Approvals' } });
  #shown = '';

  constructor(
    private readonly actions: ApprovalActions,
    private readonly announcer: Announcer,
  ) {}

  /** Some approval waits for the user. */
  get waiting(): boolean {
    return this.#shown !== '';
  }

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
    if (a.kind === 'command') {
      // The command itself says what will run: the title (its words again) is the group's name for screen readers,
      // and the folder is shown only when it is not the workspace root.
      card.appendChild(el('div', { className: 'approval-title sr-only', text: a.title }));
      card.appendChild(el('pre', { className: 'approval-command' }, [el('code', { text: a.command ?? '' })]));
      if (a.cwd !== undefined && a.cwd !== 'the workspace root') card.appendChild(el('div', { className: 'approval-cwd muted', text: `in ${a.cwd}` }));
    } else card.appendChild(el('div', { className: 'approval-title', text: a.title }));
    if (a.kind === 'mcp' && a.args !== undefined && a.args !== '{}') {
      // The arguments are what the user approves: shown whole (they are cut to the protocol's size by the host).
      card.appendChild(el('pre', { className: 'approval-command approval-args', attrs: { 'aria-label': 'Arguments' } }, [el('code', { text: a.args })]));
    }
    if (a.kind === 'write' && a.diff !== undefined) {
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
    const add = (text: string, choice: ApprovalChoice, cls = '', label = text): HTMLButtonElement => {
      const b = button({ text, label, className: cls, data: { choice } });
      b.addEventListener('click', () => this.actions.answer(a.id, choice));
      row.appendChild(b);
      return b;
    };
    if (a.kind === 'write') {
      add('Accept', 'allow', 'primary');
      add('Reject', 'deny');
      add('Open diff', 'openDiff');
      add('Allow all edits in this chat', 'allowAllEdits');
    } else if (a.kind === 'mcp') {
      add('Allow once', 'allow', 'primary');
      // No rule to shape: "always" is this one tool, by the name the model calls it.
      if (a.rule !== undefined) add('Always allow this tool', 'allowAlways', '', `Always allow the MCP tool ${a.rule}`);
      add('Deny', 'deny');
    } else {
      add('Allow once', 'allow', 'primary');
      add('Deny', 'deny');
      if (a.rule !== undefined) {
        const always = button({ text: 'Always allow…', label: 'Always allow commands like this: choose the rule', data: { choice: 'allowAlways' } });
        always.addEventListener('click', () => this.#ruleEditor(card, a));
        row.appendChild(always);
      }
    }
    const feedback = button({
      text: a.kind === 'write' ? 'Reject with feedback' : 'Deny with feedback',
      label: 'Deny with feedback',
      data: { choice: 'feedback' },
    });
    row.appendChild(feedback);
    card.appendChild(row);
    feedback.addEventListener('click', () => {
      if (card.querySelector('.approval-feedback')) return;
      const input = el('textarea', {
        className: 'approval-feedback',
        attrs: { rows: '2', 'aria-label': 'What should the agent do instead?', placeholder: 'What should the agent do instead?' },
      });
      const send = button({ text: 'Send feedback', label: 'Send feedback', className: 'primary' });
      const submit = (): void => this.actions.answer(a.id, 'deny', { feedback: input.value.slice(0, 4000) });
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

  /** "Always allow…": the rule (the command's name at first, editable to any of its first words) and where it is kept. */
  #ruleEditor(card: HTMLElement, a: ApprovalView): void {
    const existing = card.querySelector<HTMLInputElement>('.rule-input');
    if (existing) {
      existing.focus();
      return;
    }
    const command = a.command ?? '';
    const input = el('input', {
      className: 'rule-input',
      attrs: { type: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'Allow commands starting with', 'aria-describedby': `${a.id}-rule-help` },
    });
    input.value = a.rule ?? '';
    const workspace = el('input', { attrs: { type: 'checkbox', 'aria-label': 'Only in this workspace' } });
    const help = el('div', {
      className: 'rule-help muted',
      text: 'Whole words only; a line with ; && | > or $ still asks.',
      attrs: { id: `${a.id}-rule-help`, role: 'status' },
    });
    const choices = el('div', { className: 'rule-choices' });
    for (const c of a.ruleChoices ?? []) {
      const chip = button({ text: c, label: `Use the rule ${c}`, className: 'chip-button' });
      chip.addEventListener('click', () => {
        input.value = c;
        check();
        input.focus();
      });
      choices.appendChild(chip);
    }
    const save = button({ text: 'Save rule and run', label: 'Save the rule and run the command', className: 'primary' });
    const check = (): string | undefined => {
      const problem = ruleProblem(input.value, command);
      help.textContent = problem ?? `Runs without asking: ${input.value.trim()} …, from now on.`;
      input.setAttribute('aria-invalid', String(problem !== undefined));
      save.disabled = problem !== undefined;
      return problem;
    };
    input.addEventListener('input', check);
    const submit = (): void => {
      if (check() !== undefined) return;
      this.actions.answer(a.id, 'allowAlways', { rule: words(input.value).join(' '), scope: workspace.checked ? 'workspace' : 'user' });
    };
    save.addEventListener('click', submit);
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        submit();
      }
    });
    const editor = el('div', { className: 'rule-editor' }, [
      el('label', { className: 'rule-label', text: 'Allow commands starting with' }),
      input,
      ...(choices.childElementCount > 1 ? [choices] : []),
      el('label', { className: 'radio' }, [workspace, el('span', { text: 'Only in this workspace (otherwise your user settings)' })]),
      help,
      save,
    ]);
    card.appendChild(editor);
    check();
    input.focus();
    input.select();
  }
}
