// The error type the CLI prints as one line (no stack) before exiting non-zero.
export class CliError extends Error {
  /** Process exit code: 2 for usage errors, by the usual CLI convention. */
  readonly exitCode: number;

  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
