// Who holds a session lock, as the lock file names it to another process; its own module so the CLI's entry sets it without loading the lock code.
let holderName = 'a VS Code window';

export function setLockHolderName(name: string): void {
  holderName = name;
}

export function lockHolderName(): string {
  return holderName;
}
