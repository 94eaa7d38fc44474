// The capsule.mcp.* settings: defaults (package.json declares the same), checks, and the CLI's `--set capsule.mcp.<key>=<value>`.
import * as z from '../../engine/zod.js';

/** Default share of the hard limit MCP schemas may take before they are deferred behind the index. */
export const DEFAULT_DEFER_SHARE = 0.1;

export interface McpSettings {
  /** Off: no server starts, whatever is configured. */
  readonly enabled: boolean;
  /** Share of the hard limit MCP tool schemas may take before they are deferred behind the index. */
  readonly deferShare: number;
  /** Tools that declare readOnlyHint run without asking. */
  readonly autoAllowReadOnly: boolean;
  readonly startupTimeoutSeconds: number;
  readonly callTimeoutSeconds: number;
  /** In the extension: also offer the tools VS Code knows (`vscode.lm.tools`) as the server "vscode". */
  readonly vscodeTools: boolean;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = {
  enabled: true,
  deferShare: DEFAULT_DEFER_SHARE,
  autoAllowReadOnly: false,
  startupTimeoutSeconds: 30,
  callTimeoutSeconds: 120,
  vscodeTools: true,
};

export const MCP_SETTING_SCHEMAS: { readonly [K in keyof McpSettings]: z.ZodMiniType<McpSettings[K]> } = {
  enabled: z.boolean(),
  deferShare: z.number().check(z.gte(0), z.lte(1)),
  autoAllowReadOnly: z.boolean(),
  startupTimeoutSeconds: z.number().check(z.int(), z.gte(1), z.lte(600)),
  callTimeoutSeconds: z.number().check(z.int(), z.gte(1), z.lte(3600)),
  vscodeTools: z.boolean(),
};

/** Raw values (settings or `--set`) over the defaults; a bad value keeps its default and is named in `problems`. */
export function resolveMcpSettings(raw: Readonly<Record<string, unknown>>): { readonly settings: McpSettings; readonly problems: readonly string[] } {
  const out: Record<string, unknown> = { ...DEFAULT_MCP_SETTINGS };
  const problems: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    const schema = (MCP_SETTING_SCHEMAS as Readonly<Record<string, z.ZodMiniType>>)[k];
    if (schema === undefined) {
      problems.push(`unknown setting capsule.mcp.${k} (known: ${Object.keys(MCP_SETTING_SCHEMAS).join(', ')})`);
      continue;
    }
    const p = schema.safeParse(v);
    if (p.success) out[k] = p.data;
    else
      problems.push(
        `capsule.mcp.${k}: ${p.error.issues[0]?.message ?? 'invalid'}; the default ${JSON.stringify(DEFAULT_MCP_SETTINGS[k as keyof McpSettings])} is used`,
      );
  }
  return { settings: out as unknown as McpSettings, problems };
}
