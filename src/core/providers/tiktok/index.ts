// TikTok's public face for the composition root and the TikTok-specific adapter pieces (the web connect page,
// the admin CLI, the request examples): everything else reaches TikTok through the provider port.

export type { TikTokClientConfig } from './config.js';
export { analyticsTurnedOff } from './connect/analytics-access.js';
export {
  completeTikTokConnection,
  startTikTokConnection,
  type ConnectionOutcome,
  type TikTokCallback,
} from './connect/connect.js';
export { TOKEN_UPKEEP_EVERY_MS, tiktokTokenUpkeepJob } from './connect/upkeep-job.js';
export { tiktokHttpOf } from './http-of.js';
export { TikTokHttp } from './http.js';
export { createTikTokProvider } from './provider.js';
export { releaseLinkLabel } from './publish/release-url.js';
export { TIKTOK_SETTINGS_EXAMPLES } from './rules/settings-examples.js';
