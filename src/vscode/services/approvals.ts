// Inline, non-modal approvals of writes and commands: pending cards, VS Code's diff editor for edits, always-allow command rules (user or workspace), allow-all-edits per chat.
import * as vscode from 'vscode';
import { commandAllowed, parseRule, simpleCommandWords } from '../../node/tools/commandRules.js';
import type { ApprovalDecision, ApprovalRequest } from '../../node/tools/types.js';
import { LIMITS, LIST_LIMITS } from '../../protocol/limits.js';
import type { AllowRule, AllowRuleScope, ApprovalChoice, ApprovalView } from '../../protocol/messages.js';
import { Disposable } from '../base/disposable.js';
import { affectsMcpToolRules, allowedMcpTools, allowMcpTool, forgetMcpTool, mcpToolRules } from './mcpToolRules.js';
import { inspectSetting, writeSettingAt } from './settings.js';

/** The setting holding the always-allow rules: user settings by default, this workspace's when the user chose so; listed and removable in the view. */
const ALLOWED_COMMANDS_KEY = 'approvals.allowedCommands';
/** Proposed file contents for the diff editor live under this scheme, in memory only. */
const PROPOSED_SCHEME = 'capsule-proposed';

interface Pending {
  readonly view: ApprovalView;
  readonly req: ApprovalRequest;
  readonly proposed?: vscode.Uri;
  readonly settle: (d: ApprovalDecision) => void;
}

let counter = 0;
/** Bounded so a flood of tool calls cannot grow the card list without end; the extra ones are refused. */
const MAX_PENDING_APPROVALS = LIST_LIMITS.approvals;

function validRules(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string' && parseRule(r).ok) : [];
}

/**
 * The always-allow rules in force, with where each is kept, the bad ones left out. User and workspace lists are
 * read apart and joined: VS Code's merged value of an array is only the most specific one, which would hide the
 * user's rules as soon as a workspace had one.
 */
export function allowRules(): AllowRule[] {
  const i = inspectSetting<unknown>(ALLOWED_COMMANDS_KEY);
  const out: AllowRule[] = [];
  for (const rule of validRules(i?.globalValue)) out.push({ rule, scope: 'user' });
  for (const rule of [...validRules(i?.workspaceValue), ...validRules(i?.workspaceFolderValue)])
    if (!out.some((r) => r.rule === rule && r.scope === 'workspace')) out.push({ rule, scope: 'workspace' });
  return [...out, ...mcpToolRules()].slice(0, LIST_LIMITS.allowRules);
}

/** The rules alone, for matching. */
function allowedCommandRules(): string[] {
  return allowRules()
    .filter((r) => r.kind !== 'mcpTool')
    .map((r) => r.rule);
}

/** What a command card offers: the command's name first (editable in the card), and its first words to pick from. */
function offeredRules(command: string): string[] {
  const words = simpleCommandWords(command.trim());
  if (words === undefined) return [];
  const quoted = words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`));
  return quoted.slice(0, LIST_LIMITS.ruleChoices).map((_, i) => quoted.slice(0, i + 1).join(' '));
}

export class ApprovalService extends Disposable {
  readonly #pending = new Map<string, Pending>();
  readonly #contents = new Map<string, string>();
  readonly #emitter = this._register(new vscode.EventEmitter<void>());
  /** The chat whose edits the user allowed wholesale ("Allow all edits in this chat"). */
  #editsAllowedFor: string | undefined;
  #refusedRule: string | undefined;
  readonly onDidChange = this.#emitter.event;

  constructor(private readonly chatKey: () => string | undefined) {
    super();
    const emitter = this._register(new vscode.EventEmitter<vscode.Uri>());
    const contents = this.#contents;
    this._register(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
        onDidChange: emitter.event,
        provideTextDocumentContent: (uri) => contents.get(uri.toString()) ?? '',
      }),
    );
    // The view lists the rules: a change in the Settings editor shows there too.
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`capsule.${ALLOWED_COMMANDS_KEY}`) || affectsMcpToolRules(e)) this.#emitter.fire();
      }),
    );
    // A diff editor closed without a choice counts as Reject: nothing is written behind a closed tab.
    const groups = vscode.window.tabGroups;
    if (groups !== undefined && typeof groups.onDidChangeTabs === 'function') {
      this._register(groups.onDidChangeTabs((e) => this.#tabsClosed(e.closed)));
    }
  }

  /** What the chat shows: every approval waiting for the user, oldest first. */
  get pending(): ApprovalView[] {
    return [...this.#pending.values()].map((p) => p.view);
  }

  /** The tools' approval function: answers at once when a rule allows it, else shows a card (and the diff) and waits. */
  request = async (req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    if (signal.aborted) return { approved: false };
    if (req.kind === 'command' && req.command !== undefined && commandAllowed(req.command, allowedCommandRules())) return { approved: true };
    if (req.kind === 'write' && this.#editsAllowedFor !== undefined && this.#editsAllowedFor === this.chatKey()) return { approved: true };
    if (req.kind === 'mcp' && req.name !== undefined && allowedMcpTools().includes(req.name)) return { approved: true };
    if (this.#pending.size >= MAX_PENDING_APPROVALS) return { approved: false, feedback: 'Too many approvals are waiting; ask one at a time.' };
    const id = `ap_${++counter}_${Date.now().toString(36)}`;
    const proposed = req.kind === 'write' ? this.#propose(id, req) : undefined;
    const choices = req.kind === 'mcp' || req.command === undefined ? [] : offeredRules(req.command).filter((r) => r.length <= LIMITS.label);
    // An MCP call's "always" is the tool itself, by the name the model calls it: no prefix to shape.
    const rule = req.kind === 'mcp' ? (req.name !== undefined && req.name.length <= LIMITS.label ? req.name : undefined) : choices[0];
    const view: ApprovalView = {
      id,
      kind: req.kind,
      title: req.title.slice(0, LIMITS.label),
      ...(req.kind === 'mcp'
        ? {
            args: req.detail.slice(0, LIMITS.detail),
            ...(req.server === undefined ? {} : { server: req.server.slice(0, LIMITS.label) }),
            ...(req.tool === undefined ? {} : { tool: req.tool.slice(0, LIMITS.label) }),
          }
        : {}),
      ...(req.command === undefined ? {} : { command: req.command.slice(0, LIMITS.notice) }),
      ...(req.cwd === undefined ? {} : { cwd: req.cwd.slice(0, LIMITS.label) }),
      ...(req.path === undefined ? {} : { path: req.path.slice(0, LIMITS.label) }),
      ...(req.kind === 'write' ? { diff: req.detail.slice(0, LIMITS.detail) } : {}),
      ...(rule === undefined ? {} : req.kind === 'mcp' ? { rule } : { rule, ruleChoices: choices }),
    };
    const answer = new Promise<ApprovalDecision>((resolve) => {
      const settle = (d: ApprovalDecision): void => {
        if (!this.#pending.delete(id)) return;
        if (proposed !== undefined) this.#contents.delete(proposed.toString());
        this.#emitter.fire();
        resolve(d);
      };
      this.#pending.set(id, { view, req, settle, ...(proposed === undefined ? {} : { proposed }) });
      signal.addEventListener('abort', () => settle({ approved: false }), { once: true });
    });
    this.#emitter.fire();
    // The card offers Accept / Reject even when the diff editor could not open.
    if (proposed !== undefined) this.#openDiff(id).catch(() => undefined);
    return answer;
  };

  /** The user's answer on a card (or the diff editor's title buttons). Unknown ids (already answered) change nothing. */
  async answer(id: string, choice: ApprovalChoice, feedback?: string, chosen?: { readonly rule: string; readonly scope: AllowRuleScope }): Promise<void> {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    switch (choice) {
      case 'openDiff':
        await this.#openDiff(id).catch(() => undefined);
        return;
      case 'allow':
        p.settle({ approved: true });
        break;
      case 'allowAllEdits':
        this.#editsAllowedFor = this.chatKey();
        p.settle({ approved: true });
        // Other edits waiting in this chat are covered too.
        for (const other of [...this.#pending.values()]) if (other.req.kind === 'write') other.settle({ approved: true });
        break;
      case 'allowAlways': {
        if (p.req.kind === 'mcp') {
          // Remembered in the user's settings, the one place it is looked up: its × in the view makes the next call ask again.
          if (p.view.rule !== undefined) await allowMcpTool(p.view.rule);
          p.settle({ approved: true });
          break;
        }
        const rule = (chosen?.rule ?? p.view.rule ?? '').trim();
        const command = p.req.command ?? '';
        // The rule the user shaped must be a safe rule that allows this very command; anything else is allowed once and said so.
        if (rule !== '' && parseRule(rule).ok && commandAllowed(command, [rule])) await this.#addRule(rule, chosen?.scope ?? 'user');
        else this.#refusedRule = rule;
        p.settle({ approved: true });
        break;
      }
      case 'deny':
        p.settle({ approved: false, ...(feedback === undefined || feedback.trim() === '' ? {} : { feedback: feedback.trim() }) });
        break;
      default: {
        const _exhaustive: never = choice;
        return _exhaustive;
      }
    }
    if (p.proposed !== undefined) await this.#closeDiff(p.proposed);
  }

  /** The rule of the last "always allow" that could not be kept (not a prefix of the command, or not a simple one); read once. */
  takeRefusedRule(): string | undefined {
    const r = this.#refusedRule;
    this.#refusedRule = undefined;
    return r;
  }

  /** Removes one rule from where it is kept (the view's ×). */
  async removeRule(r: AllowRule): Promise<void> {
    if (r.kind === 'mcpTool') {
      await forgetMcpTool(r.rule);
      this.#emitter.fire();
      return;
    }
    const i = inspectSetting<unknown>(ALLOWED_COMMANDS_KEY);
    const from =
      r.scope === 'user'
        ? i?.globalValue
        : i?.workspaceFolderValue !== undefined && validRules(i.workspaceFolderValue).includes(r.rule)
          ? i.workspaceFolderValue
          : i?.workspaceValue;
    const list = Array.isArray(from) ? from.filter((x) => x !== r.rule) : [];
    const target =
      r.scope === 'user' ? 'user' : i?.workspaceFolderValue !== undefined && validRules(i.workspaceFolderValue).includes(r.rule) ? 'folder' : 'workspace';
    await writeSettingAt(ALLOWED_COMMANDS_KEY, list.length === 0 ? undefined : list, target);
    this.#emitter.fire();
  }

  async #addRule(rule: string, scope: AllowRuleScope): Promise<void> {
    const i = inspectSetting<unknown>(ALLOWED_COMMANDS_KEY);
    const current = Array.isArray(scope === 'user' ? i?.globalValue : i?.workspaceValue)
      ? ((scope === 'user' ? i?.globalValue : i?.workspaceValue) as unknown[])
      : [];
    if (current.includes(rule)) return;
    await writeSettingAt(ALLOWED_COMMANDS_KEY, [...current, rule], scope === 'user' ? 'user' : 'workspace');
  }

  /** The pending edit shown in the active diff editor, for its Accept / Reject title buttons. */
  pendingFor(uri: vscode.Uri | undefined): string | undefined {
    if (uri === undefined) return undefined;
    for (const [id, p] of this.#pending) if (p.proposed?.toString() === uri.toString()) return id;
    return undefined;
  }

  /** A new chat starts without "allow all edits". */
  forgetChat(): void {
    this.#editsAllowedFor = undefined;
  }

  override dispose(): void {
    for (const p of [...this.#pending.values()]) p.settle({ approved: false });
    super.dispose();
  }

  #propose(id: string, req: ApprovalRequest): vscode.Uri {
    const name = (req.path ?? 'file').replace(/^\/+/, '');
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${name}`, query: id });
    this.#contents.set(uri.toString(), req.after ?? '');
    return uri;
  }

  async #openDiff(id: string): Promise<void> {
    const p = this.#pending.get(id);
    if (p?.proposed === undefined) return;
    const current = p.req.before === undefined || p.req.absolutePath === undefined ? emptyLeft(p.proposed) : vscode.Uri.file(p.req.absolutePath);
    if (current.scheme === PROPOSED_SCHEME) this.#contents.set(current.toString(), '');
    await vscode.commands.executeCommand('vscode.diff', current, p.proposed, `${p.view.title} (current ↔ proposed)`, { preview: false, preserveFocus: true });
  }

  async #closeDiff(proposed: vscode.Uri): Promise<void> {
    const groups = vscode.window.tabGroups;
    if (groups === undefined) return;
    const tabs = groups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed.toString());
    if (tabs.length > 0) await groups.close(tabs);
  }

  #tabsClosed(closed: readonly vscode.Tab[]): void {
    for (const t of closed) {
      if (!(t.input instanceof vscode.TabInputTextDiff) || t.input.modified.scheme !== PROPOSED_SCHEME) continue;
      const id = this.pendingFor(t.input.modified);
      if (id !== undefined) this.#pending.get(id)?.settle({ approved: false });
    }
  }
}

/** The left side of a new file's diff: an empty document of the same name. */
function emptyLeft(proposed: vscode.Uri): vscode.Uri {
  return proposed.with({ query: `${proposed.query}-empty` });
}
