// The `capsule` executable's entry: hands the key over, guards the pipes and runs main(); dist/cli.js loads it lazily.
import { fail, main, quietOnClosedPipe } from './main.js';
import { setLockHolderName } from '../node/lockHolder.js';
import { keyVariables, launchWithoutKey, receiveKey } from './keyHandover.js';

// With an API key in the environment, this process only launches the real CLI without it (docs/user/cli.md#api-key).
const keys = process.platform === 'win32' ? [] : keyVariables(process.argv.slice(2), process.env);
if (keys.length > 0) launchWithoutKey(keys);
else {
  setLockHolderName('the capsule CLI');
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  receiveKey()
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
