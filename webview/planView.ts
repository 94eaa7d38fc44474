// The agent's plan above the composer: a collapsible checklist the host sends whenever update_plan changes it.
import type { PlanView } from '../src/protocol/messages.js';
import type { Announcer } from './dom.js';
import { el, icon } from './dom.js';

const GLYPH: Readonly<Record<PlanView[number]['status'], string>> = {
  pending: 'circle-large-outline',
  in_progress: 'circle-large-filled',
  done: 'pass-filled',
};
const SPOKEN: Readonly<Record<PlanView[number]['status'], string>> = { pending: 'pending', in_progress: 'in progress', done: 'done' };

export class PlanStrip {
  readonly element = el('details', { className: 'plan hidden', attrs: { 'aria-label': 'Plan' } });
  readonly #summary = el('summary', { className: 'plan-summary' });
  readonly #list = el('ol', { className: 'plan-list' });
  #shown = '';

  constructor(
    private readonly announcer: Announcer,
    open: boolean,
    toggled: (open: boolean) => void,
  ) {
    this.element.open = open;
    this.element.append(this.#summary, this.#list);
    this.element.addEventListener('toggle', () => toggled(this.element.open));
  }

  show(plan: PlanView): void {
    const key = JSON.stringify(plan);
    if (key === this.#shown) return;
    const changed = this.#shown !== '';
    this.#shown = key;
    this.element.classList.toggle('hidden', plan.length === 0);
    const done = plan.filter((i) => i.status === 'done').length;
    const current = plan.find((i) => i.status === 'in_progress');
    const title = `Plan · ${done} of ${plan.length} done`;
    this.#summary.replaceChildren(
      el('span', { className: 'plan-title', text: title }),
      ...(current ? [el('span', { className: 'plan-current muted', text: current.step })] : []),
    );
    this.#list.replaceChildren(
      ...plan.map((i) =>
        el('li', { className: `plan-item ${i.status}`, attrs: { 'aria-label': `${i.step}, ${SPOKEN[i.status]}` } }, [
          icon(GLYPH[i.status]),
          el('span', { className: 'plan-step', text: i.step }),
        ]),
      ),
    );
    if (changed && plan.length > 0) this.announcer.say(`Plan updated: ${done} of ${plan.length} done`);
  }
}
