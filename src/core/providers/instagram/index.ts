// Instagram's public face for the composition root and the Instagram-specific adapter pieces (the admin CLI):
// everything else reaches Instagram through the provider port.

export { INSTAGRAM_GRAPH_VERSION, INSTAGRAM_HOSTS, INSTAGRAM_SCOPES, type InstagramClientConfig } from './config.js';
export { INSTAGRAM_UPKEEP_EVERY_MS, instagramTokenUpkeepJob } from './connect/upkeep-job.js';
export { InstagramHttp } from './graph.js';
export { instagramHttpOf } from './http-of.js';
export { createInstagramProvider } from './provider.js';
