/** How Postdeck reaches the AI provider: OpenAI or any OpenAI-compatible server (Ollama, vLLM, LocalAI). */
export interface AiProviderConfig {
  readonly apiKey: string;
  /** The API root including `/v1` (OPENAI_BASE_URL). */
  readonly baseUrl: string;
  /** The chat model that writes captions; needs structured output (`response_format: json_schema`). */
  readonly textModel: string;
  /** The image model that draws slides; needs the images endpoint. */
  readonly imageModel: string;
  /** `low`, `medium`, `high` or `auto` for GPT image models. */
  readonly imageQuality: 'low' | 'medium' | 'high' | 'auto';
  /** One text request may take this long before it is abandoned (and retried, within `attempts`). */
  readonly textTimeoutMs: number;
  /** One image request may take this long (image models take tens of seconds). */
  readonly imageTimeoutMs: number;
  /** Tries per call for retryable failures (rate limits, 5xx, timeouts, malformed output). */
  readonly attempts: number;
  /** The longest a rate limit's `retry-after` is waited out; longer ones are answered at once. */
  readonly maxRetryWaitMs: number;
  /** True when the base URL is Postdeck's own emulator (nothing reaches a real model). */
  readonly emulated: boolean;
}
