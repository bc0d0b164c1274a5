import { z } from 'zod';

/** The metrics endpoint's environment variables (part of the one schema in config.ts). */
export const MetricsEnvSchema = z.object({
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (openssl rand -hex 32)').optional(),
});

/** Where and to whom `/metrics` answers. */
export interface MetricsSettings {
  readonly metrics: {
    /** A worker's own listener for `/metrics` (API roles serve it on PORT); none when unset. */
    readonly port: number | undefined;
    /** The bearer token `/metrics` asks for; without one it answers loopback callers only. */
    readonly token: string | undefined;
  };
}

export function metricsSettings(vars: z.infer<typeof MetricsEnvSchema>): MetricsSettings {
  return { metrics: { port: vars.METRICS_PORT, token: vars.METRICS_TOKEN } };
}
