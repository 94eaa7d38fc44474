// Ids for chat items that are not entries (command answers, live answers); entry ids look different (`e_…`).
let seq = 0;

export function ephemeralId(): string {
  seq += 1;
  return `x_${Date.now().toString(36)}_${seq}`;
}
