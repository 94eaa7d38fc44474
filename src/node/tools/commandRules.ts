// "Always allow commands starting with …" rules: a command matches only when it is one simple command whose parsed words begin with the rule's words.

/**
 * The words of a simple shell command, quotes removed, or undefined when the line is anything more: a list
 * (`;`, `&&`, `||`, `&`), a pipe, a redirection, a substitution (`$(…)`, backticks, `$VAR`), a subshell, a
 * newline or an unclosed quote. A rule never vouches for what such a line does beyond its first command.
 */
export function simpleCommandWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '$' || c === '`') return undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\'.includes(line[i + 1] ?? '')) word += line[++i] ?? '';
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    if (';&|<>()`$\n\r{}*?[]~!#'.includes(c)) return undefined;
    if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined || next === '\n') return undefined;
      word += next;
      i++;
      inWord = true;
      continue;
    }
    word += c;
    inWord = true;
  }
  if (quote !== undefined) return undefined;
  if (inWord) words.push(word);
  return words.length === 0 ? undefined : words;
}

/** The rule's words if it is a usable rule (a simple command line), else a one-line reason. */
export function parseRule(rule: string): { readonly ok: true; readonly words: readonly string[] } | { readonly ok: false; readonly error: string } {
  const words = simpleCommandWords(rule.trim());
  if (words === undefined) return { ok: false, error: `"${rule}" is not a simple command prefix (no ;, &&, |, redirections, $ or quotes left open).` };
  return { ok: true, words };
}

/** True when `command` is a simple command whose words start with the words of one of `rules`. */
export function commandAllowed(command: string, rules: readonly string[]): boolean {
  const words = simpleCommandWords(command.trim());
  if (words === undefined) return false;
  return rules.some((r) => {
    const p = parseRule(r);
    return p.ok && p.words.length <= words.length && p.words.every((w, i) => words[i] === w);
  });
}

/** The rule offered for a command: its first two words ("npm test", "git status"), or undefined when no rule could match it. */
export function suggestedRule(command: string): string | undefined {
  const words = simpleCommandWords(command.trim());
  if (words === undefined) return undefined;
  const prefix = words.slice(0, Math.min(2, words.length));
  // Quote only what needs it, so the rule reads like the command.
  return prefix.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
