/**
 * The OpenAI emulator in a process of its own, as a real model is elsewhere: its work (drawing and
 * encoding images) then never blocks the measured process's event loop. Prints its base URL.
 */
import { startOpenAiEmulator } from '../../src/emulators/openai/server.js';

const latency = Number(process.argv[2] ?? 0);
const emulator = await startOpenAiEmulator({ latencyMs: { chat: latency, images: latency } });
process.stdout.write(`${emulator.baseUrl}\n`);
process.once('SIGTERM', () => void emulator.stop().then(() => process.exit(0)));
