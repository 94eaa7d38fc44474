// The chat header, one line: model · window · a thin meter (the breakdown on hover or click) · the toolbar.
import type { BudgetView, ModelOption, SessionView, SettingsView, WebviewCommand } from '../src/protocol/messages.js';
import { renderBudgetLine, renderBudgetPanel, windowFigure } from './budgetView.js';
import { button, el } from './dom.js';
import { fullTokens, shortTokens } from '../src/protocol/format.js';
import { COMMANDS, VIEW_COMMAND_IDS, type CommandSpec } from '../src/protocol/commands.js';

export interface HeaderActions {
  command(c: WebviewCommand): void;
  selectModel(id: string): void;
  toggleSetup(): void;
  detailsToggled(open: boolean): void;
}

function modelLabel(m: ModelOption): string {
  return `${m.label} · ${m.windowSource === 'default' ? 'window unknown' : `${shortTokens(m.contextWindow)} window`} · soft ${shortTokens(m.softLimit)}`;
}

function modelTitle(m: ModelOption): string {
  return `${m.label} (${m.provider === 'lm' ? 'VS Code language model' : 'OpenAI-compatible'})\nContext window ${m.windowSource === 'default' ? `unknown (assuming ${fullTokens(m.contextWindow)})` : fullTokens(m.contextWindow)}\nMax output ${fullTokens(m.maxOutputTokens)}\nHard limit ${fullTokens(m.hardLimit)}\nSoft threshold ${fullTokens(m.softLimit)}`;
}

/**
 * One line, whatever the width: the chat's height belongs to the conversation. The title is for screen readers (VS
 * Code's view header and the Checkpoints tree name the chat); the budget's figures, legend and fields open under the
 * line on a click of the meter, and its tooltip has them all.
 */
export class ChatHeader {
  readonly element: HTMLElement;
  readonly #title = el('h1', { className: 'sr-only', text: 'Chat' });
  readonly #model = el('div', { className: 'model-area' });
  readonly #budget = el('div', { className: 'budget-area' });
  readonly #toolbar = el('div', { className: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Chat actions' } });
  #settings: SettingsView | null = null;
  #lastBudget: BudgetView | null = null;
  #detailsOpen = false;

  constructor(private readonly actions: HeaderActions) {
    this.element = el('header', { className: 'chat-header' }, [this.#title, this.#model, this.#budget, this.#toolbar]);
    // The catalog's commands with a toolbar label, in catalog order, then the setup panel's gear.
    const buttons = VIEW_COMMAND_IDS.flatMap((id) => {
      const spec: CommandSpec = COMMANDS[id];
      if (spec.toolbar === undefined || spec.icon === undefined) return [];
      const b = button({ icon: spec.icon, label: spec.toolbar });
      b.addEventListener('click', () => this.actions.command(id));
      return [b];
    });
    const setup = button({ icon: 'gear', label: 'Provider setup' });
    setup.addEventListener('click', () => this.actions.toggleSetup());
    this.#toolbar.replaceChildren(...buttons, setup);
  }

  showSession(session: SessionView | null): void {
    const title = session?.title && session.title.length > 0 ? session.title : 'Chat';
    this.#title.textContent = title;
  }

  showModels(models: readonly ModelOption[], currentId: string | null, settings: SettingsView | null): void {
    this.#settings = settings;
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
    } else if (settings)
      children.push(el('span', { className: 'muted model-name', text: settings.modelId, attrs: { title: `${settings.modelId} · ${settings.provider}` } }));
    this.#keepFocus(this.#model, () => this.#model.replaceChildren(...children));
    // The auto-compact switch lives in the budget panel, which follows the settings.
    if (this.#lastBudget) this.#renderBudget();
  }

  showBudget(budget: BudgetView | null, detailsOpen: boolean): void {
    this.#lastBudget = budget;
    this.#detailsOpen = detailsOpen;
    this.#renderBudget();
  }

  #renderBudget(): void {
    const b = this.#lastBudget;
    this.#keepFocus(this.#budget, () => {
      if (!b) {
        this.#budget.replaceChildren();
        return;
      }
      const details = el('details', { className: 'budget-details' }, [
        renderBudgetLine(b),
        renderBudgetPanel(b, this.#autoCompactToggle(), () => this.actions.command('budget')),
      ]);
      details.open = this.#detailsOpen;
      details.addEventListener('toggle', () => {
        this.#detailsOpen = details.open;
        this.actions.detailsToggled(details.open);
      });
      this.#budget.replaceChildren(windowFigure(b), details);
    });
  }

  #autoCompactToggle(): HTMLElement | null {
    const s = this.#settings;
    if (!s) return null;
    const auto = !s.softTriggersEnabled ? 'off (the hard limit is still protected)' : s.autoCompact ? 'on' : 'off';
    const toggle = button({ icon: 'sync', text: `Auto-compact ${auto}`, label: 'Toggle automatic compaction', className: 'toggle' });
    toggle.setAttribute('aria-pressed', String(s.autoCompact && s.softTriggersEnabled));
    toggle.addEventListener('click', () => this.actions.command('toggleAutoCompact'));
    return toggle;
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
