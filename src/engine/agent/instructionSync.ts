// Keeps the model's instructions in step with their sources (docs/user/instructions.md): the first block, one system update per change, and the state a new epoch's base carries (active skills included).
import { makeSource, renderInstructionBlock, stampsOf, type InstructionSource, type SourceStamp } from '../instructions/sources.js';
import { TouchedPaths } from '../instructions/scope.js';
import { loadDelivered, loadedSkills, SKILL_TOOL } from '../instructions/skills.js';
import type { InstructionPort } from '../instructions/port.js';
import { diffSources, INSTRUCTIONS_REASON, INSTRUCTIONS_UPDATE_REASON, renderChange, stampsInForce } from '../instructions/update.js';
import { buildModelInput } from '../transcript/modelInput.js';
import type { Entry } from '../transcript/schema.js';
import type { BranchFigures } from '../transcript/branchFigures.js';
import type { Growth } from '../transcript/tail.js';
import type { BranchReader } from '../compaction/branchReader.js';
import type { AgentDeps } from './agentDeps.js';
import type { AgentEvent } from './agentEvents.js';
import type { EpochInstructions, EpochKeeper } from './cacheEpoch.js';

/** Heading of the section a new epoch's base gives to skills whose loading was summarized away. */
const ACTIVE_SKILLS_HEADING = '# Active skills';

/** Key prefix of an active skill's source once its SKILL.md was edited. */
const EDITED_SKILL_KEY = 'skill:';

/** Default tokens the bodies of active skills may take in a new epoch's base (`capsule.skills.reloadBudgetTokens`). */
export const DEFAULT_SKILL_RELOAD_TOKENS = 8000;

export interface InstructionSyncDeps {
  readonly port: InstructionPort;
  readonly epochs: EpochKeeper;
  readonly branch: () => readonly Entry[];
  /** The branch read from its leaf: what it gained since an entry, and its running figures (no walk per request). */
  readonly fromLeaf?: { readonly growthSince: (id: string | undefined, orSince?: string) => Growth; readonly figures: () => BranchFigures };
  readonly systemPrompt: string;
  readonly tokens: (text: string) => number;
  readonly skillReloadTokens?: number;
  readonly warn: (message: string) => void;
}

export class InstructionSync {
  readonly #touched = new TouchedPaths();
  readonly #warned = new Set<string>();
  #current: readonly InstructionSource[] | undefined;

  constructor(private readonly deps: InstructionSyncDeps) {}

  /** The sources read last (what the model has now, once sync() returned). */
  get current(): readonly InstructionSource[] {
    return this.#current ?? [];
  }

  /** Reads the sources for the work so far; appends the first block or one update when they differ from what the model saw. */
  async sync(): Promise<void> {
    const fromLeaf = this.deps.fromLeaf;
    const branch = fromLeaf === undefined ? this.deps.branch() : undefined;
    const touched = this.#touchedNow(branch);
    const read = await this.deps.port.read(touched);
    for (const w of read.warnings) {
      if (this.#warned.has(w)) continue;
      this.#warned.add(w);
      this.deps.warn(w);
    }
    const figures = fromLeaf?.figures();
    const seen = branch === undefined ? figures?.lastStamped?.sources : stampsInForce(branch);
    // Loaded skills are found by walking the branch: only when a skill was ever called on it (a running figure).
    const sources = [...read.sources, ...this.editedSkills(() => branch ?? this.deps.branch(), branch !== undefined || (figures?.skillCalls ?? 1) > 0, seen)];
    this.#current = sources;
    const stamps = stampsOf(sources);
    // A new chat gets the whole block in its system prompt; a chat that already talked (one from before instructions
    // were read, an import) gets them as an update, so the prefix it had stays the same.
    const talked = branch === undefined ? (figures?.turns ?? 0) > 0 : branch.some((e) => e.type === 'user');
    if (seen === undefined && !talked) {
      if (sources.length > 0) await this.deps.epochs.appendInstructions(renderInstructionBlock(sources), INSTRUCTIONS_REASON, stamps, touched);
      return;
    }
    const content = renderChange(diffSources(seen ?? [], sources));
    if (content !== undefined) await this.deps.epochs.appendInstructions(content, INSTRUCTIONS_UPDATE_REASON, stamps, touched);
  }

  /**
   * The paths the branch's calls named up to its leaf. From the leaf, only what was added since the last read, or
   * since the latest update on the branch that recorded them (`touched`, always the whole list when kept), whichever
   * comes first: a reopened chat, or one whose leaf moved, does not walk its history.
   */
  #touchedNow(branch: readonly Entry[] | undefined): readonly string[] {
    const fromLeaf = this.deps.fromLeaf;
    if (branch !== undefined || fromLeaf === undefined) return this.#touched.of(branch ?? this.deps.branch());
    const recorded = fromLeaf.figures().lastStamped;
    const mark = recorded?.touched === undefined ? undefined : recorded.id;
    const growth = fromLeaf.growthSince(this.#touched.lastId, mark);
    if (recorded?.touched !== undefined && growth.from === recorded.id && growth.from !== this.#touched.lastId)
      this.#touched.seed(recorded.touched, recorded.id);
    return this.#touched.ofGrowth(growth);
  }

  /**
   * Active skills whose SKILL.md changed since they were loaded, as sources with the current body: the first edit is
   * one update like an edited file's, and from then on the source stays in force (its key is in the stamps) so later
   * edits are updates too and a new epoch's base carries the current body.
   */
  private editedSkills(branch: () => readonly Entry[], anyCalled: boolean, seen: readonly SourceStamp[] | undefined): InstructionSource[] {
    const port = this.deps.port;
    if (port.skillText === undefined || !anyCalled) return [];
    const had = new Set((seen ?? []).map((s) => s.key));
    const out: InstructionSource[] = [];
    for (const s of loadedSkills(branch())) {
      const now = port.skillText(s.name);
      const key = `${EDITED_SKILL_KEY}${s.name}`;
      if (now === undefined || (!had.has(key) && loadDelivered(s.content, s.name, now.where, now.body))) continue;
      out.push(makeSource(key, 'other', `Skill ${s.name} (${now.where}), edited since it was loaded; follow this text`, now.body.replace(/\s+$/, '')));
    }
    return out;
  }

  /**
   * What a new epoch's base carries: every source's current text, then the bodies of active skills whose loading
   * left the model input (newest first within the budget; the rest by name with a note to load them again).
   */
  forEpoch(): EpochInstructions | undefined {
    if (this.#current === undefined) return undefined;
    const block = renderInstructionBlock(this.#current);
    const skills = this.skillSection();
    // Brought up to the leaf (the turn's calls since the last read), so the base records what the branch named.
    const touched = this.#touchedNow(undefined);
    return { text: [block, skills].filter((t) => t !== '').join('\n\n'), stamps: stampsOf(this.#current), touched };
  }

  private skillSection(): string {
    // No skill was ever called on the branch (a running figure): nothing to walk the branch for.
    if (this.deps.fromLeaf?.figures().skillCalls === 0) return '';
    const branch = this.deps.branch();
    const loaded = loadedSkills(branch);
    if (loaded.length === 0) return '';
    const inInput = new Set(buildModelInput(branch, this.deps.systemPrompt).entryIds);
    // An edited skill's current body is already in the block, as a source.
    const edited = new Set(this.current.map((s) => s.key));
    const gone = loaded.filter((s) => !inInput.has(s.resultId) && !edited.has(`${EDITED_SKILL_KEY}${s.name}`));
    if (gone.length === 0) return '';
    let budget = this.deps.skillReloadTokens ?? DEFAULT_SKILL_RELOAD_TOKENS;
    const bodies = new Map<string, string>();
    for (const s of [...gone].reverse()) {
      const n = this.deps.tokens(s.content);
      if (n > budget) continue;
      budget -= n;
      bodies.set(s.name, s.content);
    }
    const parts = [
      ACTIVE_SKILLS_HEADING,
      'These skills were loaded earlier in this chat and are still in force; their instructions follow as the skill tool returned them.',
    ];
    for (const s of gone) {
      const body = bodies.get(s.name);
      parts.push(
        body !== undefined
          ? `## Skill: ${s.name}\n${body}`
          : `## Skill: ${s.name}\nStill in force, but its text was not reloaded here (over the reload budget): call the ${SKILL_TOOL} tool with name "${s.name}" before relying on it.`,
      );
    }
    return parts.join('\n\n');
  }
}

/** The agent's instruction sync, when its deps name an instruction port; warnings go to the log and the chat as notices. */
export function instructionSyncOf(deps: AgentDeps, epochs: EpochKeeper, branches: BranchReader, emit: (e: AgentEvent) => void): InstructionSync | undefined {
  if (deps.instructions === undefined) return undefined;
  return new InstructionSync({
    port: deps.instructions,
    epochs,
    branch: () => branches.branch(),
    fromLeaf: { growthSince: (id, orSince) => branches.growthSince(id, orSince), figures: () => branches.figures() },
    systemPrompt: deps.systemPrompt,
    tokens: (text) => deps.cache.exactTokensOfText(text),
    ...(deps.skillReloadTokens === undefined ? {} : { skillReloadTokens: deps.skillReloadTokens }),
    warn: (message) => {
      deps.logger?.log('warn', message);
      emit({ type: 'notice', level: 'warn', message });
    },
  });
}
