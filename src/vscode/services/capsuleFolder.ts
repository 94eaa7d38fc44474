// Where portable capsules are saved by default: the folder the user last chose, else `capsules/` in the extension's global storage (never the workspace).
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The globalState key of the folder last chosen in a save dialog. */
export const CAPSULE_FOLDER_KEY = 'capsule.portableFolder';

export interface FolderMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export class CapsuleFolder {
  constructor(
    private readonly globalStorage: string,
    private readonly memento: FolderMemento,
  ) {}

  /** The default folder of save and open dialogs; created when it is the storage one. */
  get path(): string {
    const chosen = this.memento.get<string>(CAPSULE_FOLDER_KEY);
    if (typeof chosen === 'string' && isFolder(chosen)) return chosen;
    const own = join(this.globalStorage, 'capsules');
    mkdirSync(own, { recursive: true });
    return own;
  }

  /** Remembers the folder of a file the user saved to or loaded from. */
  async remember(folder: string): Promise<void> {
    if (this.memento.get<string>(CAPSULE_FOLDER_KEY) !== folder) await this.memento.update(CAPSULE_FOLDER_KEY, folder);
  }
}

function isFolder(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isDirectory();
  } catch {
    return false;
  }
}
