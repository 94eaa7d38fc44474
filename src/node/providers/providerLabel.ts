// The provider label replies record when no other is configured: part of the calibration fingerprint, shared without loading the OpenAI client.
export const DEFAULT_PROVIDER_LABEL = 'openai-compatible';
