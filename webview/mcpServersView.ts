// The setup panel's list of MCP servers: status, tool count and schema tokens of each, why one failed, and its Restart / Disable / Enable.
import type { McpServerAction, McpServerView } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';

const STATUS_WORDS: Readonly<Record<McpServerView['status'], string>> = {
  starting: 'starting…',
  ready: 'running',
  restarting: 'restarting…',
  failed: 'failed',
  stopped: 'stopped',
  disabled: 'disabled in this workspace',
};

const STATUS_ICONS: Readonly<Record<McpServerView['status'], string>> = {
  starting: 'loading',
  ready: 'pass',
  restarting: 'loading',
  failed: 'error',
  stopped: 'circle-slash',
  disabled: 'circle-slash',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The figures line: "14 tools · 1682 schema tokens · stdio · .mcp.json". */
function figures(s: McpServerView): string {
  const parts = s.status === 'disabled' ? [] : [plural(s.tools, 'tool'), `${s.schemaTokens} schema tokens`];
  if (s.transport !== undefined) parts.push(s.transport);
  if (s.source !== undefined && s.source !== '') parts.push(s.source);
  return parts.join(' · ');
}

function row(s: McpServerView, act: (name: string, action: McpServerAction) => void): HTMLElement {
  const busy = s.status === 'starting' || s.status === 'restarting';
  const head = el('div', { className: 'mcp-server-head' }, [
    icon(STATUS_ICONS[s.status], busy ? 'codicon-modifier-spin' : ''),
    el('strong', { className: 'mcp-server-name', text: s.name }),
    el('span', { className: `mcp-status mcp-status-${s.status}`, text: STATUS_WORDS[s.status] }),
  ]);
  const actions = el('div', { className: 'mcp-actions' });
  const add = (action: McpServerAction, text: string, label: string, codicon: string): void => {
    const b = button({ icon: codicon, text, label, className: 'mcp-action', data: { mcpAction: action } });
    // Starting or restarting already: a second Restart would only start it over.
    if (action === 'restart' && busy) b.disabled = true;
    b.addEventListener('click', () => {
      b.disabled = true; // the host's next list enables it again
      act(s.name, action);
    });
    actions.appendChild(b);
  };
  if (s.status === 'disabled') add('enable', 'Enable', `Enable the MCP server ${s.name} in this workspace`, 'play');
  else {
    add('restart', 'Restart', `Restart the MCP server ${s.name}`, 'refresh');
    add('disable', 'Disable', `Stop the MCP server ${s.name} and keep it off in this workspace`, 'circle-slash');
  }
  const children: Node[] = [head, el('div', { className: 'muted mcp-figures', text: figures(s) })];
  // Why it failed, with the end of its error output: said here once, on its own row, not repeated per tool.
  if (s.error !== undefined && (s.status === 'failed' || s.status === 'restarting')) children.push(el('pre', { className: 'mcp-error', text: s.error }));
  children.push(actions);
  return el('li', { className: `mcp-server mcp-${s.status}`, attrs: { 'data-mcp-server': s.name } }, children);
}

/** The section; `servers` undefined or empty says where servers are configured. */
export function mcpServersSection(servers: readonly McpServerView[], act: (name: string, action: McpServerAction) => void): HTMLElement {
  const title = el('h3', { text: 'MCP servers', attrs: { id: 'mcp-servers-title' } });
  if (servers.length === 0) {
    return el('div', { className: 'mcp-servers' }, [
      title,
      el('p', {
        className: 'muted',
        text: 'None running. Add servers in .mcp.json, .vscode/mcp.json or the capsule.mcp.servers setting; they start with the next chat.',
      }),
    ]);
  }
  const list = el('ul', { className: 'mcp-server-list', attrs: { 'aria-labelledby': 'mcp-servers-title' } });
  for (const s of servers) list.appendChild(row(s, act));
  const total = servers.reduce((n, s) => n + (s.status === 'disabled' ? 0 : s.schemaTokens), 0);
  return el('div', { className: 'mcp-servers' }, [
    title,
    list,
    el('p', {
      className: 'muted help',
      text: `Their tool schemas: ${total} tokens with every request. Disable keeps a server off in this workspace until you enable it again.`,
    }),
  ]);
}
