// The chat header: title and actions, the model picker (window and soft threshold per model), and the context meter.
import type { BudgetView, ModelOption, SessionView, SettingsView, WebviewCommand } from '../src/protocol/messages.js';
import { renderBudgetDetails, renderBudgetSummary } from './budgetView.js';
import { button, el } from './dom.js';
import { fullTokens, shortTokens } from '../src/protocol/format.js';

export interface HeaderActions {
  command(c: WebviewCommand): void;
  selectModel(id: string): void;
  toggleSetup(): void;
  detailsToggled(open: boolean): void;
}

export function modelLabel(m: ModelOption): string {
  return `${m.label} · ${m.windowSource === 'default' ? 'window unknown' : `${shortTokens(m.contextWindow)} window`} · soft ${shortTokens(m.softLimit)}`;
}

function modelTitle(m: ModelOption): string {
  return `${m.label} (${m.provider === 'lm' ? 'VS Code language model' : 'OpenAI-compatible'})\nContext window ${m.windowSource === 'default' ? `unknown (assuming ${fullTokens(m.contextWindow)})` : fullTokens(m.contextWindow)}\nMax output ${fullTokens(m.maxOutputTokens)}\nHard limit ${fullTokens(m.hardLimit)}\nSoft threshold ${fullTokens(m.softLimit)}`;
}

export class ChatHeader {
  readonly element: HTMLElement;
  readonly #top = el('div', { className: 'title-row' });
  readonly #model = el('div', { className: 'model-row' });
  readonly #budget = el('div', { className: 'budget-area' });

  constructor(private readonly actions: HeaderActions) {
    this.element = el('header', { className: 'chat-header' }, [this.#top, this.#model, this.#budget]);
  }

  showSession(session: SessionView | null): void {
    const title = session?.title && session.title.length > 0 ? session.title : 'Chat';
    const act = (iconName: string, label: string, command: WebviewCommand): HTMLButtonElement => {
      const b = button({ icon: iconName, label });
      b.addEventListener('click', () => this.actions.command(command));
      return b;
    };
    const setup = button({ icon: 'gear', label: 'Provider setup' });
    setup.addEventListener('click', () => this.actions.toggleSetup());
    this.#keepFocus(this.#top, () =>
      this.#top.replaceChildren(
        el('h1', {
          text: title,
          ...(title === 'Chat' ? { className: 'untitled' } : {}),
          attrs: { title: session ? `${session.id} · ${session.entries} entries${session.readOnly ? ' · read-only' : ''}` : '' },
        }),
        el('div', { className: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Chat actions' } }, [
          act('fold', 'Compact context now', 'compactContext'),
          act('pulse', 'Show the context budget', 'showBudget'),
          act('add', 'New chat', 'newChat'),
          setup,
        ]),
      ),
    );
  }

  showModels(models: readonly ModelOption[], currentId: string | null, settings: SettingsView | null): void {
    const children: Node[] = [];
    if (models.length > 0) {
      const select = el('select', { attrs: { 'aria-label': 'Model' } });
      const known = models.some((m) => m.id === currentId);
      if (!known) select.appendChild(el('option', { text: currentId ?? settings?.modelId ?? 'No model selected', attrs: { value: '', disabled: '' } }));
      for (const m of models) {
        const o = el('option', { text: modelLabel(m), attrs: { value: m.id, title: modelTitle(m) } });
        o.selected = m.id === currentId;
        select.appendChild(o);
      }
      const current = models.find((m) => m.id === currentId);
      if (current) select.title = modelTitle(current);
      select.addEventListener('change', () => {
        if (select.value) this.actions.selectModel(select.value);
      });
      children.push(select);
    } else if (settings) children.push(el('span', { className: 'muted', text: `${settings.modelId} · ${settings.provider}` }));
    if (settings) {
      const auto = !settings.softTriggersEnabled ? 'off (hard limit still protected)' : settings.autoCompact ? 'on' : 'off';
      const toggle = button({ icon: 'sync', text: `Auto-compact ${auto}`, label: 'Toggle automatic compaction', className: 'toggle' });
      toggle.setAttribute('aria-pressed', String(settings.autoCompact && settings.softTriggersEnabled));
      toggle.addEventListener('click', () => this.actions.command('toggleAutoCompact'));
      children.push(toggle);
    }
    this.#keepFocus(this.#model, () => this.#model.replaceChildren(...children));
  }

  showBudget(budget: BudgetView | null, detailsOpen: boolean): void {
    this.#keepFocus(this.#budget, () =>
      this.#budget.replaceChildren(...(budget ? [renderBudgetSummary(budget), renderBudgetDetails(budget, detailsOpen, (open) => this.actions.detailsToggled(open))] : [])),
    );
  }

  /** Redrawing must not throw keyboard focus out of the header: put it back on the control in the same place. */
  #keepFocus(area: HTMLElement, redraw: () => void): void {
    const active = document.activeElement;
    const controls = (): HTMLElement[] => Array.from(area.querySelectorAll<HTMLElement>('button, select, summary'));
    const at = active instanceof HTMLElement && area.contains(active) ? controls().indexOf(active) : -1;
    redraw();
    if (at >= 0) controls()[at]?.focus();
  }
}
