// `npm start`: builds the VSIX and runs Capsule in VS Code — the local `code` if there is one, else code-server on 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const vsix = join(repo, 'capsule.vsix');
// `npm start` runs scripts from the repository root; npm keeps the folder it was started in as INIT_CWD.
const startedIn = process.env.INIT_CWD ?? process.cwd();
const folder = resolve(startedIn, process.argv[2] ?? '.');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
  return r;
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function main() {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new Error(`${folder} is not a folder; usage: npm start [-- <folder>] (default: the folder you ran npm start in)`);
  console.log(
    `capsule: will open ${folder} (${process.argv[2] === undefined ? 'the folder you ran npm start in; name another with npm start -- <folder>' : 'the folder you named'})`,
  );
  // A test checks which folder would open without building or starting anything.
  if (process.env.CAPSULE_START_DRY_RUN === '1') return;
  console.log('capsule: building the VSIX ...');
  run('npm', ['run', '--silent', 'package'], { cwd: repo });
  if (!existsSync(vsix)) throw new Error(`packaging did not produce ${vsix}`);

  if (has('code') && !process.env.CAPSULE_USE_CODE_SERVER) {
    run('code', ['--install-extension', vsix, '--force']);
    run('code', [folder]);
    console.log(`capsule: installed into VS Code and opened ${folder}; open the Capsule view in the activity bar.`);
    return;
  }

  const cache = process.env.CAPSULE_CACHE ?? join(homedir(), '.cache', 'capsule');
  console.log('capsule: no `code` command found; using code-server (installed once into the cache) ...');
  const setup = spawnSync('bash', [join(repo, 'scripts', 'setupCodeServer.sh'), cache], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (setup.status !== 0) throw new Error('could not install code-server (see the message above)');
  const bin = setup.stdout.trim().split('\n').pop();
  const data = join(cache, 'start');
  const user = join(data, 'user');
  const ext = join(data, 'ext');
  mkdirSync(join(user, 'User'), { recursive: true });
  const settings = join(user, 'User', 'settings.json');
  if (!existsSync(settings)) writeFileSync(settings, JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }, null, 2));
  run(bin, ['--extensions-dir', ext, '--user-data-dir', user, '--install-extension', vsix, '--force'], { stdio: ['ignore', 'ignore', 'inherit'] });

  const port = process.env.PORT ?? '8080';
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  const child = spawn(
    bin,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      user,
      '--extensions-dir',
      ext,
      '--disable-telemetry',
      '--disable-update-check',
      folder,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.stdout.on('data', (d) => {
    if (/HTTP server listening/.test(String(d)))
      console.log(`\ncapsule: VS Code with Capsule is at ${url}, opened on ${folder}\n(open the Capsule view in the activity bar; Ctrl+C stops the server)`);
  });
  child.on('exit', (code) => process.exit(code ?? 0));
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill('SIGTERM'));
}

try {
  main();
} catch (e) {
  console.error(`capsule: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
