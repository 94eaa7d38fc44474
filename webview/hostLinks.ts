// What a link, a path or a code block's button in the chat or the capsule viewer asks of the host: copy, insert or apply code, open a link or a file.
import { LIMITS, PATH_MAX } from '../src/protocol/limits.js';
import type { Announcer } from './dom.js';
import type { ListActions } from './listActions.js';
import type { HostApi } from './vscodeApi.js';

export type LinkActions = Pick<ListActions, 'copy' | 'codeBlock' | 'openLink' | 'openFile'>;

export function linkActions(host: HostApi, announcer: Announcer): LinkActions {
  /** Brief visual and spoken confirmation on the button that copied. */
  function copied(from: HTMLElement): void {
    const glyph = from.querySelector('.codicon');
    glyph?.classList.replace('codicon-copy', 'codicon-check');
    window.setTimeout(() => glyph?.classList.replace('codicon-check', 'codicon-copy'), 1500);
    announcer.say('Copied');
  }
  return {
    copy: (text, from) => {
      host.post({ type: 'copy', text: text.slice(0, 2_000_000) });
      copied(from);
    },
    /** A code block's Insert at Cursor, Apply to File or New File: the host does it in the editor. */
    codeBlock: (action, code, language) =>
      host.post({
        type: 'codeBlock',
        action,
        code: code.slice(0, 2_000_000),
        ...(language === undefined || language === '' ? {} : { language: language.slice(0, LIMITS.id) }),
      }),
    openLink: (href) => host.post({ type: 'openLink', href: href.slice(0, 8192) }),
    /** A path the user clicked in an answer, a tool row or the capsule viewer; the host checks it before opening. */
    openFile: (path, line, column) => {
      if (path.length === 0 || path.length > PATH_MAX) return;
      host.post({ type: 'openFile', path, ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }) });
    },
  };
}
