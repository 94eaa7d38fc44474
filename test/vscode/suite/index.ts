// Entry VS Code calls through --extensionTestsPath (bundled to dist-test/suite.js): runs every extension-host test.
import { extensionTests } from './extension.test.js';
import { runHostTests } from './runner.js';
import { settingsTests } from './settings.test.js';

/** VS Code exits 0 when this resolves and non-zero when it rejects. */
export async function run(): Promise<void> {
  // Activation first: the later tests talk to the activated extension.
  await runHostTests([...extensionTests, ...settingsTests]);
}
