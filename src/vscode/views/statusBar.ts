// The status bar meter: "$(pulse) 38.4k / 48.8k", warning/error colours past the soft/hard limits, click for the report.
import * as vscode from 'vscode';
import type { Budget } from '../../engine/tokens/budget.js';
import { budgetRowGroups, type BudgetRow } from '../../engine/tokens/budgetFormat.js';
import { fullTokens, shortTokens } from '../../protocol/format.js';
import type { OpenChat } from '../services/chatPorts.js';
import type { ChatChange } from '../services/chatService.js';

export class BudgetStatusBar implements vscode.Disposable {
  readonly #item: vscode.StatusBarItem;
  readonly #listener: vscode.Disposable;

  constructor(
    private readonly host: OpenChat,
    onDidChange: vscode.Event<ChatChange>,
  ) {
    this.#item = vscode.window.createStatusBarItem('capsule.budget', vscode.StatusBarAlignment.Right, 100);
    this.#item.name = 'Capsule Context Budget';
    this.#item.command = 'capsule.showBudget';
    this.#listener = onDidChange((c) => {
      if (c.kind === 'budget' || c.kind === 'state') this.update();
    });
    this.update();
  }

  update(): void {
    const b = this.host.budget;
    if (!b) {
      this.#item.text = '$(pulse) –';
      this.#item.tooltip = this.host.problem ?? 'Capsule: no chat open yet';
      this.#item.backgroundColor = undefined;
      this.#item.show();
      return;
    }
    // The same figure as the chat's meter: effective tokens of the next request against the hard limit.
    // An assumed window makes the hard limit an assumption too: the item says so instead of passing it off as known.
    this.#item.text = `$(pulse) ${shortTokens(b.effectiveTokens)} / ${shortTokens(b.hardLimit)}${b.windowSource === 'default' ? ' $(warning) window unknown' : ''}`;
    const open = this.host.open;
    this.#item.tooltip = tooltipOf(b, open?.online === true ? open.mcpBudget() : undefined);
    this.#item.accessibilityInformation = {
      label: `Capsule context: ${fullTokens(b.effectiveTokens)} of ${fullTokens(b.hardLimit)} tokens, ${b.source}`,
      role: 'button',
    };
    this.#item.backgroundColor =
      b.effectiveTokens > b.hardLimit
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : b.effectiveTokens >= b.softLimit
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.#item.show();
  }

  dispose(): void {
    this.#listener.dispose();
    this.#item.dispose();
  }
}

/**
 * The tooltip: the rows `/budget` prints, from the same function (budgetRowGroups), as a Markdown table: where the
 * tokens go first (the meter's categories and what is free), then the Context Stats.
 */
function tooltipOf(b: Budget, mcp?: string): vscode.MarkdownString {
  const g = budgetRowGroups(b);
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown('**Capsule context budget**\n\n');
  md.appendText(`${fullTokens(b.effectiveTokens)} / ${fullTokens(b.hardLimit)} tokens (${b.model})\n`);
  if (b.windowSource === 'default')
    md.appendText(`\nContext window unknown: Capsule assumes ${fullTokens(b.contextWindow)} tokens. Set capsule.model.contextWindow.\n`);
  md.appendMarkdown('\n\n');
  const table = (title: string, rows: readonly BudgetRow[]): void => {
    md.appendMarkdown(`| ${title} | |\n| --- | ---: |\n`);
    for (const [label, value] of rows) md.appendMarkdown(`| ${cell(label)} | ${cell(value.trim())} |\n`);
    md.appendMarkdown('\n');
  };
  table('Category', g.categories);
  table('Context Stats', g.stats);
  // The MCP share of the tools row: per-server schema tokens and whether they are deferred.
  if (mcp !== undefined) md.appendText(`${mcp}\n\n`);
  md.appendMarkdown('_Click for the full report._');
  return md;
}

/** A table cell: Markdown's own characters and the pipe escaped, so a model name cannot break the table. */
function cell(text: string): string {
  return text.replace(/[\\`*_[\]|<>~]/g, '\\$&');
}
