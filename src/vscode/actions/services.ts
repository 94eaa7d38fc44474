// The services actions work with; each action takes only the ones it names (a `Pick` of this), never a host object.
import type { Logger } from '../../engine/ports.js';
import type { ProjectMemory } from '../../node/projectMemory.js';
import type { ApprovalService } from '../services/approvals.js';
import type { CapsuleFolder } from '../services/capsuleFolder.js';
import type { ChatOutput } from '../services/chatPorts.js';
import type { ChatService } from '../services/chatService.js';
import type { Providers } from '../services/providers.js';
import type { ApiKeys } from '../services/secrets.js';
import type { SessionService } from '../services/sessionService.js';
import type { SettingsReader } from '../services/settings.js';

export interface Services {
  readonly chat: ChatService;
  /** Answers in the chat (the projection). */
  readonly out: ChatOutput;
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly providers: Providers;
  readonly keys: ApiKeys;
  readonly memory: ProjectMemory;
  /** Where portable capsules are saved and looked for by default (outside the workspace unless the user chose it). */
  readonly capsules: CapsuleFolder;
  readonly logger: Logger;
  /** Writes and commands waiting for the user (inline cards, the diff editor). */
  readonly approvals: ApprovalService;
  /** Shows the chat view (the palette's commands answer in it). */
  readonly view: { reveal(): Promise<void> };
}
