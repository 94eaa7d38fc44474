// The host[:port] of a base URL: what error cards and provider checks name, never the path, query, user info or key.

/** `https://api.openai.com/v1?api-version=x` → `api.openai.com`; an unparsable URL gives `the configured base URL`. */
export function endpointHost(baseUrl: string): string {
  const url = baseUrl.trim() === '' ? 'https://api.openai.com/v1' : baseUrl.trim();
  try {
    const host = new URL(url).host;
    return host === '' ? 'the configured base URL' : host;
  } catch {
    return 'the configured base URL';
  }
}
