// The preflight barrier strip (docs/behaviour.md#barrier): a live line with progress while compacting, then one persistent result line.
import type { BarrierView } from '../src/protocol/messages.js';
import { button, el, icon, type Announcer } from './dom.js';
import { barrierLiveLine, barrierResultLine } from './words.js';

export class BarrierStrip {
  readonly element = el('div', { className: 'barrier hidden' });
  #current: BarrierView | null = null;

  constructor(
    private readonly announcer: Announcer,
    private readonly viewCapsule: (checkpointId: string, opener: HTMLElement) => void,
  ) {}

  /** True while a compaction runs before the next request (input is queued meanwhile). */
  get running(): boolean {
    return this.#current !== null && this.#current.phase !== 'end';
  }

  show(b: BarrierView | null): void {
    const previous = this.#current;
    this.#current = b;
    if (b === null) {
      this.element.classList.add('hidden');
      this.element.replaceChildren();
      return;
    }
    this.element.classList.remove('hidden');
    if (b.phase === 'end') this.#showResult(b);
    else this.#showLive(b, previous);
    if (b.phase === 'start' || (b.phase === 'progress' && previous?.operationId !== b.operationId))
      this.announcer.say('Compacting context before the response. Your messages will be queued.');
    if (b.phase === 'end' && previous?.phase !== 'end') this.announcer.say(barrierResultLine(b));
  }

  #showLive(b: BarrierView, previous: BarrierView | null): void {
    const pct = Math.round(b.percent);
    const existing = this.element.querySelector<HTMLElement>('.barrier-live');
    // Progress updates arrive often: touch only the text and the bar, never rebuild the strip.
    if (existing && previous && previous.phase !== 'end' && previous.operationId === b.operationId) {
      const text = existing.querySelector('.barrier-text');
      if (text) text.textContent = barrierLiveLine(b);
      const bar = existing.querySelector<HTMLElement>('.barrier-progress');
      bar?.setAttribute('aria-valuenow', String(pct));
      const fill = existing.querySelector<HTMLElement>('.barrier-fill');
      if (fill) fill.style.width = `${pct}%`;
      return;
    }
    const fill = el('div', { className: 'barrier-fill' });
    fill.style.width = `${pct}%`;
    const bar = el(
      'div',
      {
        className: 'barrier-progress',
        attrs: { role: 'progressbar', 'aria-label': 'Compaction progress', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(pct) },
      },
      [fill],
    );
    this.element.replaceChildren(
      el('div', { className: 'barrier-live' }, [
        icon('loading', 'codicon-modifier-spin'),
        el('span', { className: 'barrier-text', text: barrierLiveLine(b) }),
        bar,
      ]),
    );
  }

  #showResult(b: BarrierView): void {
    const outcome = b.result?.outcome ?? 'completed';
    const iconName = outcome === 'completed' ? (b.result?.quality === 'degraded' ? 'warning' : 'pass') : outcome === 'failed' ? 'error' : 'info';
    const children: Node[] = [icon(iconName), el('span', { className: 'barrier-text', text: barrierResultLine(b) })];
    const ck = b.result?.checkpointId;
    if (ck !== undefined && outcome === 'completed') {
      const view = button({ icon: 'eye', label: 'View the capsule' });
      view.addEventListener('click', () => this.viewCapsule(ck, view));
      children.push(view);
    }
    this.element.replaceChildren(el('div', { className: `barrier-result outcome-${outcome}` }, children));
  }
}
