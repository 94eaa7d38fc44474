// Parses the chat's slash commands (docs/behaviour.md#observability, #portable, docs/rewind.md): /compact, /budget, /auto-compact, /checkpoint, /milestone, /pivot, /capsule.

export type SlashCommand =
  | { readonly kind: 'compact'; readonly focus?: string }
  | { readonly kind: 'budget' }
  | { readonly kind: 'autoCompact'; readonly on: boolean }
  | { readonly kind: 'capsuleShow' }
  | { readonly kind: 'capsuleCreate'; readonly title: string }
  | { readonly kind: 'capsuleExport'; readonly checkpointId: string; readonly path: string }
  | { readonly kind: 'capsuleLoad'; readonly path: string }
  /** `/checkpoint [note]`, `/milestone [note]`, `/pivot [note]`: a checkpoint of that kind. */
  | { readonly kind: 'checkpoint'; readonly checkpointKind: 'user' | 'milestone' | 'plan_pivot'; readonly note?: string }
  /** `/mode [agent|ask]`: show or switch the chat mode (docs/user/chat.md#modes-agent-and-ask). */
  | { readonly kind: 'mode'; readonly mode?: 'agent' | 'ask' }
  /** `/skills`: the skills found, their tokens, which are active. */
  | { readonly kind: 'skills' }
  /** A command with bad arguments, or an unknown one: the message says what would work. */
  | { readonly kind: 'invalid'; readonly message: string };

export const SLASH_HELP = 'Commands: /compact [focus], /budget, /auto-compact on|off, /checkpoint [note], /milestone [note], /pivot [note], /capsule, /capsule create "title", /capsule export ck_… path, /capsule load path, /mode agent|ask, /skills';

/** A whole argument: surrounding matching quotes removed. */
function unquote(text: string): string {
  const t = text.trim();
  const q = t[0];
  return (q === '"' || q === "'") && t.length >= 2 && t.endsWith(q) ? t.slice(1, -1) : t;
}

function invalid(message: string): SlashCommand {
  return { kind: 'invalid', message: `${message}. ${SLASH_HELP}` };
}

function capsule(rest: string): SlashCommand {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(rest);
  if (!m) return { kind: 'capsuleShow' };
  const [, sub = '', args = ''] = m;
  switch (sub) {
    case 'create': {
      const title = unquote(args);
      return title === '' ? invalid('Give the capsule a title: /capsule create "title"') : { kind: 'capsuleCreate', title };
    }
    case 'export': {
      const e = /^(ck_[A-Za-z0-9_-]+)\s+([\s\S]+)$/.exec(args.trim());
      return e?.[1] && e[2] ? { kind: 'capsuleExport', checkpointId: e[1], path: unquote(e[2]) } : invalid('Usage: /capsule export ck_… path');
    }
    case 'load': {
      const path = unquote(args);
      return path === '' ? invalid('Usage: /capsule load path') : { kind: 'capsuleLoad', path };
    }
    default:
      return invalid(`Unknown /capsule command "${sub}"`);
  }
}

/**
 * The command in `text`, or undefined when it is a plain message. Only `/word` at the very start counts,
 * so a message that begins with a path such as `/usr/bin/env` still goes to the model.
 */
export function parseSlash(text: string): SlashCommand | undefined {
  const m = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, name = '', rawRest = ''] = m;
  const rest = rawRest.trim();
  switch (name) {
    case 'compact':
      return rest === '' ? { kind: 'compact' } : { kind: 'compact', focus: unquote(rest) };
    case 'budget':
      return rest === '' ? { kind: 'budget' } : invalid('/budget takes no arguments');
    case 'auto-compact':
      if (rest === 'on' || rest === 'off') return { kind: 'autoCompact', on: rest === 'on' };
      return invalid('Usage: /auto-compact on|off');
    case 'capsule':
      return capsule(rest);
    case 'mode':
      if (rest === '') return { kind: 'mode' };
      return rest === 'agent' || rest === 'ask' ? { kind: 'mode', mode: rest } : invalid('Usage: /mode agent|ask');
    case 'skills':
      return rest === '' ? { kind: 'skills' } : invalid('/skills takes no arguments');
    case 'checkpoint':
    case 'milestone':
    case 'pivot': {
      const checkpointKind = name === 'checkpoint' ? 'user' : name === 'milestone' ? 'milestone' : 'plan_pivot';
      const note = unquote(rest);
      return note === '' ? { kind: 'checkpoint', checkpointKind } : { kind: 'checkpoint', checkpointKind, note };
    }
    default:
      return invalid(`Unknown command /${name}`);
  }
}

/** Commands that only read or flip a setting run at once, even while a turn is busy; the rest wait their turn. */
export function runsImmediately(c: SlashCommand): boolean {
  switch (c.kind) {
    case 'budget':
    case 'autoCompact':
    case 'capsuleShow':
    case 'capsuleExport':
    case 'skills':
    case 'invalid':
      return true;
    // A switch waits for the running turn, so the turn keeps the mode it started in.
    case 'mode':
    case 'compact':
    case 'capsuleCreate':
    case 'capsuleLoad':
    case 'checkpoint':
      return false;
  }
}
