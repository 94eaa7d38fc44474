// How the fake server states a model's window, in the shapes of the vendors' documentation (OpenAI-compatible, vLLM, OpenRouter, Ollama, LM Studio).
import { modelNotFound } from './errors.js';
import type { FakeModel, ModelsShape } from './types.js';

/** The window fields of one /v1/models entry for this shape; Ollama and LM Studio state none there. */
export function modelLimitFields(shape: ModelsShape | undefined, m: FakeModel): Record<string, unknown> {
  switch (shape ?? 'openai') {
    case 'openai':
      return { context_length: m.contextLength, max_model_len: m.contextLength };
    case 'vllm':
      return { max_model_len: m.contextLength };
    case 'context_window':
      return { context_window: m.contextLength };
    case 'openrouter':
      return {
        name: m.id,
        context_length: m.contextLength,
        pricing: { prompt: '0', completion: '0' },
        top_provider: { context_length: m.contextLength, max_completion_tokens: m.maxCompletionTokens ?? null, is_moderated: false },
      };
    case 'ollama':
    case 'lmstudio':
      return {};
  }
}

/** Ollama's `/api/show` answer: the Modelfile parameters (num_ctx in use) and the GGUF metadata (the model's maximum). */
function ollamaShow(m: FakeModel): Record<string, unknown> {
  return {
    modelfile: `FROM ${m.id}\nPARAMETER num_ctx ${m.contextLength}`,
    parameters: `num_ctx                        ${m.contextLength}\nstop                           "<|eot_id|>"`,
    template: '{{ .Prompt }}',
    details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8.0B', quantization_level: 'Q4_0' },
    model_info: {
      'general.architecture': 'llama',
      'general.parameter_count': 8030261248,
      'llama.context_length': m.maxContextLength ?? m.contextLength,
      'llama.embedding_length': 4096,
    },
    capabilities: ['completion', 'tools'],
  };
}

/** One LM Studio REST v0 model: loaded, with the context it was loaded with and the model's maximum. */
function lmStudioModel(m: FakeModel): Record<string, unknown> {
  return {
    id: m.id,
    object: 'model',
    type: 'llm',
    publisher: 'lmstudio-community',
    arch: 'llama',
    compatibility_type: 'gguf',
    quantization: 'Q4_K_M',
    state: 'loaded',
    max_context_length: m.maxContextLength ?? m.contextLength,
    loaded_context_length: m.contextLength,
  };
}

/** The native (non-/v1) model routes of the Ollama and LM Studio shapes, or undefined when this request is none. */
export function nativeModelRoute(
  shape: ModelsShape | undefined,
  method: string,
  path: string,
  body: unknown,
  models: readonly FakeModel[],
): { status: number; body: unknown } | undefined {
  if (shape === 'ollama' && method === 'POST' && path === '/api/show') {
    const name =
      typeof body === 'object' && body !== null ? ((body as Record<string, unknown>)['model'] ?? (body as Record<string, unknown>)['name']) : undefined;
    const m = models.find((x) => x.id === name);
    return m ? { status: 200, body: ollamaShow(m) } : { status: 404, body: { error: `model '${String(name)}' not found` } };
  }
  if (shape === 'lmstudio' && method === 'GET' && path === '/api/v0/models') {
    return { status: 200, body: { object: 'list', data: models.map(lmStudioModel) } };
  }
  if (shape === 'lmstudio' && method === 'GET' && path.startsWith('/api/v0/models/')) {
    const id = decodeURIComponent(path.slice('/api/v0/models/'.length));
    const m = models.find((x) => x.id === id);
    return m ? { status: 200, body: lmStudioModel(m) } : { status: 404, body: modelNotFound(id) };
  }
  return undefined;
}
