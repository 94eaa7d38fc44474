// The one table of sizes in the host⇄webview contract: the schemas, the host's clamps and the webview's checks all read it.

/** String lengths (UTF-16 units) by what the text is. */
export const LIMITS = {
  /** Ids, names, models, labels of one line. */
  id: 200,
  /** ISO timestamps. */
  stamp: 64,
  /** Titles, short descriptions, argument summaries. */
  label: 500,
  /** One-line reasons and result lines. */
  line: 2000,
  /** Notices, warnings and errors. */
  notice: 4000,
  /** A link the user clicked. */
  link: 8192,
  /** Longer details (a tool's result preview). */
  detail: 10_000,
  /** A webview error's stack. */
  stack: 16_000,
  /** Answers to commands shown in the chat. */
  answer: 20_000,
  /** One streamed delta. */
  delta: 200_000,
  /** A capsule's text in the viewer. */
  capsule: 500_000,
  /** What the user typed. */
  input: 1_000_000,
  /** A whole answer or a copied text. */
  document: 2_000_000,
} as const;

/** List lengths. */
export const LIST_LIMITS = {
  /** Transcript items in one message. */
  items: 10_000,
  /** Models in the picker, and VS Code models on the setup panel. */
  models: 500,
  /** Inputs waiting in the queue. */
  queue: 100,
  /** Sections of a capsule. */
  sections: 32,
  /** Steps of the agent's plan (update_plan accepts as many). */
  planSteps: 50,
  /** Approvals waiting for the user. */
  approvals: 20,
  /** Rules an approval card offers to pick (the command's first words). */
  ruleChoices: 4,
  /** Always-allow rules the view lists. */
  allowRules: 200,
  /** MCP servers the setup panel lists. */
  mcpServers: 100,
  /** Workspace files offered by one `@` completion. */
  fileMatches: 50,
  /** Files and selections attached to one message. */
  attachments: 20,
  /** Existing file paths one item (or capsule) may link. */
  links: 100,
  /** Lines of a subagent's transcript in one page (its card asks for pages on demand). */
  subagentLines: 40,
  /** Branches at one fork the switcher counts (more are still in the file and the tree). */
  branches: 10_000,
} as const;

/** A workspace path in a message (an `@` mention, a link, a file to open). */
export const PATH_MAX = 500;
/** Line numbers a link or attachment may name. */
export const LINE_MAX = 10_000_000;

/** Images attached to one message (pasted, dropped or `@`-mentioned in the composer; CLI `--image`). */
export const IMAGE_LIMITS = {
  /** OpenAI accepts images up to 20 MB; larger ones are refused before anything is read or sent. */
  bytes: 20 * 1024 * 1024,
  /** Images per message. */
  perMessage: 10,
} as const;
/** A data URL of the largest image: base64 of IMAGE_LIMITS.bytes plus its `data:image/…;base64,` head. */
export const IMAGE_DATA_URL_MAX = Math.ceil(IMAGE_LIMITS.bytes / 3) * 4 + 64;
/** The image types the composer and the CLI take, by media type. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** A key pasted into the setup panel. */
export const API_KEY_MAX = 4096;
