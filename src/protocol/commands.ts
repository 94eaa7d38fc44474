// The one catalog of the chat's commands: slash syntax and arguments, palette id and title, icon, queueing, help. Pure data (the webview imports it too).

/** One argument of a slash command, in the order typed. */
type ArgSpec =
  /** The rest of the line, surrounding quotes removed. `quoted`: the popup opens a quote for it. */
  | { readonly kind: 'text'; readonly name: string; readonly label: string; readonly optional?: true; readonly quoted?: true }
  /** One word out of a fixed list; each choice gets its own line in the popup. */
  | { readonly kind: 'choice'; readonly name: string; readonly choices: readonly { readonly value: string; readonly help: string }[]; readonly optional?: true }
  /** A checkpoint id (`ck_…`); the popup completes the chat's own. */
  | { readonly kind: 'checkpoint'; readonly name: string };

export interface CommandSpec {
  /** Typed in the chat as `/name args` (`name` may be two words, e.g. `capsule export`). */
  readonly slash?: { readonly name: string; readonly args: readonly ArgSpec[] };
  /** Contributed in package.json under this id and title (category Capsule; a manifest test checks both). */
  readonly palette?: { readonly id: `capsule.${string}`; readonly title: string };
  /** A codicon: the palette's `$(icon)` and the chat view's button. */
  readonly icon?: string;
  /** A button in the chat view's header, with this label for screen readers. */
  readonly toolbar?: string;
  /** Waits for the running turn (in the work queue); false: reads or flips a setting and answers at once. */
  readonly waitsTurn: boolean;
  /** One line for `/help` and the popup. */
  readonly help: string;
}

export const COMMANDS = {
  compact: {
    slash: { name: 'compact', args: [{ kind: 'text', name: 'focus', label: 'focus', optional: true }] },
    palette: { id: 'capsule.compactContext', title: 'Compact Context' },
    icon: 'fold',
    toolbar: 'Compact context now',
    waitsTurn: true,
    help: 'Compact the context now; optional focus for the summary',
  },
  budget: {
    slash: { name: 'budget', args: [] },
    palette: { id: 'capsule.showBudget', title: 'Show Context Budget' },
    icon: 'pulse',
    waitsTurn: false,
    help: 'Show the context budget',
  },
  autoCompact: {
    slash: {
      name: 'auto-compact',
      args: [
        {
          kind: 'choice',
          name: 'state',
          choices: [
            { value: 'on', help: 'Turn automatic compaction on' },
            { value: 'off', help: 'Turn soft triggers off (hard-limit protection stays on)' },
          ],
        },
      ],
    },
    waitsTurn: false,
    help: 'Turn automatic compaction on or off',
  },
  toggleAutoCompact: {
    palette: { id: 'capsule.toggleAutoCompact', title: 'Toggle Auto-Compact' },
    waitsTurn: false,
    help: 'Flip automatic compaction',
  },
  checkpoint: {
    slash: { name: 'checkpoint', args: [{ kind: 'text', name: 'note', label: 'note', optional: true }] },
    palette: { id: 'capsule.createCheckpoint', title: 'Create Checkpoint…' },
    icon: 'pin',
    waitsTurn: true,
    help: 'Mark this moment; rewind to it from the Checkpoints tree',
  },
  milestone: {
    slash: { name: 'milestone', args: [{ kind: 'text', name: 'note', label: 'note', optional: true }] },
    palette: { id: 'capsule.markMilestone', title: 'Mark Milestone…' },
    icon: 'milestone',
    waitsTurn: true,
    help: 'Record a milestone (compacts at the next request when auto-compact is on)',
  },
  pivot: {
    slash: { name: 'pivot', args: [{ kind: 'text', name: 'note', label: 'note', optional: true }] },
    palette: { id: 'capsule.markPivot', title: 'Mark Plan Pivot…' },
    icon: 'git-compare',
    waitsTurn: true,
    help: 'Record a plan pivot (compacts at the next request when auto-compact is on)',
  },
  capsuleShow: {
    slash: { name: 'capsule', args: [] },
    palette: { id: 'capsule.showLatestCapsule', title: 'Show Latest Capsule' },
    icon: 'package',
    waitsTurn: false,
    help: 'Show the latest capsule',
  },
  capsuleCreate: {
    slash: { name: 'capsule create', args: [{ kind: 'text', name: 'title', label: 'title', quoted: true }] },
    palette: { id: 'capsule.createCapsule', title: 'Create Portable Capsule…' },
    waitsTurn: true,
    help: 'Save the current state as a portable capsule',
  },
  capsuleExport: {
    slash: {
      name: 'capsule export',
      args: [
        { kind: 'checkpoint', name: 'checkpointId' },
        { kind: 'text', name: 'path', label: 'path' },
      ],
    },
    waitsTurn: false,
    help: 'Write a checkpoint’s capsule to a .capsule.md file',
  },
  capsuleLoad: {
    slash: { name: 'capsule load', args: [{ kind: 'text', name: 'path', label: 'path' }] },
    palette: { id: 'capsule.loadCapsule', title: 'Load Capsule…' },
    icon: 'folder-opened',
    waitsTurn: true,
    help: 'Load a .capsule.md file as data',
  },
  mode: {
    slash: {
      name: 'mode',
      args: [
        {
          kind: 'choice',
          name: 'mode',
          optional: true,
          choices: [
            { value: 'ask', help: 'Ask mode: read-only, writes and commands are refused' },
            { value: 'agent', help: 'Agent mode: edits and commands with your approval' },
          ],
        },
      ],
    },
    waitsTurn: true,
    help: 'Show or switch the chat mode',
  },
  skills: {
    slash: { name: 'skills', args: [] },
    waitsTurn: false,
    help: 'List the skills, their tokens and which are active',
  },
  help: {
    slash: { name: 'help', args: [] },
    waitsTurn: false,
    help: 'List the commands',
  },
  newChat: {
    palette: { id: 'capsule.newChat', title: 'New Chat' },
    icon: 'add',
    toolbar: 'New chat',
    waitsTurn: false,
    help: 'Start a new chat',
  },
  refresh: {
    palette: { id: 'capsule.refresh', title: 'Refresh' },
    icon: 'refresh',
    waitsTurn: false,
    help: 'Reload the chat from its file',
  },
} as const satisfies Record<string, CommandSpec>;

type Catalog = typeof COMMANDS;
type CommandId = keyof Catalog;
/** Commands typed in the chat. */
export type SlashCommandId = { [K in CommandId]: Catalog[K] extends { readonly slash: object } ? K : never }[CommandId];
/** Commands in VS Code's command palette. */
export type PaletteCommandId = { [K in CommandId]: Catalog[K] extends { readonly palette: object } ? K : never }[CommandId];
/** What the chat view may ask to run (its buttons and the budget panel's): the palette's commands, by catalog id. */
export type ViewCommandId = PaletteCommandId;

type ArgsOf<K extends SlashCommandId> = Catalog[K] extends { readonly slash: { readonly args: infer A extends readonly ArgSpec[] } } ? A : never;
type ValueOf<A> = A extends { readonly choices: readonly { readonly value: infer V }[] } ? V : string;
type ArgValues<A extends readonly ArgSpec[]> = {
  readonly [S in A[number] as S extends { readonly optional: true } ? never : S['name']]: ValueOf<S>;
} & {
  readonly [S in A[number] as S extends { readonly optional: true } ? S['name'] : never]?: ValueOf<S>;
};

/** A parsed slash command: its id and its arguments by name. */
export type ChatCommand = { [K in SlashCommandId]: { readonly kind: K } & ArgValues<ArgsOf<K>> }[SlashCommandId];
/** A command with bad arguments, or an unknown one: the message says what would work. */
export interface InvalidCommand {
  readonly kind: 'invalid';
  readonly message: string;
}

/** What the parser makes of a line that starts with a slash. */
export type ParsedSlash = ChatCommand | InvalidCommand;

const entries = Object.entries(COMMANDS) as [CommandId, CommandSpec][];
const slashEntries = entries.flatMap(([id, spec]) => (spec.slash === undefined ? [] : [{ id: id as SlashCommandId, ...spec.slash, spec }]));
export const PALETTE_COMMAND_IDS = entries.flatMap(([id, spec]) => (spec.palette === undefined ? [] : [id])) as readonly PaletteCommandId[];
export const VIEW_COMMAND_IDS: readonly ViewCommandId[] = [...PALETTE_COMMAND_IDS];

function argUsage(a: ArgSpec): string {
  if (a.kind === 'checkpoint') return 'ck_…';
  if (a.kind === 'choice') {
    const list = a.choices.map((c) => c.value).join('|');
    return a.optional === true ? `[${list}]` : list;
  }
  const label = a.quoted === true ? `"${a.label}"` : a.label;
  return a.optional === true ? `[${label}]` : label;
}

/** `/name args` as the user types it, e.g. `/capsule export ck_… path`. */
function usageOf(id: SlashCommandId): string {
  const s = COMMANDS[id].slash;
  return [`/${s.name}`, ...s.args.map(argUsage)].join(' ');
}

/** Every command in one line: appended to a bad command's message. */
export const SLASH_HELP = `Commands: ${slashEntries.map((e) => usageOf(e.id)).join(', ')}`;

/** `/help`: one line per command. */
export function helpLines(): string[] {
  return slashEntries.map((e) => `${usageOf(e.id)} — ${e.spec.help}`);
}

/** A whole argument: surrounding matching quotes removed. */
function unquote(text: string): string {
  const t = text.trim();
  const q = t[0];
  return (q === '"' || q === "'") && t.length >= 2 && t.endsWith(q) ? t.slice(1, -1) : t;
}

function invalid(message: string): InvalidCommand {
  return { kind: 'invalid', message: `${message}. ${SLASH_HELP}` };
}

/** The arguments of one command by its catalog spec, or what is wrong with them. */
function parseArgs(
  id: SlashCommandId,
  args: readonly ArgSpec[],
  rest: string,
): { readonly values: Record<string, string> } | { readonly error: InvalidCommand } {
  const out: Record<string, string> = {};
  let left = rest.trim();
  const usage = `Usage: ${usageOf(id)}`;
  for (const a of args) {
    if (a.kind === 'text') {
      const value = unquote(left);
      left = '';
      if (value === '') {
        if (a.optional === true) continue;
        return { error: invalid(a.quoted === true ? `Give it a ${a.label}: ${usageOf(id)}` : usage) };
      }
      out[a.name] = value;
      continue;
    }
    const m = /^(\S+)\s*([\s\S]*)$/.exec(left);
    const word = m?.[1];
    if (word === undefined) {
      if (a.kind === 'choice' && a.optional === true) continue;
      return { error: invalid(usage) };
    }
    const ok = a.kind === 'choice' ? a.choices.some((c) => c.value === word) : /^ck_[A-Za-z0-9_-]+$/.test(word);
    if (!ok) return { error: invalid(usage) };
    out[a.name] = word;
    left = m?.[2] ?? '';
  }
  if (left.trim() !== '') return { error: invalid(args.length === 0 ? `/${COMMANDS[id].slash.name} takes no arguments` : usage) };
  return { values: out };
}

/**
 * The command in `text`, or undefined when it is a plain message. Only `/word` at the very start counts,
 * so a message that begins with a path such as `/usr/bin/env` still goes to the model.
 */
export function parseSlash(text: string): ParsedSlash | undefined {
  const m = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, name = '', rawRest = ''] = m;
  const rest = rawRest.trim();
  // Two-word forms (`/capsule export`) before their one-word parent (`/capsule`).
  const sub = /^([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(rest);
  const two = sub === null ? undefined : slashEntries.find((e) => e.name === `${name} ${sub[1] ?? ''}`);
  const entry = two ?? slashEntries.find((e) => e.name === name);
  if (entry === undefined) return invalid(`Unknown command /${name}`);
  if (two === undefined && slashEntries.some((e) => e.name.startsWith(`${name} `)) && entry.args.length === 0 && rest !== '') {
    return invalid(`Unknown /${name} command "${sub?.[1] ?? rest}"`);
  }
  const args = parseArgs(entry.id, entry.args, two === undefined ? rest : (sub?.[2] ?? ''));
  if ('error' in args) return args.error;
  // The values match the spec the parser just followed; the type says which names each command gets.
  return { kind: entry.id, ...args.values } as ChatCommand;
}

/** Commands that only read or flip a setting run at once, even while a turn is busy; the rest wait their turn. */
export function runsImmediately(c: ParsedSlash): boolean {
  return c.kind === 'invalid' || !COMMANDS[c.kind].waitsTurn;
}

/** One line of the slash popup. */
export interface SlashCompletion {
  /** What the popup shows, with argument placeholders. */
  readonly label: string;
  /** What picking it puts in the input. */
  readonly insert: string;
  readonly detail: string;
}

/** The popup's lines: one per command, one per choice of a command whose first argument is a choice. */
export const SLASH_COMPLETIONS: readonly SlashCompletion[] = slashEntries.flatMap((e): SlashCompletion[] => {
  const base = `/${e.name}`;
  const first = e.args[0];
  if (first?.kind === 'choice') return first.choices.map((c) => ({ label: `${base} ${c.value}`, insert: `${base} ${c.value}`, detail: c.help }));
  const insert = first === undefined ? base : first.kind === 'text' && first.quoted === true ? `${base} "` : `${base} `;
  return [{ label: usageOf(e.id), insert, detail: e.spec.help }];
});
