import type { Config } from '../config.js';
import type { AiProviderConfig } from '../core/providers/openai/config.js';

/** OpenAI's own API root, used when a key is set and no base URL. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** With no key and no base URL there is no provider to reach: `npm start` runs the emulator instead. */
export function usesOpenAiEmulator(config: Config): boolean {
  return !config.ai.apiKey && !config.ai.baseUrl;
}

/** The provider settings from the configuration, aimed at the emulator's base URL when one runs. */
export function aiProviderConfig(config: Config, emulatorBaseUrl?: string): AiProviderConfig {
  return {
    // Local OpenAI-compatible servers (Ollama, vLLM) take any key; the SDK insists on one.
    apiKey: config.ai.apiKey ?? (emulatorBaseUrl ? 'emulator-key' : 'no-key'),
    baseUrl: emulatorBaseUrl ?? config.ai.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    textModel: config.ai.textModel,
    imageModel: config.ai.imageModel,
    imageQuality: config.ai.imageQuality,
    textTimeoutMs: config.ai.textTimeoutMs,
    imageTimeoutMs: config.ai.imageTimeoutMs,
    attempts: 3,
    maxRetryWaitMs: 20_000,
    emulated: emulatorBaseUrl !== undefined,
  };
}
