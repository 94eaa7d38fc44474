// The encodings when Capsule runs from its sources (tests, tsx), where no build wrote dist/encodings: each table packed from gpt-tokenizer's ranks on first use, as the build packs it.
import { createRequire } from 'node:module';
import { packedEncoding } from '../engine/tokens/bpeCount.js';
import type { Encoder, EncodingName } from '../engine/tokens/tokenizer.js';
import { packRanks, type RawRanks } from './bpePack.js';

export function sourceEncoding(name: EncodingName): Encoder {
  const ranks = (createRequire(__filename)(`gpt-tokenizer/bpeRanks/${name}`) as { default: RawRanks }).default;
  return packedEncoding(packRanks(ranks), name);
}
