// The tool schemas `capsule budget`, `compact` and `rewind` measure with are exactly those `capsule chat` sends, built without the tool host.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TASK_TOOL_SCHEMA } from '../../../src/engine/agent/subagentTask.js';
import { hardLimitOf } from '../../../src/engine/tokens/tokenLimits.js';
import { serializeToolSchemas } from '../../../src/engine/tokens/estimate.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { toolLimitsForWindow } from '../../../src/node/tools/types.js';
import { WorkspaceToolHost } from '../../../src/node/tools/workspaceToolHost.js';
import { chatToolSchemas, cliSettings } from '../../../src/cli/session.js';

test("chatToolSchemas equals the workspace tool host's list (checkpoint and evidence tools included) plus the task tool, at every window", () => {
  for (const window of [4_096, 32_000, 128_000, 1_000_000]) {
    const model = resolveModelInfo('gpt-4o', { override: { contextWindow: window, maxOutputTokens: Math.min(16_384, window / 4) } });
    const resolved = cliSettings(model);
    const host = new WorkspaceToolHost({
      roots: ['/w'],
      limits: toolLimitsForWindow(hardLimitOf(model.contextWindow, model.maxOutputTokens, resolved.settings.safetyReserveTokens)),
      approve: async () => false,
      trusted: () => false,
      evidence: async () => ({ isError: true, content: 'not available here' }),
      checkpoint: async () => 'ck_unused',
    });
    assert.equal(serializeToolSchemas(chatToolSchemas(model, resolved)), serializeToolSchemas([...host.schemas(), TASK_TOOL_SCHEMA]), `window ${window}`);
  }
});
