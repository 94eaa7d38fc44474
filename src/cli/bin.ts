// The `capsule` executable's entry: hands the key over, guards the pipes and runs main(); dist/cli.js loads it lazily.
import { fail, quietOnClosedPipe } from './exitPaths.js';
import { main } from './main.js';
import { setLockHolderName } from '../node/lockHolder.js';
import { HANDOVER_VAR, keyVariables } from './keyHandover.js';
import { keepYoungGenerationSmallFor } from './youngGeneration.js';

// With an API key in the environment, this process only launches the real CLI without it (docs/user/cli.md#api-key).
// The relay's module (child_process, net) is loaded only by a run that restarts or was restarted.
const keys = process.platform === 'win32' ? [] : keyVariables(process.argv.slice(2), process.env);
if (keys.length > 0)
  import('./keyRelay.js')
    .then((relay) => relay.launchWithoutKey(keys))
    .catch((e: unknown) => {
      process.exitCode = fail(e);
    });
else {
  keepYoungGenerationSmallFor(process.argv.slice(2));
  setLockHolderName('the capsule CLI');
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  const received = process.env[HANDOVER_VAR] === '3' ? import('./keyRelay.js').then((relay) => relay.receiveKey()) : Promise.resolve(false);
  received
    .then(() => main(process.argv.slice(2)))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (e: unknown) => {
        process.exitCode = fail(e);
      },
    );
}
