// Types of cliBuild.mjs for the TypeScript tests that build the CLI the same way.
import type { BuildOptions } from 'esbuild';

export function cliBuildOptions(entry: string, outdir: string, common?: BuildOptions): BuildOptions;
export function cliLauncherOptions(entry: string, outdir: string, common?: BuildOptions): BuildOptions;
export const ENCODINGS: readonly ('o200k_base' | 'cl100k_base')[];
export function encodingBuildOptions(name: string, outfile: string, root: string, common?: BuildOptions): BuildOptions;
