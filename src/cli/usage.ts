// Usage lines of every `capsule` command, apart from the commands themselves: `--help` prints them without loading any command.

export const BUDGET_USAGE = 'capsule budget <session.jsonl> [--model M] [--window N] [--max-output N] [--set k=v]… [--no-auto-compact] [--json]';
export const CHAT_USAGE =
  'capsule chat --base-url URL --model M [--api-key-env VAR] [--window N] [--max-output N] [--set k=v]… [--no-auto-compact] [--session FILE] [--workspace DIR] [--yes] [--keep-background] [--mode agent|ask] [--no-instructions] [--image PATH]… [--vision] [--mcp-config FILE]… [--no-mcp] [--approve-mcp] "prompt" | … --retry (send the last failed turn again)';
export const COMPACT_USAGE =
  'capsule compact <session.jsonl> [--trigger user|hard_limit|auto_threshold|... | --up-to <entry id>] [--focus "text"] [--fallback | --base-url URL --model M [--api-key-env VAR]] [--window N] [--max-output N] [--set k=v]… [--json]';
export const EXPORT_USAGE = 'capsule export <session.jsonl> [ck_…] -o <file.capsule.md> [--title T] [--force]';
/** The --from values are IMPORT_FORMATS (engine/import/report.ts), written out so --help loads no importer; a test keeps them equal. */
export const IMPORT_USAGE = `capsule import <transcript> -o <session.jsonl> [--from claude-code|codex|anthropic|swe-agent|mini-swe-agent|openai] [--model M]`;
export const SHOW_USAGE = 'capsule show <session.jsonl> [--checkpoint ck_…] [--retention] [--json]';
export const LIMITS_USAGE = 'capsule limits [--json] | capsule limits forget (<endpoint URL> <model> | --all) [--json]';
export const LOAD_USAGE = 'capsule load <file.capsule.md> (--new-session <session.jsonl> | --into <session.jsonl>) [--anyway] [--workspace DIR]';
export const REWIND_USAGE =
  'capsule rewind <session.jsonl> <ck_…|entry id> [--files | --files-only] [--force] [--dry-run] [--workspace DIR] [--window N] [--max-output N] [--set k=v]… [--no-auto-compact] [--json]';
export const UNDO_COMPACTION_USAGE = 'capsule undo-compaction <session.jsonl> <ck_…|capsule entry id> [--redo] [--json]';
export const VERIFY_USAGE = 'capsule verify <session.jsonl> [--json]';
export const MCP_USAGE =
  "capsule mcp list [--workspace DIR] [--mcp-config FILE]… [--approve-mcp] [--json] | capsule mcp call <server> <tool> '<json arguments>' [--workspace DIR] [--mcp-config FILE]… [--approve-mcp]";
