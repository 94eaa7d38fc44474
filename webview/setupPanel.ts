// First-run setup: pick a VS Code language model, or an OpenAI-compatible endpoint with model and API key (never kept here); the MCP servers; the always-allowed commands.
import type { AllowRule, McpServerAction, McpServerView, ProviderChoice, SetupState } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';
import { mcpServersSection } from './mcpServersView.js';
import { shortTokens } from '../src/protocol/format.js';

export interface SetupActions {
  setupProvider(p: ProviderChoice): void;
  /** Posted once; the field is cleared right after, and the key never enters UI state. */
  setApiKey(key: string): void;
  /** Check the endpoint just saved; the host answers with `setup.check`. */
  checkProvider(): void;
  close(): void;
  /** The check of an endpoint just saved here passed: the panel closes itself (what it found is said on one line). */
  checkPassed(summary: string): void;
  removeRule(rule: AllowRule): void;
  /** Restart, Disable or Enable on an MCP server's row. */
  mcpServer(name: string, action: McpServerAction): void;
}

const BASE_URL = /^https?:\/\/\S+$/;

let uid = 0;
function field(label: string, input: HTMLInputElement | HTMLSelectElement, help?: string): HTMLElement {
  const id = `setup-f${++uid}`;
  input.id = id;
  const children: Node[] = [el('label', { text: label, attrs: { for: id } }), input];
  if (help !== undefined) {
    const helpId = `${id}-help`;
    input.setAttribute('aria-describedby', helpId);
    children.push(el('div', { className: 'help muted', text: help, attrs: { id: helpId } }));
  }
  return el('div', { className: 'field' }, children);
}

const CHECK_ICONS: Readonly<Record<NonNullable<SetupState['check']>['status'], string>> = {
  checking: 'loading',
  ok: 'pass',
  warning: 'warning',
  error: 'error',
};

/** What the check of the saved endpoint found: models, the model, the window; or what failed and what to do. */
function checkView(c: NonNullable<SetupState['check']>): HTMLElement {
  return el('div', { className: `setup-check check-${c.status}`, attrs: { role: c.status === 'error' ? 'alert' : 'status' } }, [
    icon(CHECK_ICONS[c.status], c.status === 'checking' ? 'codicon-modifier-spin' : ''),
    el('div', {}, [
      el('p', { className: 'check-summary', text: c.summary }),
      ...(c.hint === undefined ? [] : [el('p', { className: 'check-hint muted', text: c.hint })]),
    ]),
  ]);
}

export class SetupPanel {
  readonly element = el('section', { className: 'setup hidden', attrs: { 'aria-labelledby': 'setup-title' } });
  #state: SetupState | null = null;
  #kind: 'lm' | 'openai' = 'lm';
  #open = false;
  /** The check result last rendered, so only a new one scrolls the panel. */
  #shownCheck: string | undefined;
  /** A Save here asked for a check whose answer has not come yet. */
  #awaitingCheck = false;
  #rules: readonly AllowRule[] = [];
  #mcp: readonly McpServerView[] = [];

  constructor(private readonly actions: SetupActions) {}

  get isOpen(): boolean {
    return this.#open;
  }

  /** Puts the cursor in one field of the endpoint form (an error card's "Open settings"). */
  focusField(target: 'apiKey' | 'model' | 'baseUrl'): void {
    if (this.#kind !== 'openai') {
      this.#kind = 'openai';
      this.#render();
    }
    const input = this.element.querySelector<HTMLInputElement>(`input[data-field="${target}"]`);
    input?.scrollIntoView({ block: 'nearest' });
    input?.focus();
  }

  /** New state from the host; the panel opens by itself when setup is required. */
  update(state: SetupState | null, userOpened: boolean): void {
    const firstState = this.#state === null;
    this.#state = state;
    if (state && firstState) this.#kind = state.provider?.kind ?? (state.lmModels.length > 0 ? 'lm' : 'openai');
    const status = state?.check?.status;
    if (this.#awaitingCheck && status !== undefined && status !== 'checking') {
      this.#awaitingCheck = false;
      // Only a clean pass closes it: a warning or an error stays in view with what to do.
      if (status === 'ok' && state !== null && !state.required && this.#open) {
        this.#open = false;
        this.#render();
        this.actions.checkPassed(state.check?.summary ?? 'The provider answered.');
        return;
      }
    }
    this.#open = state !== null && (state.required || userOpened);
    this.#render();
  }

  /** The always-allow rules in force, listed with their × (the host sends them with the approvals). */
  setRules(rules: readonly AllowRule[]): void {
    this.#rules = rules;
    if (this.#open) this.#render();
  }

  /** The window's MCP servers (the host sends the list whenever one changes). */
  setMcpServers(servers: readonly McpServerView[]): void {
    this.#mcp = servers;
    if (this.#open) this.#render();
  }

  #rulesSection(): HTMLElement {
    const title = el('h3', { text: 'Commands and tools that run without asking' });
    if (this.#rules.length === 0)
      return el('div', { className: 'rules' }, [
        title,
        el('p', { className: 'muted', text: 'None yet. "Always allow…" on a command card or "Always allow this tool" on an MCP card adds one.' }),
      ]);
    const list = el('ul', { className: 'rule-list', attrs: { 'aria-label': 'Always-allowed commands' } });
    for (const r of this.#rules) {
      const mcp = r.kind === 'mcpTool';
      const remove = button({
        icon: 'close',
        label: `Stop allowing ${mcp ? 'the MCP tool ' : ''}${r.rule} (${r.scope === 'user' ? 'user settings' : 'this workspace'})`,
      });
      remove.addEventListener('click', () => this.actions.removeRule(r));
      list.appendChild(
        el('li', {}, [
          el('code', { text: r.rule }),
          el('span', { className: 'muted rule-scope', text: mcp ? 'MCP tool' : r.scope === 'user' ? 'user' : 'workspace' }),
          remove,
        ]),
      );
    }
    return el('div', { className: 'rules' }, [
      title,
      list,
      el('p', {
        className: 'muted help',
        text: 'A command runs without asking when its first words are a rule, and it has no ; && | > or $. An MCP tool listed here is called without asking.',
      }),
    ]);
  }

  #render(): void {
    const s = this.#state;
    this.element.classList.toggle('hidden', !this.#open || s === null);
    if (!this.#open || s === null) {
      this.element.replaceChildren();
      return;
    }
    const head = el('div', { className: 'setup-head' }, [
      icon('gear'),
      el('h2', { text: s.required ? 'Set up a model' : 'Provider setup', attrs: { id: 'setup-title' } }),
    ]);
    if (!s.required) {
      const close = button({ icon: 'close', label: 'Close provider setup' });
      close.addEventListener('click', () => this.actions.close());
      head.appendChild(close);
    }
    const children: Node[] = [head];
    if (s.message && s.check === undefined) children.push(el('p', { className: 'muted', text: s.message }));
    // What the check found comes first, where the eye is after Save (the panel scrolls back up to it when it changes).
    const check = this.#kind === 'openai' ? s.check : undefined;
    if (check !== undefined) children.push(checkView(check));
    children.push(this.#kindChooser(), this.#kind === 'lm' ? this.#lmForm(s) : this.#openaiForm(s));
    if (!s.required)
      children.push(
        mcpServersSection(this.#mcp, (name, action) => this.actions.mcpServer(name, action)),
        this.#rulesSection(),
      );
    this.element.replaceChildren(...children);
    const seen = check === undefined ? undefined : `${check.status}|${check.summary}`;
    if (seen !== undefined && seen !== this.#shownCheck) this.element.scrollTop = 0;
    this.#shownCheck = seen;
  }

  #kindChooser(): HTMLElement {
    const group = el('div', { className: 'kind', attrs: { role: 'radiogroup', 'aria-label': 'Provider kind' } });
    for (const [kind, label] of [
      ['lm', 'VS Code language model'],
      ['openai', 'OpenAI-compatible endpoint'],
    ] as const) {
      const input = el('input', { attrs: { type: 'radio', name: 'setup-kind', value: kind } });
      input.checked = this.#kind === kind;
      input.addEventListener('change', () => {
        this.#kind = kind;
        this.#render();
        this.element.querySelector<HTMLInputElement>(`input[value="${kind}"]`)?.focus();
      });
      group.appendChild(el('label', { className: 'radio' }, [input, el('span', { text: label })]));
    }
    return group;
  }

  #lmForm(s: SetupState): HTMLElement {
    if (s.lmModels.length === 0)
      return el('p', {
        className: 'muted',
        text: 'No VS Code language models are available. Install a provider such as GitHub Copilot Chat, or use an OpenAI-compatible endpoint.',
      });
    const select = el('select');
    for (const m of s.lmModels) {
      const o = el('option', {
        text: `${m.label}${m.vendor ? ` (${m.vendor})` : ''}${m.maxInputTokens !== undefined ? ` · ${shortTokens(m.maxInputTokens)} input` : ''}`,
        attrs: { value: m.id },
      });
      o.selected = s.provider?.kind === 'lm' && s.provider.modelId === m.id;
      select.appendChild(o);
    }
    const use = button({ icon: 'check', text: 'Use this model', label: 'Use this language model' });
    const form = el('form', { className: 'setup-form' }, [field('Language model', select), el('div', { className: 'form-actions' }, [use])]);
    use.type = 'submit';
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!select.value) return;
      this.actions.setupProvider({ kind: 'lm', modelId: select.value });
      this.actions.close(); // the host reopens it (required, with a message) if the choice does not work
    });
    return form;
  }

  #openaiForm(s: SetupState): HTMLElement {
    const current = s.provider?.kind === 'openai' ? s.provider : undefined;
    const baseUrl = el('input', {
      attrs: { type: 'url', placeholder: 'https://api.openai.com/v1', spellcheck: 'false', autocomplete: 'off', 'data-field': 'baseUrl' },
    });
    baseUrl.value = current?.baseUrl ?? '';
    const model = el('input', {
      attrs: { type: 'text', placeholder: 'gpt-4o', spellcheck: 'false', autocomplete: 'off', required: '', 'data-field': 'model' },
    });
    model.value = current?.model ?? '';
    const key = el('input', {
      attrs: {
        type: 'password',
        autocomplete: 'off',
        spellcheck: 'false',
        'data-field': 'apiKey',
        placeholder: s.hasApiKey ? '•••••••• (stored; type to replace)' : 'sk-…',
      },
    });
    const error = el('div', { className: 'form-error', attrs: { role: 'alert', id: 'setup-error' } });
    const save = button({ icon: 'check', text: 'Save', label: 'Save the provider settings' });
    save.type = 'submit';
    const form = el('form', { className: 'setup-form', attrs: { novalidate: '' } }, [
      field('Base URL', baseUrl, 'Empty means OpenAI. For example http://127.0.0.1:11434/v1 for Ollama.'),
      field('Model id', model),
      field('API key', key, s.hasApiKey ? 'A key is stored in VS Code’s secret storage.' : 'Kept in VS Code’s secret storage, never in settings.'),
      error,
      el('div', { className: 'form-actions' }, [save]),
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const url = baseUrl.value.trim();
      const id = model.value.trim();
      const problem = url !== '' && !BASE_URL.test(url) ? 'The base URL must start with http:// or https://.' : id === '' ? 'Enter the model id.' : '';
      baseUrl.setAttribute('aria-invalid', String(problem.startsWith('The base URL')));
      model.setAttribute('aria-invalid', String(problem.startsWith('Enter the model')));
      error.textContent = problem;
      if (problem) return;
      this.actions.setupProvider({ kind: 'openai', baseUrl: url, model: id });
      if (key.value.length > 0) this.actions.setApiKey(key.value);
      key.value = ''; // the key leaves the page with the message above and is not kept anywhere here
      // The panel stays open while the check runs; a pass closes it (update), a warning or an error stays in view.
      this.#awaitingCheck = true;
      this.actions.checkProvider();
    });
    return form;
  }
}
