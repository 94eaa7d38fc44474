// `capsule verify <session.jsonl>`: reports torn tails, bad lines, tree problems and split tool pairs; non-zero exit on errors.
import { verifySession } from '../../engine/transcript/verify.js';
import type { ParsedCli } from '../args.js';
import { loadForReading } from '../session.js';
import { VERIFY_USAGE } from '../usage.js';

export { VERIFY_USAGE };

export async function verifyCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const path = cli.positionals[0];
  const load = await loadForReading(path, VERIFY_USAGE);
  const report = verifySession(load.tree, load.problems);
  if (cli.flags.json === true) {
    out(JSON.stringify({ path, ...report }, null, 2));
  } else {
    for (const i of report.issues) {
      const where = [i.line !== undefined ? `line ${i.line}` : '', i.entryId ? `entry ${i.entryId}` : ''].filter(Boolean).join(', ');
      out(`${i.severity}: ${i.kind}${where ? ` (${where})` : ''}: ${i.message}`);
    }
    const errors = report.issues.filter((i) => i.severity === 'error').length;
    const warnings = report.issues.length - errors;
    out(
      `${report.ok ? 'OK' : 'INVALID'}: ${path}: ${report.entries} entries, ${report.branches} branch(es), active branch ${report.activeBranchLength} entries, ${errors} error(s), ${warnings} warning(s)`,
    );
  }
  return report.ok ? 0 : 1;
}
