import { randomUUID } from 'node:crypto';

/** This process's id as an attempt holder, recorded on the attempts it claims (fresh at every start). */
export const WORKER_ID = randomUUID();
