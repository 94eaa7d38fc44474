// Webview entry: ready handshake, validated host messages dispatched to the views, user intents posted back.
import type { HostToWebview } from '../src/protocol/messages.js';
import { fillTranscript } from './subagentCard.js';
import { ApprovalCards, approvalMessage } from './approvalCards.js';
import { BarrierStrip } from './barrierView.js';
import { CapsuleViewer } from './capsuleViewer.js';
import { Composer } from './composer.js';
import { ERROR_ACTION_EVENT, type ErrorAction } from './errorCard.js';
import { Announcer } from './dom.js';
import { Banners } from './banners.js';
import { linkActions } from './hostLinks.js';
import { listenToHost } from './hostInbox.js';
import { ChatHeader } from './header.js';
import { PlanStrip } from './planView.js';
import { SetupPanel } from './setupPanel.js';
import { stallLineFor } from './stallLine.js';
import { TranscriptList } from './transcriptList.js';
import { connectHost } from './vscodeApi.js';
import { LIST_LIMITS, PATH_MAX } from '../src/protocol/limits.js';

const host = connectHost();
const announcer = new Announcer();
const banners = new Banners(() => composer.focus());
const links = linkActions(host, announcer);

const viewer = new CapsuleViewer({
  ...links,
  load: (checkpointId) => host.post({ type: 'viewCapsule', checkpointId }),
  rewind: (checkpointId) => host.post({ type: 'rewind', checkpointId }),
  exportCapsule: (checkpointId) => host.post({ type: 'exportCapsule', checkpointId }),
  changed: (state) => host.updateState({ viewer: state }),
});

const list = new TranscriptList({
  ...links,
  showDiff: (itemId) => host.post({ type: 'showDiff', itemId }),
  subagentTranscript: (itemId, page) => host.post({ type: 'subagentTranscript', itemId, page }),
  viewCapsule: (checkpointId, opener) => viewer.open(checkpointId, opener),
  rewind: (checkpointId) => host.post({ type: 'rewind', checkpointId }),
  messageAction: (action, entryId) => host.post({ type: 'messageAction', action, entryId }),
  switchBranch: (entryId) => host.post({ type: 'switchBranch', entryId }),
  compactionAction: (action, checkpointId) => host.post({ type: 'compactionAction', action, checkpointId }),
  continueLoop: () => host.post({ type: 'send', text: 'Continue' }),
  loadOlder: (beforeId) => host.post({ type: 'loadOlder', beforeId }),
  scrolled: (scroll) => host.updateState({ scroll }),
});

const barrier = new BarrierStrip(announcer, (checkpointId, opener) => viewer.open(checkpointId, opener));

const approvals = new ApprovalCards({ answer: (id, choice, extra) => host.post(approvalMessage(id, choice, extra)) }, announcer);
const plan = new PlanStrip(announcer, host.state().planOpen, (open) => host.updateState({ planOpen: open }));

const composer = new Composer(
  {
    send: (text, clientId, attachments, images = []) =>
      host.post({
        type: 'send',
        text,
        clientId,
        ...(attachments.length === 0 ? {} : { attachments: attachments.slice(0, LIST_LIMITS.attachments) }),
        ...(images.length === 0 ? {} : { images: [...images] }),
      }),
    findFiles: (requestId, query) => host.post({ type: 'findFiles', requestId, query: query.slice(0, PATH_MAX) }),
    cancel: () => host.post({ type: 'cancel' }),
    checkpointIds: () => list.checkpointIds(),
    draftChanged: (draft) => host.updateState({ draft }),
  },
  host.state().draft,
);

const setup = new SetupPanel({
  setupProvider: (provider) => host.post({ type: 'setupProvider', provider }),
  setApiKey: (key) => host.post({ type: 'setApiKey', key }),
  checkProvider: () => {
    // The panel stays open for the check's answer, even when this save ends the first-run setup.
    host.updateState({ setupOpen: true });
    host.post({ type: 'checkProvider' });
  },
  close: () => {
    host.updateState({ setupOpen: false });
    setup.update(lastSetup, false);
    composer.focus();
  },
  checkPassed: (summary) => {
    // The check passed: the panel's work is done, and its space goes back to the chat; one line says what was found.
    host.updateState({ setupOpen: false });
    // Kept: it speaks of the endpoint, not of a turn or a chat, so neither the next idle message nor the snapshot of the
    // chat reopened on that endpoint takes it away (its × does).
    banners.notice = { level: 'info', text: summary, keep: true };
    banners.render();
    announcer.say(summary);
    composer.focus();
  },
  removeRule: (rule) => host.post({ type: 'removeAllowRule', rule }),
  mcpServer: (name, action) => host.post({ type: 'mcpServer', name, action }),
});
let lastSetup: Extract<HostToWebview, { type: 'setup' }>['setup'] | null = null;

const header = new ChatHeader({
  command: (command) => host.post({ type: 'command', command }),
  selectModel: (id) => host.post({ type: 'selectModel', id }),
  toggleSetup: () => {
    const open = !setup.isOpen;
    host.updateState({ setupOpen: open });
    setup.update(lastSetup, open);
    if (open && lastSetup === null) banners.notice = { level: 'info', text: 'Provider setup is not available yet.' };
    banners.render();
    setup.element.querySelector<HTMLElement>('input, select')?.focus();
  },
  detailsToggled: (open) => host.updateState({ detailsOpen: open }),
});

/** A turn gone quiet: the line with Stop and Retry (stallLine.ts). */
/** A sign of life: the quiet period starts again; a turn waiting for the user's approval is not quiet, it waits (no line). */
function alive(): void {
  if (composer.busy && !approvals.waiting) stall.activity();
  else stall.stop();
}
const { element: stallLine, watch: stall } = stallLineFor(
  {
    stop: () => host.post({ type: 'cancel' }),
    retry: () => {
      host.post({ type: 'cancel' });
      host.post({ type: 'send', text: 'Continue', clientId: `stall_${Date.now().toString(36)}` });
    },
  },
  announcer,
);

function onSnapshot(msg: Extract<HostToWebview, { type: 'snapshot' }>): void {
  const first = !banners.received;
  const sameSession = !first && banners.session?.id === msg.session?.id;
  // First snapshot: come back to where the user was before the view reloaded; later ones keep the current position.
  const anchor = first ? host.state().scroll : sameSession ? list.anchor() : null;
  banners.received = true;
  banners.session = msg.session;
  banners.settings = msg.settings;
  banners.error = msg.error;
  if (banners.notice?.keep !== true) banners.notice = undefined;
  header.showSession(msg.session);
  header.showModels(msg.models, msg.currentModelId, msg.settings);
  header.showBudget(msg.budget, host.state().detailsOpen);
  composer.setMode(msg.budget?.mode);
  composer.setModel(msg.models.find((m) => m.id === msg.currentModelId));
  banners.render();
  // A rewind or a branch switch answers with a snapshot: a capsule shown from the branch just left must not stay open as if banners.
  const viewed = sameSession ? viewer.checkpointId : null;
  const viewedWasHere = viewed !== null && list.checkpointIds().includes(viewed);
  list.reset(msg.transcript.items, msg.transcript.hasMore, anchor);
  if (viewed !== null && viewedWasHere && !list.checkpointIds().includes(viewed)) {
    viewer.close();
    banners.notice = {
      level: 'info',
      text: 'The chat moved to another branch, so the capsule viewer closed: that capsule is not on this branch.',
      transient: true,
    };
    banners.render();
  }
  composer.setReadOnly(msg.session?.readOnly === true);
  composer.setBusy(msg.busy);
  composer.queue.reset(msg.queue);
  barrier.show(msg.barrier);
  composer.setBarrier(barrier.running);
  plan.show(msg.plan ?? []);
  approvals.show(msg.approvals ?? []);
  alive();
  setup.setRules(msg.allowRules ?? []);
  setup.setMcpServers(msg.mcpServers ?? []);
  lastSetup = msg.setup;
  setup.update(msg.setup, host.state().setupOpen);
  const saved = host.state().viewer;
  if (first && saved) viewer.open(saved.checkpointId, null, saved.tab);
  else if (!sameSession) viewer.close();
}

function onMessage(msg: HostToWebview): void {
  switch (msg.type) {
    case 'snapshot':
      onSnapshot(msg);
      break;
    case 'budget':
      header.showBudget(msg.budget, host.state().detailsOpen);
      composer.setMode(msg.budget.mode);
      break;
    case 'notice':
      banners.notice = { level: msg.level, text: msg.text, transient: msg.transient === true || (composer.busy && msg.level !== 'error') };
      banners.render();
      break;
    case 'itemsAppended':
      alive();
      list.append(msg.items);
      for (const item of msg.items) {
        if (item.kind === 'user' && item.clientId !== undefined) composer.queue.consumed(item.clientId);
        if (item.kind === 'error') announcer.say(`Error: ${item.text}`);
      }
      break;
    case 'itemUpdated':
      alive();
      list.update(msg.item);
      break;
    case 'streamDelta':
      alive();
      list.streamDelta(msg.itemId, msg.text);
      break;
    case 'streamEnd':
      list.streamEnd(msg.itemId, msg.markdown, msg.item);
      announcer.say('Answer complete');
      break;
    case 'barrier': {
      alive();
      const { type: _type, ...view } = msg;
      barrier.show(view);
      composer.setBarrier(barrier.running);
      break;
    }
    case 'capsule':
      viewer.show(msg.capsule);
      break;
    case 'olderItems':
      list.prependOlder(msg.beforeId, msg.items, msg.hasMore);
      break;
    case 'setup':
      lastSetup = msg.setup;
      setup.update(msg.setup, host.state().setupOpen);
      break;
    case 'queue':
      composer.queue.set(msg.items);
      break;
    case 'busy':
      composer.setBusy(msg.busy);
      alive();
      // A retry banner must not outlive the turn it spoke of; the outcome is in the transcript.
      if (!msg.busy && banners.notice?.transient === true) {
        banners.notice = undefined;
        banners.render();
      }
      break;
    case 'plan':
      plan.show(msg.plan);
      break;
    case 'approvals':
      approvals.show(msg.approvals);
      alive();
      if (msg.allowRules !== undefined) setup.setRules(msg.allowRules);
      break;
    case 'composer':
      composer.setText(msg.text);
      break;
    case 'mcpServers':
      setup.setMcpServers(msg.servers);
      break;
    case 'fileMatches':
      composer.fileMatches(msg.requestId, msg.files);
      break;
    case 'subagentTranscript':
      fillTranscript(list.rendered(msg.itemId), msg.page, msg.pages, msg.lines);
      break;
    case 'mention':
      composer.insertMention(msg.mention, msg.attachment);
      announcer.say(`Added ${msg.mention.slice(1)} to the message`);
      break;
    default: {
      const _exhaustive: never = msg;
      return _exhaustive;
    }
  }
}

function root(): HTMLElement {
  const r = document.getElementById('root');
  if (!r) throw new Error('webview root element missing');
  return r;
}

listenToHost(host, onMessage);

// The composer comes first in Tab order (CSS `order` keeps it at the bottom on screen), then the transcript's landmarks.
root().replaceChildren(
  composer.element,
  approvals.element,
  plan.element,
  header.element,
  banners.element,
  stallLine,
  setup.element,
  list.element,
  barrier.element,
  viewer.element,
  announcer.element,
);
// Escape stops a running turn unless something nearer (the slash popup, the capsule viewer, a feedback box) used it.
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || e.defaultPrevented || !composer.busy) return;
  if (e.target instanceof HTMLTextAreaElement && e.target.classList.contains('approval-feedback')) return;
  e.preventDefault();
  host.post({ type: 'cancel' });
  announcer.say('Stopping the turn');
});
// An error card's buttons: Retry goes to the host; "Open settings" opens the provider setup here at the field in question.
document.addEventListener(ERROR_ACTION_EVENT, (e) => {
  const d = (e as CustomEvent<ErrorAction>).detail;
  if (d.action === 'retry') {
    host.post({ type: 'retryTurn', turnId: d.turnId });
    announcer.say('Retrying');
    return;
  }
  const target = d.target;
  if (target === 'window' || lastSetup?.provider?.kind === 'lm' || lastSetup === null) {
    host.post({ type: 'openSettings', target });
    return;
  }
  host.updateState({ setupOpen: true });
  setup.update(lastSetup, true);
  setup.focusField(target);
});
// "Focus on Chat View" focuses the webview's document; the user means the message box.
window.addEventListener('focus', () => {
  if (document.activeElement === null || document.activeElement === document.body) composer.focus();
});
banners.render();
host.post({ type: 'ready' });
