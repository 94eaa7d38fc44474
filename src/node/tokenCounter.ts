// Installs the lazy encoding loader (one file per encoding, next to the bundle) and re-exports the counters.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packedEncoding } from '../engine/tokens/bpeCount.js';
import { installEncodingLoader, type Encoder, type EncodingName } from '../engine/tokens/tokenizer.js';
import { packRanks, type RawRanks } from './bpePack.js';

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
 * The bundles (dist/extension.js, dist/cli.js) share dist/encodings/<name>.js, built by esbuild.mjs: the packed table
 * and its counter. From sources (tests, tsx) the same table is packed from gpt-tokenizer's ranks. createRequire keeps
 * esbuild from inlining either into the bundle.
 */
function loadEncoding(name: EncodingName): Encoder {
  const load = createRequire(__filename);
  const bundled = join(__dirname, 'encodings', `${name}.js`);
  if (!existsSync(bundled)) return packedEncoding(packRanks((load(`gpt-tokenizer/bpeRanks/${name}`) as { default: RawRanks }).default), name);
  const mod: unknown = load(bundled);
  if (!isEncoder(mod)) throw new Error(`The ${name} tokenizer file is damaged (no countTokens); reinstall Capsule.`);
  return mod;
}

installEncodingLoader(loadEncoding);
