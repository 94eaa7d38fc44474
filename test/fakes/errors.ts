// OpenAI-shaped error bodies the fake server answers with, worded like the real API's.

export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

function err(message: string, type: string, param: string | null, code: string | null): ErrorBody {
  return { error: { message, type, param, code } };
}

/** The 400 a real endpoint answers when prompt + requested completion exceed the window. */
export function contextLengthError(window: number, promptTokens: number, completionTokens: number | undefined): ErrorBody {
  const head = `This model's maximum context length is ${window} tokens. However, `;
  const tail =
    completionTokens === undefined
      ? `your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`
      : `you requested ${promptTokens + completionTokens} tokens (${promptTokens} in the messages, ` +
        `${completionTokens} in the completion). Please reduce the length of the messages or completion.`;
  return err(head + tail, 'invalid_request_error', 'messages', 'context_length_exceeded');
}

export function missingKeyError(): ErrorBody {
  return err(
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth " + '(i.e. Authorization: Bearer YOUR_KEY).',
    'invalid_request_error',
    null,
    null,
  );
}

export function wrongKeyError(key: string): ErrorBody {
  const shown = key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : '*****';
  return err(`Incorrect API key provided: ${shown}.`, 'invalid_request_error', null, 'invalid_api_key');
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): ErrorBody {
  return err(message, 'invalid_request_error', param, code);
}

export function modelNotFound(model: string): ErrorBody {
  return err(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found');
}

export function notFoundRoute(method: string, path: string): ErrorBody {
  return err(`Invalid URL (${method} ${path})`, 'invalid_request_error', null, null);
}

/** The default body for a scripted error status. */
export function errorForStatus(status: number): ErrorBody {
  switch (status) {
    case 429:
      return err('Rate limit reached for requests. Please try again in 1s.', 'requests', null, 'rate_limit_exceeded');
    case 500:
      return err('The server had an error while processing your request. Sorry about that!', 'server_error', null, null);
    case 502:
      return err('Bad gateway.', 'server_error', null, null);
    case 503:
      return err('The engine is currently overloaded, please try again later.', 'server_error', null, null);
    case 401:
      return wrongKeyError('sk-scripted');
    case 413:
      return err('Request too large.', 'invalid_request_error', null, 'request_too_large');
    default:
      return err(`Scripted error ${status}.`, status >= 500 ? 'server_error' : 'invalid_request_error', null, null);
  }
}
