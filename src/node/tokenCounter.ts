// Installs the lazy encoding loader (one file per encoding, next to the bundle) and re-exports the counters.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { installEncodingLoader, type Encoder, type EncodingName } from '../engine/tokens/tokenizer.js';

export {
  counterForEncoding,
  counterForModel,
  encodingForModel,
  loadedEncodings,
  encodingReady,
  warmEncoding,
  type EncodingName,
  type TokenCounter,
} from '../engine/tokens/tokenizer.js';

function isEncoder(v: unknown): v is Encoder {
  return typeof v === 'object' && v !== null && typeof (v as { countTokens?: unknown }).countTokens === 'function';
}

/**
 * The bundles (dist/extension.js, dist/cli.js) share dist/encodings/<name>.js and <name>.bin, built by esbuild.mjs:
 * the counter and the packed table it reads. From sources (tests, tsx) the same table is packed from gpt-tokenizer's
 * ranks (bpeSource.ts). createRequire keeps esbuild from inlining either into the bundle.
 */
function loadEncoding(name: EncodingName): Encoder {
  const load = createRequire(__filename);
  const bundled = join(__dirname, 'encodings', `${name}.js`);
  let mod: unknown;
  try {
    // From sources the source module packs the table; required at run time, so no bundle carries the packer.
    mod = existsSync(bundled) ? load(bundled) : (load('./bpeSource.js') as typeof import('./bpeSource.js')).sourceEncoding(name);
  } catch (e) {
    throw new Error(`The ${name} tokenizer files are damaged or missing (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); reinstall Capsule.`);
  }
  if (!isEncoder(mod)) throw new Error(`The ${name} tokenizer file is damaged (no countTokens); reinstall Capsule.`);
  return mod;
}

installEncodingLoader(loadEncoding);
