import type { Config } from '../config.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../emulators/openai/server.js';
import type { Logger } from '../logger.js';

/**
 * Starts the built-in OpenAI emulator for `npm start` without OPENAI_API_KEY: captions and images
 * then come from a deterministic stand-in, never a model. It keeps no state worth sharing, so each
 * Postdeck process runs its own.
 */
export async function startLocalOpenAiEmulator(config: Config, logger: Logger): Promise<RunningOpenAiEmulator> {
  const emulator = await startOpenAiEmulator({ port: config.ai.emulatorPort, host: config.host });
  logger.warn(
    { url: emulator.baseUrl },
    'OpenAI emulator in use: captions and slide images are emulated until OPENAI_API_KEY is set',
  );
  return emulator;
}
