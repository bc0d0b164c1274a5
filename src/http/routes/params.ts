import { z } from 'zod';

/** The path parameters of a route on one resource: its uuid. */
export const IdParamsSchema = z.object({ id: z.uuid() });
