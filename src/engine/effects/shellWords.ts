// A small POSIX-shell reader: splits a command line into simple commands (words, redirections, heredoc bodies), honouring quotes.
interface Redirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<`, with any fd prefix removed. */
  readonly op: string;
  readonly fd: number | null;
  readonly target: string;
}

export interface SimpleCommand {
  readonly words: readonly string[];
  readonly redirects: readonly Redirect[];
  /** Bodies of `<<` heredocs, in order. */
  readonly heredocs: readonly string[];
  /** The operator that joined this command to the next one: `|`, `&&`, `||`, `;`, `&`, newline, or '' at the end. */
  readonly then: string;
}

interface Word {
  text: string;
  /** True when any part was quoted: `'>'` is a word, not a redirection. */
  quoted: boolean;
}

const OPERATORS = ['&&', '||', ';;', '|&', '|', ';', '&', '\n', '(', ')'];
const REDIRECTS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<&', '<>', '>', '<'];

/** Reads `$( … )`, `` ` … ` `` and `${ … }` as opaque text so their operators do not split the outer command. */
function skipNested(s: string, i: number): number {
  const open = s[i];
  if (open === '`') {
    const end = s.indexOf('`', i + 1);
    return end === -1 ? s.length : end + 1;
  }
  const close = s[i + 1] === '(' ? ')' : '}';
  const opener = s[i + 1] ?? '';
  let depth = 0;
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === opener) depth++;
    else if (s[j] === close && --depth === 0) return j + 1;
  }
  return s.length;
}

/** Splits `text` into simple commands; never throws (an unterminated quote runs to the end). */
export function parseShell(text: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let words: Word[] = [];
  let redirects: Redirect[] = [];
  let heredocs: string[] = [];
  let pendingHeredocs: { delim: string; strip: boolean; into: string[] }[] = [];
  let pendingRedirect: { op: string; fd: number | null } | undefined;
  let cur: Word | undefined;
  const s = text;

  const endWord = (): void => {
    if (cur === undefined) return;
    const w = cur;
    cur = undefined;
    if (pendingRedirect) {
      const r = pendingRedirect;
      pendingRedirect = undefined;
      if (r.op === '<<' || r.op === '<<-') pendingHeredocs.push({ delim: w.text, strip: r.op === '<<-', into: heredocs });
      else redirects.push({ op: r.op, fd: r.fd, target: w.text });
      return;
    }
    words.push(w);
  };
  const endCommand = (then: string): void => {
    endWord();
    if (words.length > 0 || redirects.length > 0 || heredocs.length > 0) out.push({ words: words.map((w) => w.text), redirects, heredocs, then });
    words = [];
    redirects = [];
    heredocs = [];
  };
  const readHeredocs = (from: number): number => {
    let i = from;
    for (const h of pendingHeredocs) {
      const body: string[] = [];
      while (i < s.length) {
        const nl = s.indexOf('\n', i);
        const line = s.slice(i, nl === -1 ? s.length : nl);
        i = nl === -1 ? s.length : nl + 1;
        const cmp = h.strip ? line.replace(/^\t+/, '') : line;
        if (cmp === h.delim) break;
        body.push(line);
      }
      h.into.push(body.join('\n'));
    }
    pendingHeredocs = [];
    return i;
  };
  const word = (): Word => (cur ??= { text: '', quoted: false });

  let i = 0;
  while (i < s.length) {
    const c = s[i] ?? '';
    if (c === '\\' && i + 1 < s.length) {
      if (s[i + 1] !== '\n') word().text += s[i + 1];
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      const w = word();
      w.text += s.slice(i + 1, end === -1 ? s.length : end);
      w.quoted = true;
      i = end === -1 ? s.length : end + 1;
      continue;
    }
    if (c === '"') {
      const w = word();
      w.quoted = true;
      let j = i + 1;
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`'.includes(s[j + 1] ?? '')) {
          w.text += s[j + 1];
          j += 2;
        } else w.text += s[j++];
      }
      i = j + 1;
      continue;
    }
    if (c === '$' && (s[i + 1] === '(' || s[i + 1] === '{')) {
      const end = skipNested(s, i);
      word().text += s.slice(i, end);
      i = end;
      continue;
    }
    if (c === '`') {
      const end = skipNested(s, i);
      word().text += s.slice(i, end);
      i = end;
      continue;
    }
    if (c === '#' && cur === undefined) {
      const nl = s.indexOf('\n', i);
      i = nl === -1 ? s.length : nl;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
      continue;
    }
    // A redirection, possibly with a file-descriptor prefix that is the word so far (`2>`).
    const redirect = REDIRECTS.find((r) => s.startsWith(r, i));
    if (redirect !== undefined) {
      let fd: number | null = null;
      if (cur !== undefined && !cur.quoted && /^\d$/.test(cur.text)) {
        fd = Number(cur.text);
        cur = undefined;
      } else endWord();
      i += redirect.length;
      if (redirect === '>&' || redirect === '<&') {
        // `2>&1` duplicates a descriptor; `>& file` (csh style) writes a file.
        const m = /^\s*(\d+|-)/.exec(s.slice(i));
        if (m) {
          i += m[0].length;
          continue;
        }
        pendingRedirect = { op: '&>', fd };
        continue;
      }
      pendingRedirect = { op: redirect, fd };
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, i));
    if (op !== undefined) {
      endCommand(op === '(' || op === ')' ? ';' : op);
      i += op.length;
      // Heredoc bodies start on the next line; each belongs to the command that opened it.
      if (op === '\n' && pendingHeredocs.length > 0) i = readHeredocs(i);
      continue;
    }
    word().text += c;
    i++;
  }
  if (pendingHeredocs.length > 0) i = readHeredocs(i);
  endCommand('');
  return out;
}
